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
import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final, Protocol

import sqlalchemy as sa
from sqlalchemy import Connection, Engine
from sqlalchemy.dialects import postgresql, sqlite

from ladder import coop_rating, elo, skill
from ladder.db import write_transaction
from ladder.errors import InvalidInput, NotFound
from ladder.ladders import ensure_entries
from ladder.rating_policy import POLICY_COLUMNS, RatingPolicy, policy_of
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
    and `changes` is empty. `scenario` is set for a match of a cooperative ladder. `rated` is
    False for a match played at another engine version than the ladder's now (claimed before
    `arena ladder upgrade` moved it): its result and replay are kept, no rating moves.
    """

    match_id: int
    already_recorded: bool
    changes: tuple[RatingChange, ...] = ()
    scenario: ScenarioChange | None = None
    rated: bool = True


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
        matches.c.engine_version,
        ladders.c.kind,
        ladders.c.game,
        ladders.c.players,
        # the ladder's rating policy, read with the match (no extra statement per recording)
        *(ladders.c[name] for name in POLICY_COLUMNS),
    )
    .join(ladders, ladders.c.id == matches.c.ladder_id)
    .where(matches.c.id == sa.bindparam("match_id"))
    # lock the match row only: the ladder's row is read by every recording on it
    .with_for_update(of=matches)
)
# The ladder's engine version, read under a share lock: `upgrade_ladder` holds the row for update
# while it closes the rating period, so a recording rates in the period its match was played in
# (concurrent recordings share the lock; only an upgrade waits for them, and they for it).
_LADDER_VERSION = (
    sa.select(ladders.c.engine_version)
    .where(ladders.c.id == sa.bindparam("ladder_id"))
    .with_for_update(read=True)
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
        information=ladder_entries.c.information + sa.bindparam("information", type_=sa.Float),
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
        # ratings never mix engine versions (RATINGS.md, "Engine versions"); null: claimed
        # before migration 0008, or never claimed
        version = conn.execute(_LADDER_VERSION, {"ladder_id": match.ladder_id}).scalar_one()
        rated = match.engine_version in (None, version)
        writes: list[_EntryWrite] = []
        policy = policy_of(match)
        if match.kind == "coop" and team_won is None:
            raise InvalidInput("result: a cooperative match needs team_won (True or False)")
        if rated and match.kind == "coop":
            assert team_won is not None
            info = match_scenario(match.game, match.players, match.config)
            writes, scenario_change = _apply_coop_ratings(
                conn, match_id, match.ladder_id, info, seat_bots, team_won, policy, now
            )
        elif rated:
            entries = _lock_entries(conn, match.ladder_id, seat_bots, policy, now)
            writes = _apply_ratings(seat_bots, places, entries, policy)
        result_row = {
            "match_id": match_id,
            "places": places,
            "scores": scores,
            "outcomes": outcomes,
            "reason": reason,
            "team_won": team_won,
        }
        replay_row = {"match_id": match_id, "data": stored_replay, "sha256": replay_sha256}
        if conn.dialect.name == "postgresql":
            _finish_postgresql(conn, match_id, match.ladder_id, writes, result_row, replay_row, now)
        else:
            _write_entries(conn, match_id, match.ladder_id, writes, now)
            conn.execute(_INSERT_RESULT, result_row)
            conn.execute(_INSERT_REPLAY, replay_row)
            conn.execute(_FINISH_MATCH, {"match_id": match_id, "now": now})
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
    return Recording(
        match_id=match_id,
        already_recorded=False,
        changes=tuple(w.change for w in writes),
        scenario=scenario_change,
        rated=rated,
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


@dataclass(frozen=True, slots=True)
class _EntryWrite:
    """One bot's ladder_entries change: its rating change, whether it won or shared first, and
    the Fisher information the game adds (``skill.game_information``, at the ratings before it)."""

    change: RatingChange
    won: bool
    drew: bool = False
    information: float = 0.0


def _lock_entries(
    conn: Connection, ladder_id: int, seat_bots: Sequence[int], policy: RatingPolicy, now: datetime
) -> dict[int, Any]:
    """Put the seated bots on the ladder if new, lock their rows in bot id order, read them."""
    bot_ids = sorted(set(seat_bots))
    ensure_entries(conn, ladder_id, bot_ids, now, initial_rating=policy.initial_rating)
    return {
        row.bot_id: row
        for row in conn.execute(_LOCK_ENTRIES, {"ladder_id": ladder_id, "bot_ids": bot_ids})
    }


def _apply_ratings(
    seat_bots: Sequence[int], places: Sequence[int], entries: Mapping[int, Any], policy: RatingPolicy
) -> list[_EntryWrite]:
    """Free-for-all: each bot's Elo change from the places (K from the ladder's `policy`), with
    its win or shared first."""
    bot_ids = sorted(set(seat_bots))
    seat_ratings = [float(entries[b].rating) for b in seat_bots]
    seat_deltas = elo.rating_deltas(
        seat_ratings,
        places,
        [policy.k_factor(entries[b].games) for b in seat_bots],
    )
    information = skill.free_for_all_information(seat_bots, seat_ratings)
    delta_of: defaultdict[int, float] = defaultdict(float)
    best_place: dict[int, int] = {}
    for bot_id, delta, place in zip(seat_bots, seat_deltas, places, strict=True):
        delta_of[bot_id] += delta
        best_place[bot_id] = min(place, best_place.get(bot_id, place))
    # A first place is a win only if no other bot shares it: a 0-0 game both "won" (places
    # [1, 1]) is a draw for each, as the rating already counts it (elo.pair_score 0.5).
    first = {bot_id for bot_id in bot_ids if best_place[bot_id] == 1}
    return [
        _EntryWrite(
            _rating_change(entries, bot_id, delta_of[bot_id]),
            won=bot_id in first and len(first) == 1,
            drew=bot_id in first and len(first) > 1,
            information=information[bot_id],
        )
        for bot_id in bot_ids
    ]


def _rating_change(entries: Mapping[int, Any], bot_id: int, delta: float) -> RatingChange:
    before = float(entries[bot_id].rating)
    return RatingChange(bot_id=bot_id, before=before, after=before + delta, delta=delta)


def _write_entries(
    conn: Connection, match_id: int, ladder_id: int, writes: Sequence[_EntryWrite], now: datetime
) -> None:
    """Move each bot's rating, count the game (and the win or shared first), write the history.

    The caller holds the bots' ladder_entries rows locked; `writes` are in lock order (none: a
    match recorded unrated, RATINGS.md "Engine versions").
    """
    if not writes:
        return
    # one executemany each (psycopg pipelines it: one round trip for all the bots)
    conn.execute(
        _UPDATE_ENTRY,
        [
            {
                "entry_ladder_id": ladder_id,
                "entry_bot_id": w.change.bot_id,
                "new_rating": w.change.after,
                "won": 1 if w.won else 0,
                "drew": 1 if w.drew else 0,
                "information": w.information,
                "now": now,
            }
            for w in writes
        ],
    )
    conn.execute(
        _INSERT_HISTORY,
        [
            {
                "match_id": match_id,
                "bot_id": w.change.bot_id,
                "ladder_id": ladder_id,
                "before": w.change.before,
                "after": w.change.after,
                "delta": w.change.delta,
            }
            for w in writes
        ],
    )


# PostgreSQL: every write of a recording after the locks in one statement (data-modifying CTEs;
# the bots' rows come as arrays, one UPDATE and one INSERT for all of them). The rows written
# are those of _write_entries + _INSERT_RESULT + _INSERT_REPLAY + _FINISH_MATCH, which the
# other databases run one by one; the rows were locked by the statements before it, in the same
# order as ever. Four statements and round trips fewer: about half of record_result's client
# CPU went to SQLAlchemy's and psycopg's per-statement work (issue 14's bench).
_FINISH_POSTGRESQL = sa.text(
    """
    WITH entries AS (
        UPDATE ladder_entries AS e
        SET rating = v.after, games = e.games + 1, wins = e.wins + v.won,
            draws = e.draws + v.drew, information = e.information + v.info, updated_at = :now
        FROM unnest(CAST(:bot_ids AS integer[]), CAST(:afters AS double precision[]),
                    CAST(:wons AS integer[]), CAST(:drews AS integer[]),
                    CAST(:infos AS double precision[])) AS v(bot_id, after, won, drew, info)
        WHERE e.ladder_id = :ladder_id AND e.bot_id = v.bot_id
        RETURNING e.bot_id
    ), history AS (
        INSERT INTO rating_history (match_id, bot_id, ladder_id, "before", "after", delta)
        SELECT :match_id, h.bot_id, :ladder_id, h.b, h.a, h.d
        FROM unnest(CAST(:bot_ids AS integer[]), CAST(:befores AS double precision[]),
                    CAST(:afters AS double precision[]), CAST(:deltas AS double precision[]))
             WITH ORDINALITY AS h(bot_id, b, a, d, n)
        ORDER BY h.n
        RETURNING id
    ), result AS (
        INSERT INTO results (match_id, places, scores, outcomes, reason, team_won)
        VALUES (:match_id, CAST(:places AS json), CAST(:scores AS json), CAST(:outcomes AS json),
                :reason, CAST(:team_won AS boolean))
        RETURNING match_id
    ), replay AS (
        INSERT INTO replays (match_id, data, sha256) VALUES (:match_id, :data, :sha256)
        RETURNING match_id
    )
    UPDATE matches
    SET status = 'done', finished_at = :now, lease_owner = NULL, lease_expires_at = NULL,
        error = NULL
    WHERE id = :match_id
    """
)


def _finish_postgresql(
    conn: Connection,
    match_id: int,
    ladder_id: int,
    writes: Sequence[_EntryWrite],
    result_row: Mapping[str, Any],
    replay_row: Mapping[str, Any],
    now: datetime,
) -> None:
    """The bots' rating rows and history, the result, the replay and the match's end, at once."""
    changes = [w.change for w in writes]
    conn.execute(
        _FINISH_POSTGRESQL,
        {
            "match_id": match_id,
            "ladder_id": ladder_id,
            "now": now,
            "bot_ids": [c.bot_id for c in changes],
            "befores": [c.before for c in changes],
            "afters": [c.after for c in changes],
            "deltas": [c.delta for c in changes],
            "wons": [1 if w.won else 0 for w in writes],
            "drews": [1 if w.drew else 0 for w in writes],
            "infos": [w.information for w in writes],
            # the JSON columns' text, as SQLAlchemy's JSON type writes it
            "places": json.dumps(result_row["places"]),
            "scores": json.dumps(result_row["scores"]),
            "outcomes": json.dumps(result_row["outcomes"]),
            "reason": result_row["reason"],
            "team_won": result_row["team_won"],
            "data": replay_row["data"],
            "sha256": replay_row["sha256"],
        },
    )


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
    policy: RatingPolicy,
    now: datetime,
) -> tuple[list[_EntryWrite], ScenarioChange]:
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
    entries = _lock_entries(conn, ladder_id, seat_bots, policy, now)
    # The team is its seats (a bot in two seats weighs twice in the mean). All seats share one
    # surprise S - E, so a bot's seats have equal deltas: it changes once, by its own K, and
    # the match counts as one game for it.
    deltas = coop_rating.coop_deltas(
        [float(entries[b].rating) for b in seat_bots],
        [policy.k_factor(entries[b].games) for b in seat_bots],
        float(scenario.rating),
        coop_rating.scenario_k_factor(scenario.games),
        team_won,
    )
    delta_of = dict(zip(reversed(seat_bots), reversed(deltas.members), strict=True))
    # each bot played one game against the scenario, at its own rating and the scenario's then
    writes = [
        _EntryWrite(
            _rating_change(entries, b, delta_of[b]),
            won=team_won,
            information=skill.game_information(float(entries[b].rating), float(scenario.rating)),
        )
        for b in bot_ids
    ]
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
    return writes, scenario_change
