"""Competition formats: duplicate sets, and who plays whom in each round. Pure: no I/O.

Entrants are numbered 0..n-1 in the order given (that order is the seeding: entrant 0 is the
first seed). A competition is played in rounds; each round is a list of :class:`TablePlan`, and
every table is played as `sets` **duplicate sets**: one seed per set, played once per cyclic
rotation of the seats (N games for N seats), so every entrant of the table gets every seat with
the same shuffles and the luck of the deal and of the seat cancels out.

:func:`next_round` is the whole scheduler: given the format, the field and the games played so
far, it returns the next round's tables, or None when the competition is over. Formats:

* ``round-robin`` -- one round: every pair (2 players) or every table of N distinct entrants
  (3-4 players), each as `sets` duplicate sets;
* ``gauntlet`` -- one round: entrant 0 (the challenger) at a table with every pair/combination
  of the others;
* ``swiss`` -- `rounds` rounds (default ceil(log2 n)); each round sorts by points (then seed),
  seats neighbours together avoiding anyone already met while that is possible, and gives the
  players left over a bye (one point) -- the lowest scores without a bye yet get them. A table's
  points are each entrant's mean pairwise score over its games (0..1: 1 = beat everyone in
  every game of the set);
* ``knockout`` -- 2 players: best remaining seed against the worst remaining seed each round
  (re-seeded every round), byes to the top seeds when the survivors are not a power of two; a
  tie after the sets gets up to :data:`TIEBREAK_SETS` extra sets, then the better seed goes
  through. 3-4 players: heats of N, the top ceil(N/2) of each heat advance (leftovers get a
  bye), until at most N remain: with exactly N they play a final, otherwise the last round's
  points decide;
* ``scenarios`` -- cooperative games: each entrant fills every seat of the table (a team of
  itself) against each scenario (a game config), `sets` games each (a team of one bot has
  nothing to rotate).
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

__all__ = [
    "FORMATS",
    "TIEBREAK_SETS",
    "GameRecord",
    "TablePlan",
    "by_round",
    "forfeit_places",
    "knockout_survivors",
    "next_round",
    "plan_games",
    "rotations",
    "set_seed",
    "swiss_byes",
    "swiss_pairing",
    "swiss_points",
    "swiss_rounds",
    "table_points",
]

FORMATS: Final = ("round-robin", "swiss", "knockout", "gauntlet", "scenarios")
#: extra duplicate sets a tied knockout tie plays before the better seed goes through
TIEBREAK_SETS: Final = 2


@dataclass(frozen=True, slots=True)
class TablePlan:
    """One table of a round: entrants (seat order of the first rotation), its sets and scenario.

    `first_set` is the number of its first set (a knockout tiebreak continues a table's sets);
    `scenario` indexes the competition's scenario list (``scenarios`` format), else None.
    """

    round: int
    table: int
    entrants: tuple[int, ...]
    sets: int
    first_set: int = 0
    scenario: int | None = None
    #: rotate the seats within a set (False for a team of one entrant)
    rotate: bool = True


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One scheduled game and, once played, its places (None until then, or if it failed)."""

    round: int
    table: int
    set_no: int
    rotation: int
    #: entrant per seat
    seats: tuple[int, ...]
    places: tuple[int, ...] | None = None
    team_won: bool | None = None
    scenario: int | None = None
    failed: bool = False
    #: the seats that forfeited (their places already put after every seat that played on)
    forfeited: tuple[int, ...] = ()


def forfeit_places(places: Sequence[int], forfeited: Sequence[int]) -> tuple[int, ...]:
    """`places` with every forfeited seat after every seat that played on: a game's places rank
    scores only, so a seat that crashed at 0 points shares first place with one knocked out on 0
    (``referee.replay_view.place_notes``); a competition never lets a forfeit share a place with
    a seat that played. Places stay standard competition ranks (1, 1, 3): one more than the
    seats strictly ahead, ordered by (forfeited, place)."""
    out = set(forfeited)
    key = [(seat in out, place) for seat, place in enumerate(places)]
    return tuple(1 + sum(other < mine for other in key) for mine in key)


def rotations(entrants: Sequence[int]) -> list[tuple[int, ...]]:
    """The N cyclic rotations of a table: (a, b, c) -> (a, b, c), (b, c, a), (c, a, b)."""
    n = len(entrants)
    return [tuple(entrants[(r + s) % n] for s in range(n)) for r in range(n)]


def set_seed(seed: int, round_no: int, table: int, set_no: int) -> int:
    """The game seed of one duplicate set: a hash of the competition seed and the set's place,
    so every set is different, the same in every run, and independent of scheduling order."""
    digest = hashlib.sha256(f"{seed}:{round_no}:{table}:{set_no}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def table_points(games: Sequence[GameRecord]) -> dict[int, tuple[float, float]]:
    """Each entrant's (pairwise points, games) over `games`: a game of N players gives the
    better place 1/(N-1) per opponent beaten, half that per shared place (so one game is worth
    at most 1). Unplayed or failed games count nothing."""
    points: defaultdict[int, float] = defaultdict(float)
    played: defaultdict[int, float] = defaultdict(float)
    for game in games:
        if game.places is None:
            continue
        n = len(game.seats)
        for i, a in enumerate(game.seats):
            played[a] += 1.0
            for j, b in enumerate(game.seats):
                if i != j and a != b:
                    pa, pb = game.places[i], game.places[j]
                    points[a] += (1.0 if pa < pb else 0.5 if pa == pb else 0.0) / (n - 1)
    return {e: (points[e], played[e]) for e in played}


def _complete(games: Sequence[GameRecord]) -> bool:
    return all(g.places is not None or g.failed for g in games)


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


def by_round(games: Sequence[GameRecord]) -> dict[int, list[GameRecord]]:
    """The games grouped by round, in round order."""
    rounds: defaultdict[int, list[GameRecord]] = defaultdict(list)
    for g in games:
        rounds[g.round].append(g)
    return dict(sorted(rounds.items()))


def _by_table(games: Sequence[GameRecord]) -> dict[int, list[GameRecord]]:
    tables: defaultdict[int, list[GameRecord]] = defaultdict(list)
    for g in games:
        tables[g.table].append(g)
    return dict(sorted(tables.items()))


def swiss_rounds(n: int, rounds: int | None) -> int:
    """The rounds of a Swiss of `n` entrants: `rounds`, or ceil(log2 n) (at least 1)."""
    return rounds if rounds else max(1, math.ceil(math.log2(max(2, n))))


def swiss_byes(rounds: Mapping[int, Sequence[GameRecord]], n: int) -> dict[int, set[int]]:
    """Who had a bye in each round: the entrants without a game in it."""
    return {
        r: set(range(n)) - {e for g in games for e in g.seats} for r, games in rounds.items()
    }


def knockout_survivors(
    n: int, players: int, games: Sequence[GameRecord]
) -> tuple[list[int], dict[int, int]]:
    """Who is still in (by seed) and, for each eliminated entrant, the round it went out in."""
    alive = list(range(n))
    out: dict[int, int] = {}
    for round_no, round_games in by_round(games).items():
        playing = {e for g in round_games for e in g.seats}
        advancing = set(alive) - playing  # byes
        for table_games in _by_table(round_games).values():
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
            for table_no, table_games in _by_table(last).items():
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
        if players > 2 and len(_by_table(last)) == 1:
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


def next_round(
    fmt: str,
    n: int,
    players: int,
    games: Sequence[GameRecord],
    *,
    sets: int = 1,
    rounds: int | None = None,
    scenarios: int = 1,
) -> list[TablePlan] | None:
    """The next round's tables given the games so far, or None when the competition is over.

    Returns an empty list while the current round still has games to play (the caller waits).
    Raises ValueError for an unknown format or a field too small for it.
    """
    if fmt not in FORMATS:
        raise ValueError(f"format: one of {', '.join(FORMATS)}, got {fmt!r}")
    if sets < 1:
        raise ValueError("sets: at least 1")
    minimum = 1 if fmt == "scenarios" else 2 if fmt == "knockout" else players
    if n < minimum:
        raise ValueError(f"{fmt} with {players} players needs at least {minimum} entrants, got {n}")
    if not _complete(games):
        return []
    played_rounds = by_round(games)
    if fmt in ("round-robin", "gauntlet", "scenarios"):
        if played_rounds:
            return None
        tables: list[tuple[int, ...]]
        if fmt == "round-robin":
            tables = list(itertools.combinations(range(n), players))
        elif fmt == "gauntlet":
            tables = [(0, *rest) for rest in itertools.combinations(range(1, n), players - 1)]
        else:
            return [
                TablePlan(0, k, (entrant,) * players, sets, scenario=s, rotate=False)
                for k, (entrant, s) in enumerate(itertools.product(range(n), range(scenarios)))
            ]
        return [TablePlan(0, k, t, sets) for k, t in enumerate(tables)]
    if fmt == "swiss":
        total = swiss_rounds(n, rounds)
        if len(played_rounds) >= total:
            return None
        byes = swiss_byes(played_rounds, n)
        points = swiss_points(played_rounds, byes, n)
        order = sorted(range(n), key=lambda e: (-points[e], e))
        met = {
            frozenset(p)
            for g in games
            for p in itertools.combinations(sorted(set(g.seats)), 2)
        }
        had_bye = set().union(*byes.values()) if byes else set()
        tables, _ = swiss_pairing(order, players, met, had_bye)
        return [TablePlan(len(played_rounds), k, t, sets) for k, t in enumerate(tables)]
    return _knockout_next(n, players, sets, games)


def plan_games(plan: TablePlan) -> list[GameRecord]:
    """The games of one table: each set played in each rotation of the seats (the set's seed is
    :func:`set_seed`, the same for all its rotations)."""
    out = []
    for set_no in range(plan.first_set, plan.first_set + plan.sets):
        seats_list = rotations(plan.entrants) if plan.rotate else [plan.entrants]
        for rotation, seats in enumerate(seats_list):
            out.append(GameRecord(plan.round, plan.table, set_no, rotation, seats, scenario=plan.scenario))
    return out
