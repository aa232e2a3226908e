"""Scenarios, for cooperative games: each entrant fills every seat of the table (a team of
itself) against each scenario (a game config), `sets` games each (a team of one bot has nothing
to rotate). Scored by the team win rate, ranked by the lower end of its Wilson interval (a team
that won 2 of 2 does not outrank one that won 45 of 50)."""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from ladder import skill
from ladder.formats.base import Format, GameRecord, Options, Ranking, RankInput, TablePlan

__all__ = ["FORMAT", "Scenarios"]


class Scenarios(Format):
    """Every entrant, as a whole team, against every scenario."""

    name = "scenarios"
    summary = "scenarios (cooperative games): each bot as a whole team against each scenario"
    coop = True
    strength = "win_rate"

    def minimum_entrants(self, players: int) -> int:
        """One team is a field."""
        return 1

    def first_round_tables(self, n: int, players: int, scenarios: int) -> int:
        """One table per entrant and scenario."""
        return n * max(1, scenarios)

    def plan(
        self, n: int, players: int, games: Sequence[GameRecord], options: Options
    ) -> list[TablePlan] | None:
        """Every (entrant, scenario), in one round; over once it is played."""
        if games:
            return None
        return [
            TablePlan(0, k, (entrant,) * players, options.sets, scenario=s, rotate=False)
            for k, (entrant, s) in enumerate(itertools.product(range(n), range(options.scenarios)))
        ]

    def rank(self, data: RankInput) -> Ranking:
        """The win rate, ordered by its Wilson interval's low end."""
        ranking = Ranking({}, {}, {})
        for e in range(data.n):
            won = data.wdl[e]["W"]
            games = won + data.wdl[e]["L"]
            low, high = skill.wilson_interval(won, games)
            ranking.score[e] = won / games if games else 0.0
            ranking.extra[e] = {"win_rate_low": round(low, 4), "win_rate_high": round(high, 4)}
            ranking.key[e] = (-ranking.extra[e]["win_rate_low"], -ranking.score[e], float(e))
        return ranking

    def extra_results(
        self, names: Sequence[str], scenario_labels: Sequence[str], played: Sequence[GameRecord]
    ) -> dict[str, Any]:
        """``scenarios``: each team's wins against each scenario, with a Wilson interval."""
        tally: defaultdict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0])
        for g in played:
            if g.places is None or g.team_won is None:
                continue
            cell = tally[(g.seats[0], g.scenario or 0)]
            cell[0] += 1 if g.team_won else 0
            cell[1] += 1
        rows = []
        for (entrant, scenario), (won, count) in sorted(tally.items()):
            low, high = skill.wilson_interval(won, count)
            rows.append(
                {
                    "bot": names[entrant],
                    "scenario": (
                        scenario_labels[scenario] if scenario < len(scenario_labels) else str(scenario)
                    ),
                    "wins": won,
                    "games": count,
                    "win_rate": round(won / count, 4),
                    "low": round(low, 4),
                    "high": round(high, 4),
                }
            )
        return {"scenarios": rows}


FORMAT = Scenarios()
