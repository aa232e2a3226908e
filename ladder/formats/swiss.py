"""Swiss: `rounds` rounds (default ceil(log2 n)); each round sorts by points (then seed), seats
neighbours together avoiding anyone already met while that is possible, and gives the players
left over a bye (one point) -- the lowest scores without a bye yet get them. A table's points are
each entrant's mean pairwise score over its games (0..1: 1 = beat everyone in every game of the
set). Standings: the Swiss points, ties broken by Buchholz (the sum of the opponents' Swiss
points), then Elo."""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence

from ladder.formats.base import (
    Column,
    Format,
    GameRecord,
    Options,
    Ranking,
    RankInput,
    TablePlan,
    by_round,
    table_points,
)

__all__ = ["FORMAT", "Swiss", "swiss_byes", "swiss_pairing", "swiss_points", "swiss_rounds"]


def swiss_pairing(
    order: Sequence[int],
    players: int,
    met: set[frozenset[int]],
    byes: set[int],
) -> tuple[list[tuple[int, ...]], list[int]]:
    """Tables of `players` for one Swiss round and the entrants with a bye.

    `order` is the entrants best first (points, then seed). The n mod `players` left over get
    byes: the lowest in `order` without a bye yet (everyone had one: the lowest). The rest are
    seated top down, each table the first entrant left with the next ones it has met least
    (a depth-first search finds tables with no rematch whenever they exist; failing that, the
    fewest rematches).
    """
    remaining = list(order)
    bye_count = len(remaining) % players
    bye_list: list[int] = []
    for entrant in reversed(remaining):
        if len(bye_list) == bye_count:
            break
        if entrant not in byes:
            bye_list.append(entrant)
    for entrant in reversed(remaining):
        if len(bye_list) == bye_count:
            break
        if entrant not in bye_list:
            bye_list.append(entrant)
    seated = [e for e in remaining if e not in bye_list]

    def rematches(table: Sequence[int]) -> int:
        return sum(frozenset(p) in met for p in itertools.combinations(table, 2))

    best: list[tuple[int, ...]] | None = None
    best_cost = math.inf
    budget = [20_000]  # search nodes: plenty for fields of dozens, bounded for anything

    def search(left: list[int], tables: list[tuple[int, ...]], cost: int) -> bool:
        nonlocal best, best_cost
        budget[0] -= 1
        if cost >= best_cost or budget[0] < 0:
            return False
        if not left:
            best, best_cost = list(tables), cost
            return cost == 0
        head, rest = left[0], left[1:]
        for others in itertools.combinations(rest, players - 1):
            table = (head, *others)
            extra = rematches(table)
            remaining_left = [e for e in rest if e not in others]
            if search(remaining_left, [*tables, table], cost + extra):
                return True
        return False

    search(seated, [], 0)
    assert best is not None  # the first leaf is always reached: the budget covers one descent
    return best, bye_list


def swiss_points(rounds: Mapping[int, Sequence[GameRecord]], byes: Mapping[int, set[int]],
                 n: int) -> list[float]:
    """Each entrant's Swiss points: per round its table's mean pairwise score, 1 for a bye."""
    points = [0.0] * n
    for round_no, games in rounds.items():
        for entrant, (p, g) in table_points(games).items():
            points[entrant] += p / g if g else 0.0
        for entrant in byes.get(round_no, set()):
            points[entrant] += 1.0
    return points


def swiss_rounds(n: int, rounds: int | None) -> int:
    """The rounds of a Swiss of `n` entrants: `rounds`, or ceil(log2 n) (at least 1)."""
    return rounds if rounds else max(1, math.ceil(math.log2(max(2, n))))


def swiss_byes(rounds: Mapping[int, Sequence[GameRecord]], n: int) -> dict[int, set[int]]:
    """Who had a bye in each round: the entrants without a game in it."""
    return {
        r: set(range(n)) - {e for g in games for e in g.seats} for r, games in rounds.items()
    }


class Swiss(Format):
    """Rounds of neighbours by points, no rematch while one can be avoided."""

    name = "swiss"
    summary = "Swiss: rounds pairing neighbours by points, no rematch while avoidable"
    columns = (Column("buchholz", "Buchholz"), Column("byes", "Byes"))

    def plan(
        self, n: int, players: int, games: Sequence[GameRecord], options: Options
    ) -> list[TablePlan] | None:
        """The next round by points, or None after the last."""
        played_rounds = by_round(games)
        if len(played_rounds) >= swiss_rounds(n, options.rounds):
            return None
        byes = swiss_byes(played_rounds, n)
        points = swiss_points(played_rounds, byes, n)
        order = sorted(range(n), key=lambda e: (-points[e], e))
        met = {frozenset(p) for g in games for p in itertools.combinations(sorted(set(g.seats)), 2)}
        had_bye = set().union(*byes.values()) if byes else set()
        tables, _ = swiss_pairing(order, players, met, had_bye)
        return [TablePlan(len(played_rounds), k, t, options.sets) for k, t in enumerate(tables)]

    def rank(self, data: RankInput) -> Ranking:
        """Swiss points, then Buchholz, then Elo."""
        byes = swiss_byes(by_round(data.games), data.n)
        swiss = swiss_points(by_round(data.played), byes, data.n)
        opponents: defaultdict[int, set[int]] = defaultdict(set)
        for g in data.played:
            for a, b in itertools.permutations(set(g.seats), 2):
                opponents[a].add(b)
        ranking = Ranking({}, {}, {})
        for e in range(data.n):
            ranking.score[e] = swiss[e]
            buchholz = round(sum(swiss[o] for o in opponents[e]), 3)
            ranking.extra[e] = {"buchholz": buchholz, "byes": sum(1 for r in byes.values() if e in r)}
            ranking.key[e] = (-swiss[e], -buchholz, -data.elo[e], float(e))
        return ranking


FORMAT = Swiss()
