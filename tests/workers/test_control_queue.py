"""Control work never starves: `arena beat` runs the sweeper and the matchmaker in its own
process, so a killed worker's match is requeued and re-dispatched within its lease plus one
sweep interval, behind a backlog of 100 queued matches and with every other worker busy.

Real PostgreSQL, Redis, Celery worker processes and `arena beat`. The times come from the
database: a trigger the test installs logs each status change with PostgreSQL's clock.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import datetime

import pytest
import redis
import sqlalchemy as sa
from sqlalchemy import Engine

from ladder.db import create_engine
from ladder.match_queue import enqueue_match
from ladder.schema import matches
from workers.celery_app import MARKER_TTL_S, CeleryDispatcher, make_app
from workers.control import ControlLoop
from workers.worker_processes import stop_worker

from .conftest import REPO, Broker, WorkerFarm, make_ladder

LEASE_S = 3.0
INTERVAL_S = 1.0
#: one sweep pass's own work (a few queries and a Redis write) and waking the beat process on a
#: busy machine; far below the minutes a starved sweeper took (issue 9), and below one match
PASS_SLACK_S = 1.5
BACKLOG = 100
#: random bots pacing themselves: a match lasts far longer than lease + interval + slack, so a
#: sweeper that had to wait for a worker to come free would miss the bound
SLOW_BOT = "builtin:random?think_ms=40"

_TRIGGER = """
CREATE TABLE test_match_transitions (
    match_id integer, old text, new text, attempts integer, at timestamptz);
CREATE FUNCTION test_log_transition() RETURNS trigger AS $$
BEGIN
    IF NEW.status IS DISTINCT FROM OLD.status THEN
        INSERT INTO test_match_transitions VALUES
            (NEW.id, OLD.status, NEW.status, NEW.attempts, clock_timestamp());
    END IF;
    RETURN NEW;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER test_match_transitions AFTER UPDATE ON matches
    FOR EACH ROW EXECUTE FUNCTION test_log_transition();
"""
_DROP = """
DROP TRIGGER IF EXISTS test_match_transitions ON matches;
DROP FUNCTION IF EXISTS test_log_transition();
DROP TABLE IF EXISTS test_match_transitions;
"""


@pytest.fixture
def transitions(pg_url: str) -> Iterator[Engine]:
    """The PostgreSQL engine, with every match status change logged (time: the server's)."""
    engine = create_engine(pg_url)
    with engine.begin() as conn:
        conn.execute(sa.text(_DROP))
        conn.execute(sa.text(_TRIGGER))
    try:
        yield engine
    finally:
        with engine.begin() as conn:
            conn.execute(sa.text(_DROP))
        engine.dispose()


def _transition(engine: Engine, match_id: int, old: str, new: str) -> datetime | None:
    with engine.connect() as conn:
        at: datetime | None = conn.execute(
            sa.text(
                "SELECT min(at) FROM test_match_transitions WHERE match_id = :m AND old = :o AND new = :n"
            ),
            {"m": match_id, "o": old, "n": new},
        ).scalar_one()
    return at


def _running(engine: Engine) -> dict[int, int]:
    """Running match id -> the pid in its lease owner."""
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(matches.c.id, matches.c.lease_owner).where(matches.c.status == "running")
        ).all()
    return {r.id: int(r.lease_owner.rsplit(":", 1)[1]) for r in rows if r.lease_owner}


@pytest.mark.slow
@pytest.mark.integration
def test_a_killed_workers_match_is_redispatched_within_lease_plus_one_interval(
    worker_farm: WorkerFarm, broker: Broker, transitions: Engine
) -> None:
    engine = transitions
    ladder = make_ladder(engine, [SLOW_BOT] * 4)
    dispatcher = CeleryDispatcher(make_app(broker.url, broker.queue), broker.queue, broker.url)
    markers = redis.Redis.from_url(broker.url)
    beat = None
    try:
        for i in range(BACKLOG):  # the backlog: every match queued and its message sent
            pair = [ladder.version_ids[i % 4], ladder.version_ids[(i + 1) % 4]]
            dispatcher.dispatch(enqueue_match(engine, ladder.ladder_id, pair, seed=i))
        worker_farm.env.update(
            {"ARENA_LEASE_SECONDS": str(LEASE_S), "ARENA_BEAT_SECONDS": str(INTERVAL_S)}
        )
        procs = worker_farm.start(2)
        beat = subprocess.Popen(
            [sys.executable, "-m", "referee.cli", "beat", "--loglevel", "WARNING"],
            env={**os.environ, **worker_farm.env}, cwd=REPO,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        # both workers busy with a match each
        deadline = time.monotonic() + 90
        running: dict[int, int] = {}
        while len(running) < 2:
            assert time.monotonic() < deadline, worker_farm.log_text()
            time.sleep(0.1)
            running = _running(engine)
        owner_group = {m: os.getpgid(pid) for m, pid in running.items()}
        killed_match, survivor_match = sorted(running)
        victim = next(p for p in procs if p.pid == owner_group[killed_match])
        before = markers.pttl(f"arena:{broker.queue}:sent:{killed_match}")
        os.killpg(victim.pid, signal.SIGKILL)  # the whole worker: main process and pool child
        victim.wait(timeout=10)
        with engine.connect() as conn:
            row = conn.execute(
                sa.select(matches.c.status, matches.c.lease_expires_at).where(matches.c.id == killed_match)
            ).one()
        assert row.status == "running"  # killed mid-match
        lease_end: datetime = row.lease_expires_at

        deadline = time.monotonic() + 60
        requeued_at = None
        while requeued_at is None:
            assert time.monotonic() < deadline, "the killed worker's match was never requeued"
            time.sleep(0.1)
            requeued_at = _transition(engine, killed_match, "running", "queued")
        # the same pass sends its message again, then sets its dispatch marker afresh (10 min)
        marker = f"arena:{broker.queue}:sent:{killed_match}"
        deadline = time.monotonic() + 10
        while (after := markers.pttl(marker)) <= before + 1000:
            assert time.monotonic() < deadline, f"not re-dispatched: marker ttl {before} -> {after} ms"
            time.sleep(0.02)
        now_s, now_us = markers.time()
        redispatched_at = now_s + now_us / 1e6 - (MARKER_TTL_S * 1000 - after) / 1000

        late = (requeued_at - lease_end).total_seconds()
        assert 0.0 <= late <= INTERVAL_S + PASS_SLACK_S, (
            f"requeued {late:.2f} s after its lease ended (lease {LEASE_S} s, interval {INTERVAL_S} s)"
        )
        sent_late = redispatched_at - lease_end.timestamp()
        assert 0.0 <= sent_late <= INTERVAL_S + PASS_SLACK_S, f"re-dispatched {sent_late:.2f} s after"
        # whatever the backlog: nearly all of it still queued, the other worker still playing
        with engine.connect() as conn:
            claimed = conn.execute(
                sa.text("SELECT count(DISTINCT match_id) FROM test_match_transitions "
                        "WHERE old = 'queued' AND new = 'running' AND at <= :t"),
                {"t": requeued_at},
            ).scalar_one()
        assert claimed <= 10 and BACKLOG - claimed >= 90
        survivor_done = _transition(engine, survivor_match, "running", "done")
        assert survivor_done is None or survivor_done > requeued_at
        print(f"lease ended {lease_end.isoformat()}; requeued {late:.2f} s and re-dispatched "
              f"{sent_late:.2f} s later (bound {INTERVAL_S + PASS_SLACK_S:.1f} s) with "
              f"{BACKLOG - claimed} matches queued")
    finally:
        if beat is not None:
            beat.terminate()
            beat.wait(timeout=20)
        for proc in worker_farm.procs:  # no warm shutdown: the matches in hand last long
            stop_worker(proc, sig=signal.SIGKILL)
        dispatcher.close()
        markers.close()


def test_the_control_loop_survives_a_failing_step_and_keeps_its_schedule() -> None:
    calls: list[str] = []

    def broken() -> None:
        calls.append("broken")
        raise RuntimeError("not this time")

    loop = ControlLoop([("broken", broken), ("fine", lambda: calls.append("fine"))], interval=0.01)
    def stop_soon() -> None:
        time.sleep(0.3)
        loop.stop.set()

    stopper = threading.Thread(target=stop_soon)
    stopper.start()
    loop.run()
    stopper.join()
    assert loop.passes >= 2
    assert calls[:4] == ["broken", "fine", "broken", "fine"]  # a failure never skips the next step
    with pytest.raises(ValueError):
        ControlLoop([], interval=0).run()
