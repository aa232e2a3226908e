"""Knockout. 2 players: best remaining seed against the worst remaining seed each round
(re-seeded every round), byes to the top seeds when the survivors are not a power of two; a tie
after the sets gets up to :data:`TIEBREAK_SETS` extra sets, then the better seed goes through.
3-4 players: heats of N, the top ceil(N/2) of each heat advance (leftovers get a bye), until at
most N remain: with exactly N they play a final, otherwise the last round's points decide.
Standings: the round reached (the winner one more than the final), ties broken by the points in
the round a bot went out."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

from ladder.formats.base import (
    Column,
    Format,
    GameRecord,
    Options,
    Ranking,
    RankInput,
    TablePlan,
    by_round,
    by_table,
    table_points,
)

__all__ = ["FORMAT", "TIEBREAK_SETS", "Knockout", "knockout_survivors"]

#: extra duplicate sets a tied knockout tie plays before the better seed goes through
TIEBREAK_SETS: Final = 2


def knockout_survivors(
    n: int, players: int, games: Sequence[GameRecord]
) -> tuple[list[int], dict[int, int]]:
    """Who is still in (by seed) and, for each eliminated entrant, the round it went out in."""
    alive = list(range(n))
    out: dict[int, int] = {}
    for round_no, round_games in by_round(games).items():
        playing = {e for g in round_games for e in g.seats}
        advancing = set(alive) - playing  # byes
        for table_games in by_table(round_games).values():
            entrants = sorted(set(table_games[0].seats))
            points = table_points(table_games)
            ranked = sorted(entrants, key=lambda e: (-points.get(e, (0.0, 0.0))[0], e))
            keep = 1 if players == 2 else math.ceil(players / 2)
            for k, entrant in enumerate(ranked):
                if k < keep:
                    advancing.add(entrant)
                else:
                    out[entrant] = round_no
        alive = sorted(advancing)
    return alive, out


def _knockout_next(n: int, players: int, sets: int, games: Sequence[GameRecord]) -> list[TablePlan] | None:
    rounds = by_round(games)
    if rounds:
        last_no = max(rounds)
        last = rounds[last_no]
        if players == 2:
            # a tied table plays more sets (up to TIEBREAK_SETS), in the same round
            extra = []
            for table_no, table_games in by_table(last).items():
                points = table_points(table_games)
                entrants = sorted(points)
                played_sets = 1 + max(g.set_no for g in table_games)
                if (
                    len(entrants) == 2
                    and points[entrants[0]][0] == points[entrants[1]][0]
                    and played_sets < sets + TIEBREAK_SETS
                ):
                    extra.append(
                        TablePlan(last_no, table_no, table_games[0].seats, 1, first_set=played_sets)
                    )
            if extra:
                return extra
        alive, _ = knockout_survivors(n, players, games)
        if players > 2 and len(by_table(last)) == 1:
            return None  # that was the final (or the only heat left): its points decide
        round_no = last_no + 1
    else:
        alive, round_no = list(range(n)), 0
    if len(alive) <= 1:
        return None
    tables: list[tuple[int, ...]]
    if players == 2:
        size = 1 << (len(alive) - 1).bit_length()
        byes = size - len(alive)
        playing = alive[byes:]
        tables = [(playing[i], playing[-1 - i]) for i in range(len(playing) // 2)]
    else:
        if len(alive) < players:
            return None  # the last round's points decided (see the module doc)
        byes = len(alive) % players
        playing = alive[byes:]  # the top seeds sit the round out
        heats = len(playing) // players
        # snake seeding: heat k gets seeds k, 2h-1-k, 2h+k, ... so heats are balanced
        tables_lists: list[list[int]] = [[] for _ in range(heats)]
        for i, entrant in enumerate(playing):
            lap, pos = divmod(i, heats)
            tables_lists[pos if lap % 2 == 0 else heats - 1 - pos].append(entrant)
        tables = [tuple(t) for t in tables_lists]
    return [TablePlan(round_no, k, t, sets) for k, t in enumerate(tables)]


class Knockout(Format):
    """Elimination rounds (heats for 3-4 players)."""

    name = "knockout"
    summary = "knockout: elimination rounds, tiebreak sets, heats for 3-4 players"
    columns = (Column("round_reached", "Round reached", mark_key="eliminated", mark="out"),)

    def minimum_entrants(self, players: int) -> int:
        """Two: a final."""
        return 2

    def plan(
        self, n: int, players: int, games: Sequence[GameRecord], options: Options
    ) -> list[TablePlan] | None:
        """The next round (or a tied table's extra sets), or None once one is left."""
        return _knockout_next(n, players, options.sets, games)

    def rank(self, data: RankInput) -> Ranking:
        """The round reached, then the points in the round a bot went out."""
        alive, out = knockout_survivors(data.n, data.players, data.played)
        last_round = max((g.round for g in data.played), default=0)
        round_points: dict[tuple[int, int], float] = {}
        for g_round, round_games in by_round(data.played).items():
            for e, (p, _) in table_points(round_games).items():
                round_points[(e, g_round)] = p
        ranking = Ranking({}, {}, {})
        for e in range(data.n):
            reached = out.get(e, last_round + 1)
            ranking.score[e] = float(reached)
            ranking.extra[e] = {"round_reached": reached, "eliminated": e not in alive}
            ranking.key[e] = (-float(reached), -round_points.get((e, out.get(e, last_round)), 0.0), float(e))
        return ranking


FORMAT = Knockout()
