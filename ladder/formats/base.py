"""What every competition format shares: tables, games, duplicate sets, pairwise points, and
the :class:`Format` a format module subclasses. Pure: no I/O.

Entrants are numbered 0..n-1 in the order given (that order is the seeding: entrant 0 is the
first seed). A competition is played in rounds; each round is a list of :class:`TablePlan`, and
every table is played as `sets` **duplicate sets**: one seed per set, played once per cyclic
rotation of the seats (N games for N seats), so every entrant of the table gets every seat with
the same shuffles and the luck of the deal and of the seat cancels out.

A format is one module of this package defining ``FORMAT``, an instance of a :class:`Format`
subclass: its name, its minimum field, who plays whom (:meth:`Format.plan`), how its standings
are scored and ordered (:meth:`Format.rank`) and the columns that scoring adds to the results
(:attr:`Format.columns`). ``ladder.formats`` finds the modules (``README.md`` next to this file).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

__all__ = [
    "Column",
    "Format",
    "GameRecord",
    "Options",
    "RankInput",
    "Ranking",
    "TablePlan",
    "by_round",
    "by_table",
    "complete",
    "forfeit_places",
    "plan_games",
    "rotations",
    "set_seed",
    "table_points",
]


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


def complete(games: Sequence[GameRecord]) -> bool:
    """True when every game is played or failed (the round may be followed by the next)."""
    return all(g.places is not None or g.failed for g in games)


def by_round(games: Sequence[GameRecord]) -> dict[int, list[GameRecord]]:
    """The games grouped by round, in round order."""
    rounds: defaultdict[int, list[GameRecord]] = defaultdict(list)
    for g in games:
        rounds[g.round].append(g)
    return dict(sorted(rounds.items()))


def by_table(games: Sequence[GameRecord]) -> dict[int, list[GameRecord]]:
    tables: defaultdict[int, list[GameRecord]] = defaultdict(list)
    for g in games:
        tables[g.table].append(g)
    return dict(sorted(tables.items()))


def plan_games(plan: TablePlan) -> list[GameRecord]:
    """The games of one table: each set played in each rotation of the seats (the set's seed is
    :func:`set_seed`, the same for all its rotations)."""
    out = []
    for set_no in range(plan.first_set, plan.first_set + plan.sets):
        seats_list = rotations(plan.entrants) if plan.rotate else [plan.entrants]
        for rotation, seats in enumerate(seats_list):
            out.append(GameRecord(plan.round, plan.table, set_no, rotation, seats, scenario=plan.scenario))
    return out


@dataclass(frozen=True, slots=True)
class Options:
    """A competition's options, as every format's plan is given them: `sets` duplicate sets per
    table, `rounds` (None: the format's own number) and `scenarios` (how many game configs the
    competition plays against; 1 when it names none)."""

    sets: int = 1
    rounds: int | None = None
    scenarios: int = 1


@dataclass(frozen=True, slots=True)
class Column:
    """A standings column a format adds: the row's `key`, its `title` on the page and in the
    CLI, and optionally `mark_key`, a boolean of the row that adds "(`mark`)" after the value
    (a knockout's "(out)")."""

    key: str
    title: str
    mark_key: str | None = None
    mark: str = ""


@dataclass(frozen=True, slots=True)
class RankInput:
    """What a format's :meth:`Format.rank` is given: the field size, seats per table, every game
    (played or not), the played ones, each entrant's pairwise points (:func:`table_points` over
    the played games), wins/draws/losses (``{"W", "D", "L"}`` per entrant) and its maximum-
    likelihood Elo (``elo[e]``, ``ladder.skill``)."""

    n: int
    players: int
    games: Sequence[GameRecord]
    played: Sequence[GameRecord]
    points: Mapping[int, tuple[float, float]]
    wdl: Mapping[int, Mapping[str, int]]
    elo: Mapping[int, float]


@dataclass(slots=True)
class Ranking:
    """A format's standings before they are sorted: each entrant's `score`, its sort `key`
    (ascending: the best first) and `extra` row values (the format's :attr:`Format.columns`)."""

    score: dict[int, float]
    key: dict[int, tuple[float, ...]]
    extra: dict[int, dict[str, Any]] = field(default_factory=dict)


class Format:
    """A competition format: subclass it in a module of ``ladder.formats`` and set ``FORMAT``.

    A subclass sets :attr:`name` and :attr:`summary` and implements :meth:`plan`; the rest has
    defaults that suit a format of rated seats played in rotation (round robin's).
    """

    #: the name `--format` and the API take (at most 16 characters: ``competitions.format``)
    name: ClassVar[str]
    #: one line for `arena tournament create --help` and the docs
    summary: ClassVar[str]
    #: True for a format of cooperative games (a team of one entrant against a scenario); a
    #: cooperative game plays only such formats, any other game only the others
    coop: ClassVar[bool] = False
    #: how the standings show strength: "elo" (maximum-likelihood Elo with its interval and the
    #: likelihood of superiority) or "win_rate" (the team win rate with its Wilson interval)
    strength: ClassVar[str] = "elo"
    #: the standings columns this format adds (its :meth:`rank` puts them in ``extra``)
    columns: ClassVar[tuple[Column, ...]] = ()

    def minimum_entrants(self, players: int) -> int:
        """The smallest field it can play at tables of `players` (default: one full table)."""
        return players

    def first_round_tables(self, n: int, players: int, scenarios: int) -> int:
        """How many tables its first round has, counted without planning it (a field of 64 at
        tables of 4 is 635,376 round-robin tables: the caller refuses before building them)."""
        return max(1, n // max(1, players))

    def rotates(self) -> bool:
        """True if each set is played once per rotation of the seats (False: a team of one)."""
        return not self.coop

    def plan(
        self, n: int, players: int, games: Sequence[GameRecord], options: Options
    ) -> list[TablePlan] | None:
        """The next round's tables given every game so far (all played or failed), or None when
        the competition is over."""
        raise NotImplementedError

    def rank(self, data: RankInput) -> Ranking:
        """Scores and order: the pairwise points (1 per opponent beaten in a game, ½ per shared
        place, divided by N - 1), ties broken by Elo, then seed."""
        score = {e: data.points.get(e, (0.0, 0.0))[0] for e in range(data.n)}
        key: dict[int, tuple[float, ...]] = {
            e: (-round(score[e], 9), -data.elo[e], float(e)) for e in range(data.n)
        }
        return Ranking(score, key)

    def extra_results(
        self, names: Sequence[str], scenario_labels: Sequence[str], played: Sequence[GameRecord]
    ) -> dict[str, Any]:
        """More blocks of the results table (the co-op format's per-scenario rows); none here."""
        return {}
