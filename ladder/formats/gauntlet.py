"""Gauntlet: one round, entrant 0 (the challenger) at a table with every pair/combination of
the others. Scored by pairwise points, ties by Elo."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from ladder.formats.base import Format, GameRecord, Options, TablePlan

__all__ = ["FORMAT", "Gauntlet"]


class Gauntlet(Format):
    """The first entrant against every combination of the rest."""

    name = "gauntlet"
    summary = "gauntlet: the first entrant against every table of the others, one round"

    def first_round_tables(self, n: int, players: int, scenarios: int) -> int:
        """Every combination of `players` - 1 of the other `n` - 1."""
        return math.comb(max(0, n - 1), players - 1)

    def plan(
        self, n: int, players: int, games: Sequence[GameRecord], options: Options
    ) -> list[TablePlan] | None:
        """The challenger's tables, in one round; over once it is played."""
        if games:
            return None
        tables = [(0, *rest) for rest in itertools.combinations(range(1, n), players - 1)]
        return [TablePlan(0, k, t, options.sets) for k, t in enumerate(tables)]


FORMAT = Gauntlet()
