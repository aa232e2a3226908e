"""The referee's Prometheus metrics move with what happens in its matches (real bot processes),
and `arena serve referee --metrics-port` serves them."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from referee.server import metrics

from .conftest import RANDOM_BOT, buggy, play, timeout_clock


def _value(counter, **labels) -> float:
    return counter.labels(**labels)._value.get()


def test_timeouts_strikes_forfeits_decisions_and_finished_matches_are_counted(tmp_path: Path) -> None:
    timeouts = _value(metrics.TIMEOUTS, game="clank")
    strike_timeouts = _value(metrics.STRIKES, game="clank", reason="timeout")
    forfeits = _value(metrics.FORFEITS, game="clank", reason="strikes")
    finished = _value(metrics.MATCHES_FINISHED, game="clank", ended_by="game_over")
    started = _value(metrics.MATCHES_STARTED, game="clank")
    decisions_before = metrics.DECISION_SECONDS.labels(game="clank")._sum.get()
    # other tests of this process may have left matches of theirs running: count this one only
    active = metrics.ACTIVE_MATCHES._value.get()

    # times out once, by a second past its whole allowance, and is forfeited
    played = play([buggy("slow"), RANDOM_BOT], tmp_path, clock=timeout_clock(1))

    strikes = played.replay["seats"][0]["strikes"]
    assert strikes == 1 and played.replay["seats"][1]["strikes"] == 0
    assert _value(metrics.TIMEOUTS, game="clank") == timeouts + strikes
    assert _value(metrics.STRIKES, game="clank", reason="timeout") == strike_timeouts + strikes
    assert _value(metrics.FORFEITS, game="clank", reason="strikes") == forfeits + 1
    assert _value(metrics.MATCHES_STARTED, game="clank") == started + 1
    assert _value(metrics.MATCHES_FINISHED, game="clank", ended_by="game_over") == finished + 1
    assert metrics.DECISION_SECONDS.labels(game="clank")._sum.get() > decisions_before
    assert metrics.ACTIVE_MATCHES._value.get() == active


def test_serve_referee_exposes_metrics_on_its_port() -> None:
    def free_port() -> int:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return int(s.getsockname()[1])

    grpc_port, metrics_port = free_port(), free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "referee.cli",
            "serve",
            "referee",
            "--port",
            str(grpc_port),
            "--metrics-port",
            str(metrics_port),
            "--insecure",  # metrics only: no admin calls are made
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=2) as resp:
                    text = resp.read().decode()
                break
            except OSError:
                assert server.poll() is None, "arena serve referee exited"
                assert time.monotonic() < deadline, "metrics endpoint did not come up"
                time.sleep(0.2)
        assert "arena_referee_active_matches" in text
        assert "arena_referee_decision_seconds" in text
    finally:
        server.terminate()
        server.wait(timeout=20)
