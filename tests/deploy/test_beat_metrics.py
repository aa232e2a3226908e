"""`arena beat --metrics-port`: the control process serves the metrics only it counts (the
matchmaker's arena_queue_depth, the sweeper's arena_matches_requeued_total), which the alert
rules use and Prometheus scrapes from it (deploy/prometheus.yml job arena-beat, k8s annotation).

Real PostgreSQL, Redis and an `arena beat` process; nothing consumes the queue, so the
matchmaker's queue stays at the depth it was asked for.
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import redis

from ladder.db import create_engine
from tests.workers.conftest import DEFAULT_REDIS, REPO, make_ladder

DEPTH = 3


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _scrape(port: int) -> str | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as resp:
            text: str = resp.read().decode()
            return text
    except OSError:
        return None


@pytest.mark.integration
def test_beat_serves_the_queue_depth_and_requeue_count_on_its_metrics_port(
    pg_url: str, tmp_path: Path
) -> None:
    engine = create_engine(pg_url)
    try:
        make_ladder(engine, ["builtin:random", "builtin:random"], name="beat-metrics")
    finally:
        engine.dispose()
    broker = f"{os.environ.get('ARENA_TEST_REDIS', DEFAULT_REDIS).rstrip('/')}/{secrets.randbelow(15) + 1}"
    queue = f"beat-metrics-{secrets.token_hex(4)}"
    port = _free_port()
    env = {
        **os.environ,
        "DATABASE_URL": pg_url,
        "BROKER_URL": broker,
        "ARENA_QUEUE": queue,
        "ARENA_QUEUE_DEPTH": str(DEPTH),
        "ARENA_BEAT_SECONDS": "0.5",
    }
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)  # as deployed: beat is one process
    log = tmp_path / "beat.log"
    with log.open("wb") as out:
        beat = subprocess.Popen(
            [sys.executable, "-m", "referee.cli", "beat", "--metrics-port", str(port),
             "--loglevel", "WARNING"],
            env=env, cwd=REPO, stdout=out, stderr=subprocess.STDOUT,
        )
    try:
        wanted = f'arena_queue_depth{{ladder="beat-metrics"}} {float(DEPTH)}'
        deadline = time.monotonic() + 60
        text = _scrape(port)
        while text is None or wanted not in text:
            assert beat.poll() is None, log.read_text(errors="replace")
            assert time.monotonic() < deadline, (
                f"{wanted!r} not in:\n{text}\n{log.read_text(errors='replace')}"
            )
            time.sleep(0.2)
            text = _scrape(port)
        assert "arena_matches_requeued_total 0.0" in text
    finally:
        beat.terminate()
        beat.wait(timeout=30)
        client = redis.Redis.from_url(broker)
        keys = list(client.scan_iter(f"*{queue}*"))
        if keys:
            client.delete(*keys)
        client.close()
