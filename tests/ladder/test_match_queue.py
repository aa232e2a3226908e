"""The match queue: enqueue, claim exactly once, leases, the sweeper."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import Engine

from ladder.errors import InvalidInput, NotFound
from ladder.match_queue import (
    DEFAULT_PLATFORM_FAULTS,
    claim_match,
    enqueue_match,
    parked_matches,
    platform_fault_budget,
    renew_lease,
    requeue_expired,
    requeue_parked,
)
from ladder.recording import record_result
from ladder.schema import matches
from referee.core.game import Result

from .conftest import Roster

T0 = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)


def _match(engine: Engine, match_id: int) -> Any:
    with engine.connect() as conn:
        return conn.execute(sa.select(matches).where(matches.c.id == match_id)).one()


def test_enqueue_validates_seats(engine: Engine, roster: Roster) -> None:
    with pytest.raises(InvalidInput):
        enqueue_match(engine, roster.ladder_id, roster.version_ids[:3], seed=1)
    with pytest.raises(NotFound):
        enqueue_match(engine, roster.ladder_id, [roster.version_ids[0], 999], seed=1)
    with pytest.raises(NotFound):
        enqueue_match(engine, 999, roster.version_ids[:2], seed=1)
    match_id = enqueue_match(engine, roster.ladder_id, roster.version_ids[:2], seed=2**62)
    m = _match(engine, match_id)
    assert (m.status, m.seed, m.seats, m.attempts) == (
        "queued",
        2**62,
        list(roster.version_ids[:2]),
        0,
    )


def test_claim_sets_lease_once(engine: Engine, roster: Roster) -> None:
    match_id = enqueue_match(engine, roster.ladder_id, roster.version_ids[:2], seed=1)
    assert claim_match(engine, match_id, "w1", 30, now=T0)
    assert not claim_match(engine, match_id, "w2", 30, now=T0)
    m = _match(engine, match_id)
    assert (m.status, m.lease_owner) == ("running", "w1")
    assert m.lease_expires_at == T0 + timedelta(seconds=30)
    assert m.started_at == T0
    assert not claim_match(engine, 999, "w1", 30)


def test_two_concurrent_claimers_one_wins(engine: Engine, roster: Roster) -> None:
    match_ids = [
        enqueue_match(engine, roster.ladder_id, roster.version_ids[:2], seed=i) for i in range(10)
    ]
    for match_id in match_ids:
        start = threading.Barrier(2)

        def claimer(
            worker: str, match_id: int = match_id, start: threading.Barrier = start
        ) -> bool:
            start.wait()
            return claim_match(engine, match_id, worker, 30)

        with ThreadPoolExecutor(2) as pool:
            won = list(pool.map(claimer, ["w1", "w2"]))
        assert sorted(won) == [False, True]
        assert _match(engine, match_id).lease_owner == ["w1", "w2"][won.index(True)]


def test_renew_lease_only_by_holder(engine: Engine, roster: Roster) -> None:
    match_id = enqueue_match(engine, roster.ladder_id, roster.version_ids[:2], seed=1)
    assert claim_match(engine, match_id, "w1", 30, now=T0)
    assert renew_lease(engine, match_id, "w1", 30, now=T0 + timedelta(seconds=20))
    assert _match(engine, match_id).lease_expires_at == T0 + timedelta(seconds=50)
    assert not renew_lease(engine, match_id, "w2", 30, now=T0)


def test_platform_faults_requeue_the_match_until_the_budget_then_park_it(
    engine: Engine, roster: Roster
) -> None:
    slow = enqueue_match(engine, roster.ladder_id, roster.version_ids[:2], seed=1)
    alive = enqueue_match(engine, roster.ladder_id, roster.version_ids[2:], seed=2)
    assert claim_match(engine, slow, "w1", 30, now=T0)
    assert claim_match(engine, alive, "w2", 300, now=T0)

    assert requeue_expired(engine, now=T0 + timedelta(seconds=29), budget=3).requeued == ()
    sweep = requeue_expired(engine, now=T0 + timedelta(seconds=31), budget=3)
    assert (sweep.requeued, sweep.parked) == ((slow,), ())
    m = _match(engine, slow)
    assert (m.status, m.attempts, m.lease_owner, m.lease_expires_at) == ("queued", 1, None, None)
    assert _match(engine, alive).status == "running"
    # the first worker lost its lease: it can no longer renew it
    assert not renew_lease(engine, slow, "w1", 30, now=T0 + timedelta(seconds=32))

    # a second worker dies too: still a platform fault, still played again (the old rule
    # failed the match here, "lease expired 2 times")
    assert claim_match(engine, slow, "w3", 30, now=T0 + timedelta(seconds=40))
    sweep = requeue_expired(engine, now=T0 + timedelta(seconds=100), budget=3)
    assert (sweep.requeued, sweep.parked) == ((slow,), ())
    assert (_match(engine, slow).status, _match(engine, slow).attempts) == ("queued", 2)

    # the third reaches the budget: parked for an operator, with the reason; never failed
    assert claim_match(engine, slow, "w4", 30, now=T0 + timedelta(seconds=110))
    sweep = requeue_expired(engine, now=T0 + timedelta(seconds=200), budget=3)
    assert (sweep.requeued, sweep.parked) == ((), (slow,))
    m = _match(engine, slow)
    assert (m.status, m.attempts) == ("parked", 3)
    assert m.error and "parked after 3 platform faults" in m.error and "arena db requeue" in m.error
    assert not claim_match(engine, slow, "w5", 30)
    assert [(p.match_id, p.faults, p.seed) for p in parked_matches(engine)] == [(slow, 3, 1)]

    # the operator puts it back: the same match (seed, seats), a fresh budget
    assert requeue_parked(engine, slow) and not requeue_parked(engine, slow)
    assert not requeue_parked(engine, alive)  # only a parked match
    m = _match(engine, slow)
    assert (m.status, m.attempts, m.error, m.seed) == ("queued", 0, None, 1)
    assert claim_match(engine, slow, "w6", 30)
    assert requeue_expired(engine, now=T0 + timedelta(days=1), budget=3).requeued == (alive,)


def test_the_platform_fault_budget_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_PLATFORM_FAULTS", raising=False)
    assert platform_fault_budget() == DEFAULT_PLATFORM_FAULTS == 10
    monkeypatch.setenv("ARENA_PLATFORM_FAULTS", "4")
    assert platform_fault_budget() == 4
    for bad in ("0", "many"):
        monkeypatch.setenv("ARENA_PLATFORM_FAULTS", bad)
        with pytest.raises(ValueError, match="ARENA_PLATFORM_FAULTS"):
            platform_fault_budget()


def test_done_match_is_never_swept(engine: Engine, roster: Roster) -> None:
    match_id = enqueue_match(engine, roster.ladder_id, roster.version_ids[:2], seed=1)
    assert claim_match(engine, match_id, "w1", 30, now=T0)
    record_result(engine, match_id, Result((1, 0), (1, 2), ("a", "b")), b"r", "finished", now=T0)
    assert requeue_expired(engine, now=T0 + timedelta(days=1)) == requeue_expired(engine)
    assert _match(engine, match_id).status == "done"
