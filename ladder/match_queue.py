"""The queue of matches to play, with leases.

A match is ``queued`` until a worker claims it. Claiming moves it to ``running`` exactly once
(a conditional UPDATE; whoever changes the row wins) and gives the worker a lease: the worker
renews the lease while the match runs and records the result before it expires. A worker that
dies stops renewing; the sweeper (:func:`requeue_expired`, run periodically) then puts the match
back in the queue. After :data:`MAX_ATTEMPTS` expired leases the match is marked ``failed``
instead, so a match that kills its workers cannot loop forever.

::

    queued --claim_match--> running --record_result--> done
       ^                       |
       +---lease expired-------+---lease expired MAX_ATTEMPTS times---> failed
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy import Engine

from ladder.db import write_transaction
from ladder.errors import InvalidInput, NotFound
from ladder.scenarios import match_scenario
from ladder.schema import bot_versions, ladders, matches

__all__ = [
    "MAX_ATTEMPTS",
    "Sweep",
    "claim_match",
    "enqueue_match",
    "renew_lease",
    "requeue_expired",
]

#: expired leases after which a match is given up (status "failed")
MAX_ATTEMPTS: Final = 2


@dataclass(frozen=True, slots=True)
class Sweep:
    """What one :func:`requeue_expired` pass did: matches put back in the queue, and given up."""

    requeued: tuple[int, ...]
    failed: tuple[int, ...]


def enqueue_match(
    engine: Engine,
    ladder_id: int,
    seats: Sequence[int],
    seed: int,
    *,
    config: Mapping[str, Any] | None = None,
    now: datetime | None = None,
) -> int:
    """Queue a match on ladder `ladder_id` and return its id.

    `seats` are bot_versions ids in seat order; there must be as many as the ladder's players.
    `config` is the game config to play with (a JSON object; None, the default, means the
    game's default config for the ladder's player count); on a cooperative ladder it decides
    the scenario the match is rated against.
    Raises NotFound for an unknown ladder or bot version, InvalidInput for a wrong seat count,
    a config that is not an object or (cooperative ladder) names no valid scenario.
    """
    seat_list = [int(s) for s in seats]
    if config is not None and not isinstance(config, Mapping):
        raise InvalidInput("config: a JSON object")
    # SQL NULL, not JSON 'null', for "the default config"
    stored_config: Any = sa.null() if config is None else dict(config)
    # read-then-write: on SQLite take the write lock up front (a deferred transaction that
    # read first fails at once with "database is locked" when another process writes)
    with write_transaction(engine) as conn:
        ladder = conn.execute(
            sa.select(ladders.c.players, ladders.c.game, ladders.c.kind).where(ladders.c.id == ladder_id)
        ).one_or_none()
        if ladder is None:
            raise NotFound(f"no ladder {ladder_id}")
        players = ladder.players
        if ladder.kind == "coop":
            # refuse now a config that names no scenario: recording it later would fail
            match_scenario(ladder.game, players, config)
        if len(seat_list) != players:
            raise InvalidInput(f"seats: ladder {ladder_id} seats {players}, got {len(seat_list)}")
        known = set(
            conn.execute(
                sa.select(bot_versions.c.id).where(bot_versions.c.id.in_(seat_list))
            ).scalars()
        )
        missing = sorted(set(seat_list) - known)
        if missing:
            raise NotFound(f"no bot versions {missing}")
        match_id: int = conn.execute(
            sa.insert(matches)
            .values(
                ladder_id=ladder_id,
                status="queued",
                seed=seed,
                seats=seat_list,
                config=stored_config,
                attempts=0,
                created_at=now or datetime.now(UTC),
            )
            .returning(matches.c.id)
        ).scalar_one()
    return match_id


def claim_match(
    engine: Engine,
    match_id: int,
    worker_id: str,
    lease_seconds: float,
    *,
    now: datetime | None = None,
) -> bool:
    """Move match `match_id` from queued to running for `worker_id`; True if this call did.

    Exactly one of any number of concurrent claimers gets True. The lease runs
    `lease_seconds` from `now`.
    """
    now = now or datetime.now(UTC)
    with write_transaction(engine) as conn:
        # the match is played at its ladder's engine version as of the claim (read under a share
        # lock: an `upgrade_ladder` in progress finishes first, so the claim sees its version)
        version = conn.execute(
            sa.select(ladders.c.engine_version)
            .join(matches, matches.c.ladder_id == ladders.c.id)
            .where(matches.c.id == match_id)
            .with_for_update(read=True, of=ladders)
        ).scalar_one_or_none()
        result = conn.execute(
            sa.update(matches)
            .where(matches.c.id == match_id, matches.c.status == "queued")
            .values(
                status="running",
                lease_owner=worker_id,
                lease_expires_at=now + timedelta(seconds=lease_seconds),
                started_at=now,
                engine_version=version,
            )
        )
        return result.rowcount == 1


def renew_lease(
    engine: Engine,
    match_id: int,
    worker_id: str,
    lease_seconds: float,
    *,
    now: datetime | None = None,
) -> bool:
    """Extend `worker_id`'s lease on running match `match_id` to `now + lease_seconds`.

    False if the worker no longer holds the match (it was swept, or finished): the worker
    should then stop playing it.
    """
    now = now or datetime.now(UTC)
    with write_transaction(engine) as conn:
        result = conn.execute(
            sa.update(matches)
            .where(
                matches.c.id == match_id,
                matches.c.status == "running",
                matches.c.lease_owner == worker_id,
            )
            .values(lease_expires_at=now + timedelta(seconds=lease_seconds))
        )
        return result.rowcount == 1


def requeue_expired(engine: Engine, now: datetime | None = None) -> Sweep:
    """Requeue running matches whose lease expired by `now`; fail those out of attempts.

    Each expiry counts one attempt. The caller re-dispatches the requeued match ids.
    """
    now = now or datetime.now(UTC)
    expired = sa.and_(matches.c.status == "running", matches.c.lease_expires_at <= now)
    released = {"lease_owner": None, "lease_expires_at": None, "attempts": matches.c.attempts + 1}
    with write_transaction(engine) as conn:
        failed = conn.execute(
            sa.update(matches)
            .where(expired, matches.c.attempts + 1 >= MAX_ATTEMPTS)
            .values(
                status="failed",
                finished_at=now,
                error=f"lease expired {MAX_ATTEMPTS} times; giving up",
                **released,
            )
            .returning(matches.c.id)
        ).scalars()
        failed_ids = tuple(sorted(failed))
        requeued = conn.execute(
            sa.update(matches)
            .where(expired)
            .values(status="queued", **released)
            .returning(matches.c.id)
        ).scalars()
        requeued_ids = tuple(sorted(requeued))
    return Sweep(requeued=requeued_ids, failed=failed_ids)
