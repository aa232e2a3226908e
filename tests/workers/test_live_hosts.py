"""A live match across processes: the referee that holds the match is not the API's host.

A Celery worker process (``arena worker``) plays a match on a referee it starts itself (one
seat a hosted bot process, one a built-in client over gRPC: the referee's WatchMatch events
feed the live view), and an API process (``arena serve api``) streams it; the two share only
the database and Redis, where the live record goes (a Redis stream per match). This test talks
to both over their public faces only: it queues the match, then reads the API's server-sent
events while the worker plays.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis
import sqlalchemy as sa

from ladder.db import create_engine
from ladder.live import RedisChannel
from ladder.match_queue import enqueue_match
from ladder.schema import matches
from referee.replay import loads
from tests.web.live_support import SLOW_RANDOM, SseStream, read_sse
from tests.web.serving import free_port
from tests.web.test_live import PUBLIC_FIELDS, public_record
from tests.workers.conftest import RANDOM_BOT_FILES, Broker, WorkerFarm, make_ladder
from workers.celery_app import CeleryDispatcher, make_app

pytestmark = [pytest.mark.slow, pytest.mark.integration]

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def api_process(broker: Broker, pg_url: str, tmp_path: Path) -> Iterator[str]:
    """`arena serve api` in its own process, on the test's database and Redis."""
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": pg_url,
        "BROKER_URL": broker.url,
        "ARENA_LIVE_DELAY_DECISIONS": "2",
        "ARENA_LIVE_DELAY_SECONDS": "0.3",
    }
    log = (tmp_path / "api.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "serve", "api", "--port", str(port), "--log-level", "warning"],
        env=env, stdout=log, stderr=subprocess.STDOUT, cwd=REPO, start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (tmp_path / "api.log").read_text()
            try:
                if httpx.get(f"{url}/api/ladders", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the API did not start"
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        log.close()


def test_a_match_played_by_a_worker_process_is_followed_through_another_process_over_redis(
    worker_farm: WorkerFarm, broker: Broker, pg_url: str, api_process: str
) -> None:
    # the hosted seat runs as a plain process on the worker's host (no sandbox needed here)
    worker_farm.env.update({
        "ARENA_UNSAFE_NO_SANDBOX": "1",
        "PYTHONPATH": str(REPO / "bots" / "python"),
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
    })
    engine = create_engine(pg_url)
    dispatcher = CeleryDispatcher(make_app(broker.url, broker.queue), broker.queue, broker.url)
    store = redis.Redis.from_url(broker.url)
    stream = SseStream()
    running_at_arrival = 0
    match_id = 0
    try:
        ladder = make_ladder(engine, ["python main.py", SLOW_RANDOM], files=[RANDOM_BOT_FILES, None])
        match_id = enqueue_match(engine, ladder.ladder_id, ladder.version_ids, seed=5)
        key = RedisChannel(broker.url, pg_url).key(match_id)
        # the session's database is emptied between tests, so an earlier test's match may have had
        # this id and left its stream (kept an hour after its end) under the same key
        store.delete(key)
        with httpx.Client(base_url=api_process, timeout=60) as client:
            with client.stream("GET", f"/api/matches/{match_id}/live") as response:
                assert response.status_code == 200, response.read()
                worker_farm.start(1)
                dispatcher.dispatch(match_id)
                for event in read_sse(response, stream):
                    if event.event == "end":
                        break
                    if running_at_arrival < 10:
                        with engine.connect() as conn:
                            status = conn.execute(
                                sa.select(matches.c.status).where(matches.c.id == match_id)
                            ).scalar()
                        running_at_arrival += status == "running"
                        # the record went through Redis: the worker's stream of this match
                        assert store.xlen(key) > 0
            end = stream.events[-1]
            assert end.event == "end", (stream.raw[-5:], worker_farm.log_text())
            assert end.data["status"] == "done", end
            replay = loads(client.get(f"/api/matches/{match_id}/replay").content)
            assert client.get(f"/api/matches/{match_id}/live").status_code == 410
    finally:
        store.delete(RedisChannel(broker.url, pg_url).key(match_id))  # it would expire anyway
        store.close()
        dispatcher.close()
        engine.dispose()
    assert running_at_arrival >= 10, running_at_arrival
    assert [s.get("kind") for s in replay["seats"]] == ["hosted", "builtin"]  # through the referee
    steps = [e for e in stream.events if e.event == "step"]
    assert [e.data for e in steps] == public_record(replay)
    assert all(set(e.data) <= PUBLIC_FIELDS for e in steps)
