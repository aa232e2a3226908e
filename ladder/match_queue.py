"""The queue of matches to play, with leases.

A match is ``queued`` until a worker claims it. Claiming moves it to ``running`` exactly once
(a conditional UPDATE; whoever changes the row wins) and gives the worker a lease: the worker
renews the lease while the match runs and records the result before it expires. A worker that
dies stops renewing; the sweeper (:func:`requeue_expired`, run periodically) then puts the match
back in the queue, to be played again from the start with its own seed.

An expired lease is a **platform fault** (a dead worker or machine, a lease lost to a pause, a
database outage longer than the worker waits): never the bots' doing (their crashes and timeouts
are outcomes of the game, recorded with its result) and never the match's. ``matches.attempts``
counts them. A match is played again through any number of them up to the budget
(:func:`platform_fault_budget`, ``$ARENA_PLATFORM_FAULTS``, :data:`DEFAULT_PLATFORM_FAULTS`); the
fault that reaches the budget **parks** it (status ``parked``, the reason in ``error``): no
result, no rating change, nobody charged, left for an operator (``arena db parked``, ``arena db
requeue ID``), so a match that keeps killing its workers cannot loop forever. Only the match's
own failures (a bad match, a time limit, an executor that raised) are ``failed``.

::

    queued --claim_match--> running --record_result--> done
       ^                       |
       +---lease expired-------+---the budget-th platform fault---> parked --requeue_parked--> queued
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy import Connection, Engine

from ladder.db import write_transaction
from ladder.errors import InvalidInput, NotFound
from ladder.scenarios import match_scenario
from ladder.schema import bot_versions, ladders, match_seats, matches
from referee import settings

__all__ = [
    "DEFAULT_PLATFORM_FAULTS",
    "PLATFORM_FAULTS_ENV",
    "ParkedMatch",
    "Sweep",
    "claim_match",
    "enqueue_match",
    "parked_matches",
    "parked_reason",
    "platform_fault_budget",
    "renew_lease",
    "requeue_expired",
    "requeue_lost",
    "requeue_parked",
]

PLATFORM_FAULTS_ENV: Final = "ARENA_PLATFORM_FAULTS"
#: platform faults (expired leases) that park a match: it is played again after each of the
#: first nine. A killed worker costs a match one; a match hit by ten in a row is taken to be
#: the cause (it kills its workers) rather than their victim.
DEFAULT_PLATFORM_FAULTS: Final = 10


def platform_fault_budget() -> int:
    """``$ARENA_PLATFORM_FAULTS`` (at least 1), else :data:`DEFAULT_PLATFORM_FAULTS`."""
    return settings.current().platform_faults


def parked_reason(faults: int) -> str:
    """The ``error`` of a match parked after `faults` platform faults."""
    return (
        f"parked after {faults} platform faults (its workers died or lost its lease {faults} "
        "times; not the bots' fault, nothing recorded or rated): an operator requeues it with "
        "`arena db requeue ID`"
    )


@dataclass(frozen=True, slots=True)
class Sweep:
    """What one :func:`requeue_expired` pass did: matches put back in the queue, and parked."""

    requeued: tuple[int, ...]
    parked: tuple[int, ...]


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
        return insert_match(
            conn, ladder_id=ladder_id, seed=seed, seats=seat_list, config=stored_config,
            created_at=now or datetime.now(UTC),
        )


def insert_match(
    conn: Connection, *, ladder_id: int, seed: int, seats: Sequence[int], config: Any, created_at: datetime
) -> int:
    """Write one queued match and its seats' rows (``match_seats``) in the caller's transaction;
    its id. Every path that creates a match goes through here, so the two never disagree.

    `config` is stored as given (``sa.null()`` for the game's default config)."""
    seat_list = [int(s) for s in seats]
    match_id: int = conn.execute(
        sa.insert(matches)
        .values(
            ladder_id=ladder_id,
            status="queued",
            seed=seed,
            seats=seat_list,
            config=config,
            attempts=0,
            created_at=created_at,
        )
        .returning(matches.c.id)
    ).scalar_one()
    conn.execute(
        sa.insert(match_seats),
        [{"match_id": match_id, "seat": seat, "version_id": v} for seat, v in enumerate(seat_list)],
    )
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


def requeue_expired(engine: Engine, now: datetime | None = None, *, budget: int | None = None) -> Sweep:
    """Requeue running matches whose lease expired by `now`; park those whose platform faults
    reach `budget` (default :func:`platform_fault_budget`).

    Each expiry is one platform fault (``attempts`` + 1). The caller re-dispatches the requeued
    match ids, ahead of the matches not yet started (``workers/README.md``, "Platform faults").
    """
    now = now or datetime.now(UTC)
    expired = sa.and_(matches.c.status == "running", matches.c.lease_expires_at <= now)
    return _release(engine, expired, now, budget)


def requeue_lost(
    engine: Engine, match_id: int, worker_id: str, *, now: datetime | None = None,
    budget: int | None = None,
) -> Sweep:
    """`worker_id` is known to be dead (its process exited; a Celery worker saw its pool child
    go): requeue the running match it holds now, without waiting for its lease to run out. The
    same platform fault as an expired lease (or the one that parks it). Nothing happens unless
    `worker_id` still holds `match_id`."""
    now = now or datetime.now(UTC)
    held = sa.and_(
        matches.c.id == match_id, matches.c.status == "running", matches.c.lease_owner == worker_id
    )
    return _release(engine, held, now, budget)


def _release(engine: Engine, which: sa.ColumnElement[bool], now: datetime, budget: int | None) -> Sweep:
    budget = platform_fault_budget() if budget is None else budget
    released = {"lease_owner": None, "lease_expires_at": None, "attempts": matches.c.attempts + 1}
    with write_transaction(engine) as conn:
        parked = conn.execute(
            sa.update(matches)
            .where(which, matches.c.attempts + 1 >= budget)
            .values(status="parked", finished_at=now, error=parked_reason(budget), **released)
            .returning(matches.c.id)
        ).scalars()
        parked_ids = tuple(sorted(parked))
        requeued = conn.execute(
            sa.update(matches)
            .where(which)
            .values(status="queued", **released)
            .returning(matches.c.id)
        ).scalars()
        requeued_ids = tuple(sorted(requeued))
    return Sweep(requeued=requeued_ids, parked=parked_ids)


def requeue_parked(engine: Engine, match_id: int) -> bool:
    """Put parked match `match_id` back in the queue with a fresh fault budget (the operator's
    ``arena db requeue``); True if this call did (False: it is not parked). Its seed, seats and
    config are unchanged: it is the same match, played again."""
    with write_transaction(engine) as conn:
        changed = conn.execute(
            sa.update(matches)
            .where(matches.c.id == match_id, matches.c.status == "parked")
            .values(status="queued", attempts=0, error=None, finished_at=None)
        ).rowcount
    return changed == 1


@dataclass(frozen=True, slots=True)
class ParkedMatch:
    """A parked match, as ``arena db parked`` lists it."""

    match_id: int
    ladder_id: int
    seed: int
    faults: int
    error: str


def parked_matches(engine: Engine) -> list[ParkedMatch]:
    """Every parked match, oldest first."""
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(matches.c.id, matches.c.ladder_id, matches.c.seed, matches.c.attempts,
                      matches.c.error)
            .where(matches.c.status == "parked")
            .order_by(matches.c.id)
        ).all()
    return [ParkedMatch(r.id, r.ladder_id, int(r.seed), r.attempts, r.error or "") for r in rows]
