"""Recording a finished match: result, replay and rating changes in one transaction.

:func:`record_result` is what a worker calls when the referee is done. It is idempotent: the
match row is locked first and a match already ``done`` is left alone, so a retried task (Celery
runs tasks at least once) cannot count a match twice, even when two retries race.

Lost rating updates are prevented by locking. On PostgreSQL the match row and then the ladder
rows of the seated bots are locked with ``SELECT ... FOR UPDATE``, always in bot id order, so
two recordings that share bots wait for each other instead of deadlocking. SQLite allows one
writer at a time; the transaction starts with ``BEGIN IMMEDIATE`` so it waits its turn up front.

On a cooperative ladder (``ladders.kind = 'coop'``) the result's ``team_won`` is rated against
the match's scenario instead (:mod:`ladder.coop_rating`): the scenario row is created if new and
locked after the match row and before the bots' rows (match, scenario, bots in id order, the
same order in every cooperative recording), and its change goes to ``scenario_rating_history``.
"""

from __future__ import annotations

import gzip
import hashlib
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final, Protocol

import sqlalchemy as sa
from sqlalchemy import Connection, Engine
from sqlalchemy.dialects import postgresql, sqlite

from ladder import coop_rating, elo
from ladder.db import write_transaction
from ladder.errors import InvalidInput, NotFound
from ladder.ladders import ensure_entries
from ladder.scenarios import ScenarioInfo, match_scenario
from ladder.schema import (
    bot_logs,
    bot_versions,
    ladder_entries,
    ladders,
    matches,
    rating_history,
    replays,
    results,
    scenario_rating_history,
    scenarios,
)

__all__ = [
    "STORED_GZIP_LEVEL",
    "GameResult",
    "RatingChange",
    "Recording",
    "ScenarioChange",
    "compress_replay",
    "record_result",
]


class GameResult(Protocol):
    """What recording needs of a finished game; ``referee.core.game.Result`` fits."""

    @property
    def places(self) -> Sequence[int]:
        """1-based final placings per seat; equal numbers are shared places."""
        ...

    @property
    def scores(self) -> Sequence[int]:
        """The game's points per seat."""
        ...

    @property
    def outcomes(self) -> Sequence[str]:
        """How each seat ended ("escaped", "knocked_out", "forfeit", ...)."""
        ...


@dataclass(frozen=True, slots=True)
class RatingChange:
    """One bot's rating change from one match."""

    bot_id: int
    before: float
    after: float
    delta: float


@dataclass(frozen=True, slots=True)
class ScenarioChange:
    """A cooperative match's scenario and its rating change (see ladder.coop_rating)."""

    scenario_id: int
    key: str
    team_won: bool
    team_strength: float
    expected: float
    before: float
    after: float
    delta: float


@dataclass(frozen=True, slots=True)
class Recording:
    """What :func:`record_result` did.

    `already_recorded` is True when the match was done before this call: nothing was written
    and `changes` is empty. `scenario` is set for a match of a cooperative ladder.
    """

    match_id: int
    already_recorded: bool
    changes: tuple[RatingChange, ...] = ()
    scenario: ScenarioChange | None = None


#: gzip level of stored replays and logs. Level 9 cost 0.63 ms per 30 KB replay, a third of
#: record_result's CPU (issue 14's bench); level 3 takes 0.09 ms for 14 % more bytes (8.4 vs
#: 7.4 KB on the bench's sample). Levels 4 and up switch zlib to its slow matcher.
STORED_GZIP_LEVEL: Final = 3


def compress_replay(replay: bytes) -> bytes:
    """The stored form of a replay: gzip, with a zero timestamp so equal replays compress equal."""
    return gzip.compress(replay, compresslevel=STORED_GZIP_LEVEL, mtime=0)


# The statements recording runs, built once: building a Core statement costs more CPU than
# executing a cached one, and recording is on every match's path (issue 14's bench).
_LOCK_MATCH = (
    sa.select(
        matches.c.ladder_id,
        matches.c.status,
        matches.c.seats,
        matches.c.config,
        ladders.c.kind,
        ladders.c.game,
        ladders.c.players,
    )
    .join(ladders, ladders.c.id == matches.c.ladder_id)
    .where(matches.c.id == sa.bindparam("match_id"))
    # lock the match row only: the ladder's row is read by every recording on it
    .with_for_update(of=matches)
)
_BOTS_OF_VERSIONS = sa.select(bot_versions.c.id, bot_versions.c.bot_id).where(
    bot_versions.c.id.in_(sa.bindparam("version_ids", expanding=True))
)
_LOCK_ENTRIES = (
    sa.select(ladder_entries.c.bot_id, ladder_entries.c.rating, ladder_entries.c.games)
    .where(
        ladder_entries.c.ladder_id == sa.bindparam("ladder_id"),
        ladder_entries.c.bot_id.in_(sa.bindparam("bot_ids", expanding=True)),
    )
    .order_by(ladder_entries.c.bot_id)
    .with_for_update()
)
_UPDATE_ENTRY = (
    sa.update(ladder_entries)
    .where(
        ladder_entries.c.ladder_id == sa.bindparam("entry_ladder_id"),
        ladder_entries.c.bot_id == sa.bindparam("entry_bot_id"),
    )
    .values(
        rating=sa.bindparam("new_rating"),
        games=ladder_entries.c.games + 1,
        wins=ladder_entries.c.wins + sa.bindparam("won", type_=sa.Integer),
        draws=ladder_entries.c.draws + sa.bindparam("drew", type_=sa.Integer),
        updated_at=sa.bindparam("now", type_=ladder_entries.c.updated_at.type),
    )
)
_INSERT_RESULT = sa.insert(results)
_INSERT_REPLAY = sa.insert(replays)
_INSERT_HISTORY = sa.insert(rating_history)
_FINISH_MATCH = (
    sa.update(matches)
    .where(matches.c.id == sa.bindparam("match_id"))
    .values(
        status="done",
        finished_at=sa.bindparam("now", type_=matches.c.finished_at.type),
        lease_owner=None,
        lease_expires_at=None,
        error=None,
    )
)


def record_result(
    engine: Engine,
    match_id: int,
    result: GameResult,
    replay: bytes,
    reason: str,
    *,
    now: datetime | None = None,
    logs: Mapping[int, tuple[bytes, bool]] | None = None,
) -> Recording:
    """Record match `match_id`'s result, its replay and the rating changes, atomically.

    `replay` is the replay as the referee wrote it (stored gzip-compressed, with the SHA-256
    of these bytes); `reason` says why the match ended ("finished", "forfeit: seat 2 timed
    out", ...). The match may be queued, running or failed (a late result is still a result);
    if it is already done, nothing changes and the returned Recording says so. `logs` holds the
    hosted seats' captured output (seat -> (bytes, truncated)); each is stored gzip-compressed in
    ``bot_logs`` with the same transaction, for the bot's owner.

    On a cooperative ladder the result must also have ``team_won`` (a bool): the team is rated
    against the match's scenario instead of by places.

    Raises NotFound for an unknown match and InvalidInput if the result does not fit its seats
    (or, on a cooperative ladder, has no team_won).
    """
    now = now or datetime.now(UTC)
    places = [int(p) for p in result.places]
    scores = [int(s) for s in result.scores]
    outcomes = [str(o) for o in result.outcomes]
    raw_team_won = getattr(result, "team_won", None)
    team_won = raw_team_won if isinstance(raw_team_won, bool) else None
    # Compress and hash before the transaction: the rating rows stay locked only for the
    # statements, not for gzip (a retried recording compresses again, which is harmless).
    stored_replay = compress_replay(replay)
    replay_sha256 = hashlib.sha256(replay).hexdigest()
    stored_logs = [
        (seat, gzip.compress(data, compresslevel=STORED_GZIP_LEVEL, mtime=0), len(data), truncated)
        for seat, (data, truncated) in sorted((logs or {}).items())
    ]
    with write_transaction(engine) as conn:
        match = conn.execute(_LOCK_MATCH, {"match_id": match_id}).one_or_none()
        if match is None:
            raise NotFound(f"no match {match_id}")
        if match.status == "done":
            return Recording(match_id=match_id, already_recorded=True)
        seats = [int(s) for s in match.seats]
        _check_shape(seats, places, scores, outcomes)
        seat_bots = _bots_of_seats(conn, seats)
        scenario_change: ScenarioChange | None = None
        if match.kind == "coop":
            if team_won is None:
                raise InvalidInput("result: a cooperative match needs team_won (True or False)")
            info = match_scenario(match.game, match.players, match.config)
            changes, scenario_change = _apply_coop_ratings(
                conn, match_id, match.ladder_id, info, seat_bots, team_won, now
            )
        else:
            changes = _apply_ratings(conn, match_id, match.ladder_id, seat_bots, places, now)
        conn.execute(
            _INSERT_RESULT,
            {
                "match_id": match_id,
                "places": places,
                "scores": scores,
                "outcomes": outcomes,
                "reason": reason,
                "team_won": team_won,
            },
        )
        conn.execute(
            _INSERT_REPLAY,
            {"match_id": match_id, "data": stored_replay, "sha256": replay_sha256},
        )
        log_rows = [
            {
                "match_id": match_id,
                "seat": seat,
                "bot_id": seat_bots[seat],
                "data": data,
                "bytes": size,
                "truncated": truncated,
            }
            for seat, data, size, truncated in stored_logs
            if 0 <= seat < len(seat_bots)
        ]
        if log_rows:
            conn.execute(sa.insert(bot_logs), log_rows)
        conn.execute(_FINISH_MATCH, {"match_id": match_id, "now": now})
    return Recording(
        match_id=match_id, already_recorded=False, changes=changes, scenario=scenario_change
    )


def _check_shape(
    seats: Sequence[int], places: Sequence[int], scores: Sequence[int], outcomes: Sequence[str]
) -> None:
    n = len(seats)
    if not len(places) == len(scores) == len(outcomes) == n:
        raise InvalidInput(
            f"result: the match has {n} seats but places/scores/outcomes have "
            f"{len(places)}/{len(scores)}/{len(outcomes)}"
        )
    if any(not 1 <= p <= n for p in places):
        raise InvalidInput(f"result: places must be between 1 and {n}, got {list(places)}")


def _bots_of_seats(conn: Connection, seats: Sequence[int]) -> list[int]:
    rows = conn.execute(_BOTS_OF_VERSIONS, {"version_ids": sorted(set(seats))}).all()
    bot_of_version = {row.id: row.bot_id for row in rows}
    missing = sorted(set(seats) - bot_of_version.keys())
    if missing:
        raise NotFound(f"no bot versions {missing}")
    return [bot_of_version[s] for s in seats]


def _apply_ratings(
    conn: Connection,
    match_id: int,
    ladder_id: int,
    seat_bots: Sequence[int],
    places: Sequence[int],
    now: datetime,
) -> tuple[RatingChange, ...]:
    bot_ids = sorted(set(seat_bots))
    ensure_entries(conn, ladder_id, bot_ids, now)
    entries = {
        row.bot_id: row
        for row in conn.execute(_LOCK_ENTRIES, {"ladder_id": ladder_id, "bot_ids": bot_ids})
    }
    seat_deltas = elo.rating_deltas(
        [entries[b].rating for b in seat_bots],
        places,
        [elo.k_factor(entries[b].games) for b in seat_bots],
    )
    delta_of: defaultdict[int, float] = defaultdict(float)
    best_place: dict[int, int] = {}
    for bot_id, delta, place in zip(seat_bots, seat_deltas, places, strict=True):
        delta_of[bot_id] += delta
        best_place[bot_id] = min(place, best_place.get(bot_id, place))
    # A first place is a win only if no other bot shares it: a 0-0 game both "won" (places
    # [1, 1]) is a draw for each, as the rating already counts it (elo.pair_score 0.5).
    first = {bot_id for bot_id in bot_ids if best_place[bot_id] == 1}
    won = {bot_id: bot_id in first and len(first) == 1 for bot_id in bot_ids}
    drew = {bot_id: bot_id in first and len(first) > 1 for bot_id in bot_ids}
    return _apply_bot_changes(conn, match_id, ladder_id, entries, delta_of, won, now, drew)


def _apply_bot_changes(
    conn: Connection,
    match_id: int,
    ladder_id: int,
    entries: Mapping[int, Any],
    delta_of: Mapping[int, float],
    won: Mapping[int, bool],
    now: datetime,
    drew: Mapping[int, bool] | None = None,
) -> tuple[RatingChange, ...]:
    """Move each bot's rating by its delta, count the game (and the win or shared first place,
    `drew`), write the history.

    The caller holds the bots' ladder_entries rows locked; `won` names every bot, in lock order.
    """
    changes = [
        RatingChange(
            bot_id=bot_id,
            before=float(entries[bot_id].rating),
            after=float(entries[bot_id].rating) + delta_of[bot_id],
            delta=delta_of[bot_id],
        )
        for bot_id in won
    ]
    # one executemany each (psycopg pipelines it: one round trip for all the bots)
    conn.execute(
        _UPDATE_ENTRY,
        [
            {
                "entry_ladder_id": ladder_id,
                "entry_bot_id": c.bot_id,
                "new_rating": c.after,
                "won": 1 if won[c.bot_id] else 0,
                "drew": 1 if drew and drew.get(c.bot_id) else 0,
                "now": now,
            }
            for c in changes
        ],
    )
    conn.execute(
        _INSERT_HISTORY,
        [
            {
                "match_id": match_id,
                "bot_id": c.bot_id,
                "ladder_id": ladder_id,
                "before": c.before,
                "after": c.after,
                "delta": c.delta,
            }
            for c in changes
        ],
    )
    return tuple(changes)


def _ensure_scenario(conn: Connection, ladder_id: int, info: ScenarioInfo, now: datetime) -> None:
    """Create the scenario's row at the initial rating unless it exists."""
    row = {
        "ladder_id": ladder_id,
        "key": info.scenario.key,
        "description": info.description,
        "rating": coop_rating.INITIAL_SCENARIO_RATING,
        "games": 0,
        "wins": 0,
        "created_at": now,
        "updated_at": now,
    }
    if conn.dialect.name == "postgresql":
        conn.execute(postgresql.insert(scenarios).values(row).on_conflict_do_nothing())
    elif conn.dialect.name == "sqlite":
        conn.execute(sqlite.insert(scenarios).values(row).on_conflict_do_nothing())
    else:  # pragma: no cover - only the two supported databases
        raise NotImplementedError(conn.dialect.name)


def _apply_coop_ratings(
    conn: Connection,
    match_id: int,
    ladder_id: int,
    info: ScenarioInfo,
    seat_bots: Sequence[int],
    team_won: bool,
    now: datetime,
) -> tuple[tuple[RatingChange, ...], ScenarioChange]:
    # lock order: (match, already held) scenario, then the bots' rows in bot id order
    lock_scenario = (
        sa.select(scenarios.c.id, scenarios.c.rating, scenarios.c.games)
        .where(scenarios.c.ladder_id == ladder_id, scenarios.c.key == info.scenario.key)
        .with_for_update()
    )
    scenario = conn.execute(lock_scenario).one_or_none()
    if scenario is None:
        # a scenario's first match; a racing first match inserts it too: one insert wins
        _ensure_scenario(conn, ladder_id, info, now)
        scenario = conn.execute(lock_scenario).one()
    bot_ids = sorted(set(seat_bots))
    ensure_entries(conn, ladder_id, bot_ids, now)
    entries = {
        row.bot_id: row
        for row in conn.execute(_LOCK_ENTRIES, {"ladder_id": ladder_id, "bot_ids": bot_ids})
    }
    # The team is its seats (a bot in two seats weighs twice in the mean). All seats share one
    # surprise S - E, so a bot's seats have equal deltas: it changes once, by its own K, and
    # the match counts as one game for it.
    deltas = coop_rating.coop_deltas(
        [float(entries[b].rating) for b in seat_bots],
        [elo.k_factor(entries[b].games) for b in seat_bots],
        float(scenario.rating),
        coop_rating.scenario_k_factor(scenario.games),
        team_won,
    )
    delta_of = dict(zip(reversed(seat_bots), reversed(deltas.members), strict=True))
    changes = _apply_bot_changes(
        conn, match_id, ladder_id, entries, delta_of, dict.fromkeys(bot_ids, team_won), now
    )
    scenario_before = float(scenario.rating)
    scenario_change = ScenarioChange(
        scenario_id=int(scenario.id),
        key=info.scenario.key,
        team_won=team_won,
        team_strength=deltas.team_strength,
        expected=deltas.expected,
        before=scenario_before,
        after=scenario_before + deltas.scenario,
        delta=deltas.scenario,
    )
    conn.execute(
        sa.update(scenarios)
        .where(scenarios.c.id == scenario_change.scenario_id)
        .values(
            rating=scenario_change.after,
            games=scenarios.c.games + 1,
            wins=scenarios.c.wins + (1 if team_won else 0),
            updated_at=now,
        )
    )
    conn.execute(
        sa.insert(scenario_rating_history).values(
            match_id=match_id,
            scenario_id=scenario_change.scenario_id,
            before=scenario_change.before,
            after=scenario_change.after,
            delta=scenario_change.delta,
        )
    )
    return changes, scenario_change
