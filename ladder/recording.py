"""Recording a finished match: result, replay and rating changes in one transaction.

:func:`record_result` is what a worker calls when the referee is done. It is idempotent: the
match row is locked first and a match already ``done`` is left alone, so a retried task (Celery
runs tasks at least once) cannot count a match twice, even when two retries race.

Lost rating updates are prevented by locking. On PostgreSQL the match row and then the ladder
rows of the seated bots are locked with ``SELECT ... FOR UPDATE``, always in bot id order, so
two recordings that share bots wait for each other instead of deadlocking. SQLite allows one
writer at a time; the transaction starts with ``BEGIN IMMEDIATE`` so it waits its turn up front.
"""

from __future__ import annotations

import gzip
import hashlib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

import sqlalchemy as sa
from sqlalchemy import Connection, Engine

from ladder import elo
from ladder.db import write_transaction
from ladder.errors import InvalidInput, NotFound
from ladder.ladders import ensure_entries
from ladder.schema import (
    bot_versions,
    ladder_entries,
    matches,
    rating_history,
    replays,
    results,
)

__all__ = ["GameResult", "RatingChange", "Recording", "compress_replay", "record_result"]


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
class Recording:
    """What :func:`record_result` did.

    `already_recorded` is True when the match was done before this call: nothing was written
    and `changes` is empty.
    """

    match_id: int
    already_recorded: bool
    changes: tuple[RatingChange, ...] = ()


def compress_replay(replay: bytes) -> bytes:
    """The stored form of a replay: gzip, with a zero timestamp so equal replays compress equal."""
    return gzip.compress(replay, mtime=0)


def record_result(
    engine: Engine,
    match_id: int,
    result: GameResult,
    replay: bytes,
    reason: str,
    *,
    now: datetime | None = None,
) -> Recording:
    """Record match `match_id`'s result, its replay and the rating changes, atomically.

    `replay` is the replay as the referee wrote it (stored gzip-compressed, with the SHA-256
    of these bytes); `reason` says why the match ended ("finished", "forfeit: seat 2 timed
    out", ...). The match may be queued, running or failed (a late result is still a result);
    if it is already done, nothing changes and the returned Recording says so.

    Raises NotFound for an unknown match and InvalidInput if the result does not fit its seats.
    """
    now = now or datetime.now(UTC)
    places = [int(p) for p in result.places]
    scores = [int(s) for s in result.scores]
    outcomes = [str(o) for o in result.outcomes]
    with write_transaction(engine) as conn:
        match = conn.execute(
            sa.select(matches.c.ladder_id, matches.c.status, matches.c.seats)
            .where(matches.c.id == match_id)
            .with_for_update()
        ).one_or_none()
        if match is None:
            raise NotFound(f"no match {match_id}")
        if match.status == "done":
            return Recording(match_id=match_id, already_recorded=True)
        seats = [int(s) for s in match.seats]
        _check_shape(seats, places, scores, outcomes)
        seat_bots = _bots_of_seats(conn, seats)
        changes = _apply_ratings(conn, match_id, match.ladder_id, seat_bots, places, now)
        conn.execute(
            sa.insert(results).values(
                match_id=match_id, places=places, scores=scores, outcomes=outcomes, reason=reason
            )
        )
        conn.execute(
            sa.insert(replays).values(
                match_id=match_id,
                data=compress_replay(replay),
                sha256=hashlib.sha256(replay).hexdigest(),
            )
        )
        conn.execute(
            sa.update(matches)
            .where(matches.c.id == match_id)
            .values(
                status="done",
                finished_at=now,
                lease_owner=None,
                lease_expires_at=None,
                error=None,
            )
        )
    return Recording(match_id=match_id, already_recorded=False, changes=changes)


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
    rows = conn.execute(
        sa.select(bot_versions.c.id, bot_versions.c.bot_id).where(bot_versions.c.id.in_(seats))
    ).all()
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
        for row in conn.execute(
            sa.select(ladder_entries.c.bot_id, ladder_entries.c.rating, ladder_entries.c.games)
            .where(ladder_entries.c.ladder_id == ladder_id, ladder_entries.c.bot_id.in_(bot_ids))
            .order_by(ladder_entries.c.bot_id)
            .with_for_update()
        )
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
    changes = []
    for bot_id in bot_ids:
        before = float(entries[bot_id].rating)
        change = RatingChange(
            bot_id=bot_id, before=before, after=before + delta_of[bot_id], delta=delta_of[bot_id]
        )
        changes.append(change)
        conn.execute(
            sa.update(ladder_entries)
            .where(ladder_entries.c.ladder_id == ladder_id, ladder_entries.c.bot_id == bot_id)
            .values(
                rating=change.after,
                games=ladder_entries.c.games + 1,
                wins=ladder_entries.c.wins + (1 if best_place[bot_id] == 1 else 0),
                updated_at=now,
            )
        )
    conn.execute(
        sa.insert(rating_history),
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
