"""Round robin: one round, every pair (2 players) or every table of N distinct entrants (3-4
players), each as `sets` duplicate sets. Scored by pairwise points, ties by Elo."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from ladder.formats.base import Format, GameRecord, Options, TablePlan

__all__ = ["FORMAT", "RoundRobin"]


class RoundRobin(Format):
    """Everyone meets everyone, once per table of the field."""

    name = "round-robin"
    summary = "round robin: every table of distinct entrants, one round"

    def first_round_tables(self, n: int, players: int, scenarios: int) -> int:
        """Every combination of `players` of the `n`."""
        return math.comb(n, players)

    def plan(
        self, n: int, players: int, games: Sequence[GameRecord], options: Options
    ) -> list[TablePlan] | None:
        """Every combination, in one round; over once it is played."""
        if games:
            return None
        tables = itertools.combinations(range(n), players)
        return [TablePlan(0, k, t, options.sets) for k, t in enumerate(tables)]


FORMAT = RoundRobin()
