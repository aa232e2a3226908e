"""The gRPC referee executor (workers/grpc_executor.py) under `run_match`, on SQLite.

Hosted bots are real processes (the Python SDK's example bots, or the misbehaving test bot);
each match runs its own referee in this process on a free port. Remote bots are in
tests/referee/test_remote.py.
"""

from __future__ import annotations

import gzip
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from prometheus_client import REGISTRY
from sqlalchemy import Engine

from ladder.db import create_engine
from ladder.match_queue import enqueue_match
from ladder.schema import matches, replays, results
from referee.replay import loads, verify
from workers.bot_commands import parse_command
from workers.executor import REFEREE_EXECUTOR_ENV, MatchAborted, can_seat, reset_referee_executor
from workers.grpc_executor import GrpcMatchExecutor, bot_environment, create_executor
from workers.match_execution import engine_for, load_spec, run_match

from .conftest import BUGGY_BOT_FILES, RANDOM_BOT_FILES, assert_ladder_consistent, make_ladder

#: hosted bots run in the sandbox, from their uploaded files (RANDOM_BOT_FILES, BUGGY_BOT_FILES)
RANDOM_BOT = "python main.py"
BUGGY_BOT = "python main.py"


@pytest.fixture
def sqlite_engine(sqlite_url: str) -> Iterator[Engine]:
    eng = create_engine(sqlite_url)
    yield eng
    eng.dispose()


@pytest.fixture(autouse=True)
def _fresh_executor(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(REFEREE_EXECUTOR_ENV, raising=False)
    monkeypatch.delenv("ARENA_REFEREE_ADDR", raising=False)
    monkeypatch.setenv("ARENA_BOT_LOG_DIR", str(tmp_path / "bot-logs"))
    reset_referee_executor()


def _replay(engine: Engine, match_id: int) -> dict[str, object]:
    with engine.connect() as conn:
        data = conn.execute(sa.select(replays.c.data).where(replays.c.match_id == match_id)).scalar_one()
    return loads(gzip.decompress(data))


def _result(engine: Engine, match_id: int) -> sa.Row[tuple[object, ...]]:
    with engine.connect() as conn:
        return conn.execute(sa.select(results).where(results.c.match_id == match_id)).one()


def _sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


@pytest.mark.slow
def test_two_hosted_sdk_bots_play_a_recorded_ladder_match(
    sqlite_url: str, sqlite_engine: Engine, tmp_path: Path
) -> None:
    ladder = make_ladder(sqlite_engine, [RANDOM_BOT, RANDOM_BOT], files=[RANDOM_BOT_FILES, RANDOM_BOT_FILES])
    match_id = enqueue_match(sqlite_engine, ladder.ladder_id, ladder.version_ids, seed=11)
    decisions_before = _sample("arena_decision_seconds_count", game="clank")
    run = run_match(sqlite_url, match_id, "w1")
    assert run.status == "recorded", run
    assert_ladder_consistent(sqlite_engine, ladder.ladder_id, [match_id])
    replay = _replay(sqlite_engine, match_id)
    report = verify(replay)
    assert report.steps > 0 and report.result is not None
    seats = replay["seats"]
    assert isinstance(seats, list)
    assert [s["kind"] for s in seats] == ["hosted", "hosted"]
    assert all(s["sandbox"]["kind"] == "bubblewrap" and s["sandbox"]["cpu_ms"] > 0 for s in seats)
    assert [s["bot_id"] for s in seats] == list(ladder.bot_ids)
    assert all(s["client_name"] == "random" and s["sdk"].startswith("arena-bot-python") for s in seats)
    assert _result(sqlite_engine, match_id).reason == "finished"
    # every answered decision's referee-measured time went into the histogram
    assert _sample("arena_decision_seconds_count", game="clank") - decisions_before == report.steps
    # the bots' output was kept where $ARENA_BOT_LOG_DIR says
    logs = tmp_path / "bot-logs" / f"match-{match_id}"
    assert sorted(p.name for p in logs.iterdir()) == ["seat0.log", "seat1.log"]


@pytest.mark.slow
def test_a_crashing_hosted_bot_forfeits_and_the_match_records(
    sqlite_url: str, sqlite_engine: Engine
) -> None:
    ladder = make_ladder(
        sqlite_engine, [f"{BUGGY_BOT} --mode crash", "builtin:greedy"], files=[BUGGY_BOT_FILES]
    )
    match_id = enqueue_match(sqlite_engine, ladder.ladder_id, ladder.version_ids, seed=4)
    forfeits_before = _sample("arena_forfeits_total", game="clank", reason="crashed")
    run = run_match(sqlite_url, match_id, "w1")
    assert run.status == "recorded", run
    assert run.detail.startswith("forfeit: seat 0 crashed: exit code 3")
    replay = _replay(sqlite_engine, match_id)
    verify(replay)
    seats = replay["seats"]
    assert isinstance(seats, list)
    assert seats[0]["forfeit"] == "crashed: exit code 3" and seats[0]["exit_code"] == 3
    assert seats[1]["kind"] == "builtin"  # an in-process SDK client
    assert _sample("arena_forfeits_total", game="clank", reason="crashed") == forfeits_before + 1
    row = _result(sqlite_engine, match_id)
    assert row.outcomes[0] == "forfeited" or row.places[0] == 2
    assert run_match(sqlite_url, match_id, "w2").status == "already_recorded"


@pytest.mark.slow
def test_timeouts_are_counted(sqlite_url: str, sqlite_engine: Engine) -> None:
    ladder = make_ladder(
        sqlite_engine,
        [f"{BUGGY_BOT} --mode slow-once", RANDOM_BOT],
        files=[BUGGY_BOT_FILES, RANDOM_BOT_FILES],
    )
    # The slow bot sleeps its whole allowance plus 1 s on its first decision; a 2 s decision time
    # leaves the next decision (asked while it sleeps, with an empty bank) time to be answered.
    with sqlite_engine.begin() as conn:
        conn.execute(sa.text("UPDATE ladders SET decision_ms = 2000, bank_ms = 1000"))
    match_id = enqueue_match(sqlite_engine, ladder.ladder_id, ladder.version_ids, seed=2)
    before = _sample("arena_timeouts_total", game="clank")
    run = run_match(sqlite_url, match_id, "w1")
    assert run.status == "recorded", run
    seats = _replay(sqlite_engine, match_id)["seats"]
    assert isinstance(seats, list)
    # its sleep also eats into the next decision (its bank is empty by then): 1 or 2 timeouts
    timeouts = [i for i in seats[0]["incidents"] if i["kind"] == "timeout"]
    assert 1 <= len(timeouts) == seats[0]["strikes"] < 3
    assert _sample("arena_timeouts_total", game="clank") == before + len(timeouts)


@pytest.mark.slow
def test_a_stop_between_decisions_aborts_and_cleans_up(sqlite_url: str, sqlite_engine: Engine) -> None:
    ladder = make_ladder(sqlite_engine, [RANDOM_BOT, "builtin:random?think_ms=50"], files=[RANDOM_BOT_FILES])
    match_id = enqueue_match(sqlite_engine, ladder.ladder_id, ladder.version_ids, seed=5)
    spec = load_spec(engine_for(sqlite_url), match_id)

    class StopSoon:
        def __init__(self) -> None:
            self.until = time.monotonic() + 2.0

        def stop_reason(self) -> str | None:
            return "lease lost" if time.monotonic() > self.until else None

    started = time.monotonic()
    with pytest.raises(MatchAborted, match="lease lost"):
        GrpcMatchExecutor().execute(spec, StopSoon())
    assert time.monotonic() - started < 10
    # through run_match: the time limit stops it and the match is failed, not recorded
    run = run_match(sqlite_url, match_id, "w1", max_seconds=1.5)
    assert run.status == "failed" and "time_limit" in run.detail
    with sqlite_engine.connect() as conn:
        status = conn.execute(sa.select(matches.c.status).where(matches.c.id == match_id)).scalar_one()
    assert status == "failed"


def test_can_seat_hosted_always_remote_only_with_a_referee(monkeypatch: pytest.MonkeyPatch) -> None:
    assert can_seat("clank", parse_command(RANDOM_BOT), 1)
    assert not can_seat("clank", parse_command("remote"), 1)  # no $ARENA_REFEREE_ADDR
    monkeypatch.setenv("ARENA_REFEREE_ADDR", "127.0.0.1:1")  # nothing listens there
    assert not create_executor().can_seat(parse_command("remote"), 1)


def test_a_remote_seat_without_a_referee_fails_the_match(sqlite_url: str, sqlite_engine: Engine) -> None:
    ladder = make_ladder(sqlite_engine, ["remote", "builtin:random"])
    match_id = enqueue_match(sqlite_engine, ladder.ladder_id, ladder.version_ids, seed=5)
    run = run_match(sqlite_url, match_id, "w1")
    assert run.status == "failed" and "ARENA_REFEREE_ADDR" in run.detail


def test_hosted_bots_do_not_inherit_the_workers_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql://u:p@db/arena")
    monkeypatch.setenv("ARENA_ADMIN_TOKEN", "admin")
    monkeypatch.setenv("SOME_API_KEY", "k")
    monkeypatch.setenv("ARENA_DEMO_FLAG", "kept")
    env = bot_environment()
    assert "DATABASE_URL" not in env and "ARENA_ADMIN_TOKEN" not in env and "SOME_API_KEY" not in env
    assert env["ARENA_DEMO_FLAG"] == "kept" and "PATH" in env


class _Sandboxed:
    """A stand-in for a sandboxed bot's process (the unit seam `_sandbox_figures` reads): the
    sandbox's limits, its own wall-clock verdict, its cgroup's OOM count."""

    def __init__(self, oom: bool, killed_for: str | None = None) -> None:
        from workers.sandbox import SandboxLimits

        self.limits = SandboxLimits()
        self.killed_for = killed_for
        self._oom = oom

    def cpu_seconds(self) -> float:
        return 10.2

    def oom_killed(self) -> bool:
        return self._oom


def test_the_replay_names_the_sandbox_limit_that_ended_a_hosted_bot(tmp_path: Path) -> None:
    """The launcher reads which limit ended the bot as it exits (`BotRun.killed_for`); the seat's
    sandbox record keeps it, so a CPU-seconds kill is not just 'crashed: exit code 152'. A bot
    still running at the end is read then: its sandbox's wall clock, or an OOM-killed child."""
    from referee.server.launcher import BotRun
    from workers.grpc_executor import _sandbox_figures
    from workers.sandbox import SandboxLimits

    run = BotRun(0, "python main.py", tmp_path / "log", exit_code=152, sandbox="bubblewrap")
    run.process = _Sandboxed(oom=False)  # type: ignore[assignment]
    run.killed_for = "CPU seconds limit of 10 s"
    assert _sandbox_figures(run)["killed_for"] == "CPU seconds limit of 10 s"
    run.killed_for, run.exit_code = "", None
    run.process = _Sandboxed(oom=True)  # type: ignore[assignment]
    memory_mb = SandboxLimits().memory_mb
    assert _sandbox_figures(run)["killed_for"] == f"memory limit of {memory_mb} MB"
    run.process = _Sandboxed(oom=False, killed_for="wall time (5 s)")  # type: ignore[assignment]
    assert _sandbox_figures(run)["killed_for"] == "wall time (5 s)"
    run.process = _Sandboxed(oom=False)  # type: ignore[assignment]
    assert "killed_for" not in _sandbox_figures(run)
