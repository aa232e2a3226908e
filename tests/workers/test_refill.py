"""The queue is refilled when a match finishes, not on the beat's timer (issue 14).

A real Celery worker plays the matches and signals each end on Redis; the control loop's timer
is an hour, so only that signal can make its matchmaker queue more than the first pass did.
"""

from __future__ import annotations

import os
import threading
import time

import pytest
import redis
import sqlalchemy as sa

from ladder.db import create_engine
from ladder.match_queue import enqueue_match
from ladder.schema import matches
from workers import celery_app
from workers.celery_app import CeleryDispatcher, make_app, play_match
from workers.control import ControlLoop
from workers.matchmaker import fill_queues

from .conftest import Broker, WorkerFarm, make_ladder

pytestmark = [pytest.mark.slow, pytest.mark.integration]

DEPTH = 2
#: far longer than the test: a timed pass never comes after the first one
INTERVAL_S = 3600.0


def test_a_finished_match_makes_the_matchmaker_refill_the_queue(
    worker_farm: WorkerFarm, broker: Broker, pg_url: str
) -> None:
    engine = create_engine(pg_url)
    dispatcher = CeleryDispatcher(make_app(broker.url, broker.queue), broker.queue, broker.url)
    ladder = make_ladder(engine, ["builtin:random", "builtin:greedy", "builtin:random", "builtin:greedy"])
    loop = ControlLoop(
        [("matchmaker", lambda: fill_queues(engine, dispatcher.dispatch, target_depth=DEPTH,
                                            ladder_ids=[ladder.ladder_id]))],
        INTERVAL_S,
        wake=dispatcher.wait_done,
        on_wake=("matchmaker",),
    )
    thread = threading.Thread(target=loop.run, daemon=True)
    try:
        thread.start()
        worker_farm.start(1)
        deadline = time.monotonic() + 90
        done = 0
        while done < 3 * DEPTH:
            assert time.monotonic() < deadline, (
                f"{done} matches done; the queue was not refilled on completion\n"
                + worker_farm.log_text()
            )
            time.sleep(0.3)
            with engine.connect() as conn:
                done = conn.execute(
                    sa.select(sa.func.count()).select_from(matches).where(matches.c.status == "done")
                ).scalar_one()
        # one timed pass queued DEPTH matches; every other one came from a completion
        assert loop.passes == 1
        assert loop.wakes >= 2 * DEPTH
    finally:
        loop.stop.set()
        thread.join(timeout=10)
        worker_farm.stop_all()
        dispatcher.close()
        engine.dispose()


def test_a_worker_wakes_the_beat_when_it_takes_a_match_and_when_it_ends_it(
    broker: Broker, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Woken only at the end, the matchmaker read the queue before the worker took its next
    # match and left one queued match fewer than busy workers; the wake after the claim sees
    # the match gone from the queue.
    engine = create_engine(pg_url)
    seen: list[tuple[int, str]] = []

    class Watching(CeleryDispatcher):
        def signal_done(self, match_id: int) -> None:
            with engine.connect() as conn:
                status = conn.execute(
                    sa.select(matches.c.status).where(matches.c.id == match_id)
                ).scalar_one()
            seen.append((match_id, status))
            super().signal_done(match_id)

    watching = Watching(make_app(broker.url, broker.queue), broker.queue, broker.url)
    monkeypatch.setenv("DATABASE_URL", pg_url)
    monkeypatch.setattr(celery_app, "_dispatcher", watching)
    monkeypatch.setattr(celery_app, "_dispatcher_pid", os.getpid())
    client = redis.Redis.from_url(broker.url)
    try:
        ladder = make_ladder(engine, ["builtin:greedy", "builtin:random"])
        match_id = enqueue_match(engine, ladder.ladder_id, ladder.version_ids, seed=5)

        assert play_match(match_id)["status"] == "recorded"

        assert seen == [(match_id, "running"), (match_id, "done")]
        assert client.lrange(watching.done_key(), 0, -1) == [str(match_id).encode()] * 2
        # a delivery that finds the match done (a duplicate) signals its end only
        seen.clear()
        assert play_match(match_id)["status"] == "already_recorded"
        assert seen == [(match_id, "done")]
    finally:
        client.close()
        watching.close()
        engine.dispose()


def test_without_a_wake_the_loop_waits_for_its_timer() -> None:
    calls: list[str] = []
    loop = ControlLoop([("matchmaker", lambda: calls.append("m"))], 0.05)
    loop.stop.clear()
    passes = 0

    def stop_after_three() -> None:
        nonlocal passes
        passes += 1
        if passes >= 3:
            loop.stop.set()

    loop.steps = [*loop.steps, ("stopper", stop_after_three)]
    loop.run()
    assert calls == ["m", "m", "m"] and loop.wakes == 0
