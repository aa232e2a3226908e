"""Several referees, one platform: a remote bot given two referees reconnects to the second when
the first dies, and a match that was running on the dead referee is handed back, requeued once,
placed on the referee now holding the bot, and recorded once.

Real processes: two referees (`arena serve referee --db URL`, one SQLite ladder), the SDK's
example bot with `--bot-token` and both addresses; the match function runs in this process.
"""

from __future__ import annotations

import gzip
import json
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from ladder.bots import REMOTE, add_bot_version, register_bot
from ladder.db import create_engine, upgrade
from ladder.ladders import create_ladder, join_ladder
from ladder.match_queue import enqueue_match, requeue_expired
from ladder.schema import matches, replays, results
from workers.executor import reset_referee_executor
from workers.grpc_executor import GrpcMatchExecutor
from workers.match_execution import MatchRun, run_match

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "bots" / "python" / "examples" / "random_bot.py"
ARENA = [sys.executable, "-m", "referee.cli"]

pytestmark = [pytest.mark.slow, pytest.mark.integration]


def wait_for(check: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _start_referee(db_url: str, token: str, log: Path) -> tuple[subprocess.Popen[str], str]:
    with log.open("wb") as err:
        proc = subprocess.Popen(  # the admin token from the environment, never the command line
            [*ARENA, "serve", "referee", "--port", "0", "--db", db_url],
            stdout=subprocess.PIPE, stderr=err, stdin=subprocess.DEVNULL, text=True, cwd=REPO,
            env={**os.environ, "ARENA_ADMIN_TOKEN": token},
        )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.startswith("referee listening on "), line + log.read_text()
    return proc, line.split()[-1]


@pytest.fixture
def procs() -> Iterator[list[subprocess.Popen[Any]]]:
    started: list[subprocess.Popen[Any]] = []
    try:
        yield started
    finally:
        for proc in started:
            if proc.poll() is None:
                proc.kill()
            proc.wait(10)
            if proc.stdout is not None:
                proc.stdout.close()


def test_a_lost_referee_hands_its_match_back_and_the_bot_plays_it_on_the_other(
    tmp_path: Path, procs: list[subprocess.Popen[Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    db_url = f"sqlite:///{tmp_path / 'ladder.db'}"
    upgrade(db_url)
    engine = create_engine(db_url)
    token = secrets.token_urlsafe(24)
    first, first_addr = _start_referee(db_url, token, tmp_path / "r1.log")
    procs.append(first)
    second, second_addr = _start_referee(db_url, token, tmp_path / "r2.log")
    procs.append(second)
    monkeypatch.setenv("ARENA_REFEREE_ADDR", f"{first_addr},{second_addr}")
    monkeypatch.setenv("ARENA_ADMIN_TOKEN", token)
    reset_referee_executor()

    ladder_id = create_ladder(engine, "mh", "clank", 2, decision_ms=1000, bank_ms=30000, max_strikes=3)
    remote = register_bot(engine, "far", "tests")
    remote_version = add_bot_version(engine, remote.bot_id, "1", REMOTE)
    join_ladder(engine, ladder_id, remote.bot_id)
    slow = register_bot(engine, "slow", "tests")
    # a built-in seat pacing itself: the match lasts long enough to lose its referee mid-game
    slow_version = add_bot_version(engine, slow.bot_id, "1", "builtin:random?think_ms=40")
    join_ladder(engine, ladder_id, slow.bot_id)

    with (tmp_path / "bot.log").open("wb") as log:
        bot = subprocess.Popen(
            [sys.executable, str(EXAMPLE), "--referee", f"{first_addr},{second_addr}",
             "--bot-token", remote.token],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )
    procs.append(bot)
    executor = GrpcMatchExecutor()
    wait_for(lambda: executor.referee_of(remote.bot_id) == first_addr, "the bot on the first referee")

    match_id = enqueue_match(engine, ladder_id, [remote_version, slow_version], seed=5)
    outcome: list[MatchRun] = []
    runner = threading.Thread(target=lambda: outcome.append(run_match(db_url, match_id, "w-a", lease=30)))
    runner.start()
    wait_for(lambda: _status(engine, match_id) == "running", "the match to start")
    time.sleep(1.0)  # a few decisions into the game
    first.send_signal(signal.SIGKILL)
    runner.join(60)
    assert outcome and outcome[0].status == "lease_lost", outcome
    assert outcome[0].detail.startswith("handed back: referee " + first_addr), outcome[0].detail

    # the bot moved to the other referee by itself; the sweeper requeues the handed-back match
    wait_for(lambda: GrpcMatchExecutor().referee_of(remote.bot_id) == second_addr,
             "the bot on the second referee")
    swept = requeue_expired(engine)
    assert swept.requeued == (match_id,)
    again = run_match(db_url, match_id, "w-b", lease=30)
    assert again.status == "recorded", again
    with engine.connect() as conn:
        row = conn.execute(
            sa.select(matches.c.status, matches.c.attempts).where(matches.c.id == match_id)
        ).one()
        assert (row.status, row.attempts) == ("done", 1)
        recorded = sa.select(sa.func.count()).where(results.c.match_id == match_id)
        assert conn.execute(recorded).scalar_one() == 1
        data = conn.execute(sa.select(replays.c.data).where(replays.c.match_id == match_id)).scalar_one()
    replay = json.loads(gzip.decompress(data))
    remote_seat = next(s for s in replay["seats"] if s.get("kind") == "remote")
    assert remote_seat["referee"] == second_addr  # the placement, kept with the match
    assert "disconnected from " + first_addr in (tmp_path / "bot.log").read_text()
    engine.dispose()
    reset_referee_executor()


def _status(engine: sa.Engine, match_id: int) -> str:
    with engine.connect() as conn:
        return str(conn.execute(sa.select(matches.c.status).where(matches.c.id == match_id)).scalar_one())
