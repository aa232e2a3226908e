"""Fixtures for the worker tests: databases (SQLite and PostgreSQL), Redis, Celery workers.

PostgreSQL and Redis are required, never skipped: the session's fresh PostgreSQL database comes
from ``postgres_url`` in tests/conftest.py; Redis is ``$ARENA_TEST_REDIS`` (default ``redis://127.0.0.1:6379``),
where each test run uses its own queue names. If either is unreachable the tests fail.
"""

from __future__ import annotations

import io
import os
import secrets
import subprocess
import tarfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis
import sqlalchemy as sa
from sqlalchemy import Engine

from ladder.archives import NormalizedArchive, validate_archive
from ladder.bots import add_bot_version, register_bot
from ladder.ladders import create_ladder, join_ladder
from ladder.schema import bot_versions
from workers.worker_processes import start_worker, stop_worker

DEFAULT_REDIS = "redis://127.0.0.1:6379"
REPO = Path(__file__).resolve().parents[2]
#: hosted test bots, as uploads: {name in the archive: file}; run with `python main.py`
RANDOM_BOT_FILES = {"main.py": REPO / "bots" / "python" / "examples" / "random_bot.py"}
BUGGY_BOT_FILES = {"main.py": REPO / "tests" / "referee" / "bots" / "buggy_bot.py"}


@dataclass(frozen=True)
class Ladder:
    """A ladder with bots on it, one version each."""

    ladder_id: int
    bot_ids: tuple[int, ...]
    version_ids: tuple[int, ...]


def make_ladder(
    engine: Engine,
    commands: Sequence[str],
    *,
    players: int = 2,
    name: str = "clank-2p",
    files: Sequence[Mapping[str, Path] | None] | None = None,
) -> Ladder:
    """A Clank! ladder for `players` with one bot per command (bots b0, b1, ...).

    `files[i]`: bot i's uploaded files ({name in the archive: file to copy}): its version is an
    upload, run in the sandbox with those files at /bot (as `arena bot upload` makes it)."""
    ladder_id = create_ladder(engine, name, "clank", players, decision_ms=1000, bank_ms=30000, max_strikes=3)
    bot_ids, version_ids = [], []
    for i, command in enumerate(commands):
        reg = register_bot(engine, f"{name}-b{i}", "tests")
        bot_ids.append(reg.bot_id)
        version_id = add_bot_version(engine, reg.bot_id, "1", command)
        bot_files = files[i] if files is not None and i < len(files) else None
        if bot_files is not None:
            attach_files(engine, version_id, bot_files)
        version_ids.append(version_id)
        join_ladder(engine, ladder_id, reg.bot_id)
    return Ladder(ladder_id, tuple(bot_ids), tuple(version_ids))


def pack_files(files: Mapping[str, Path]) -> NormalizedArchive:
    """An upload holding `files` ({name in the archive: file to copy}), checked as the API checks it."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, source in files.items():
            tar.add(source, arcname=name)
    return validate_archive(buffer.getvalue())


def attach_files(engine: Engine, version_id: int, files: Mapping[str, Path]) -> None:
    """Make version `version_id` an uploaded one with `files`."""
    archive = pack_files(files)
    with engine.begin() as conn:
        conn.execute(
            sa.update(bot_versions)
            .where(bot_versions.c.id == version_id)
            .values(
                archive=archive.tar_gz,
                archive_sha256=archive.sha256,
                archive_files=archive.files,
                archive_bytes=archive.bytes,
            )
        )


@dataclass(frozen=True)
class Broker:
    """A Redis broker URL and a queue name no other test run uses."""

    url: str
    queue: str


@pytest.fixture
def broker() -> Iterator[Broker]:
    """A private queue on the test Redis; its keys are deleted afterwards."""
    base = os.environ.get("ARENA_TEST_REDIS", DEFAULT_REDIS).rstrip("/")
    url = f"{base}/{secrets.randbelow(15) + 1}"
    client = redis.Redis.from_url(url)
    try:
        client.ping()
    except redis.RedisError as exc:
        pytest.fail(
            f"Redis is not reachable at {url} ({exc}). The worker tests need a real Redis: start it "
            "(make services), or point $ARENA_TEST_REDIS at one.",
            pytrace=False,
        )
    queue = f"arena-test-{secrets.token_hex(4)}"
    try:
        yield Broker(url, queue)
    finally:
        keys = list(client.scan_iter(f"*{queue}*"))
        if keys:
            client.delete(*keys)
        client.close()


class WorkerFarm:
    """Celery worker processes started for one test; all stopped at its end."""

    def __init__(self, env: dict[str, str], queue: str, logs: Path) -> None:
        self.env = env
        self.queue = queue
        self.logs = logs
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(self, n: int = 1, *, concurrency: int = 1) -> list[subprocess.Popen[bytes]]:
        started = [
            start_worker(
                self.env,
                self.queue,
                name=f"t{len(self.procs) + i}-{secrets.token_hex(3)}",
                concurrency=concurrency,
                log_path=self.logs / f"worker{len(self.procs) + i}.log",
                cwd=REPO,
            )
            for i in range(n)
        ]
        self.procs += started
        return started

    def stop_all(self) -> None:
        for proc in self.procs:
            stop_worker(proc)

    def log_text(self) -> str:
        return "\n".join(p.read_text(errors="replace") for p in sorted(self.logs.glob("*.log")))


@pytest.fixture
def worker_farm(broker: Broker, pg_url: str, tmp_path: Path) -> Iterator[WorkerFarm]:
    """A factory of Celery workers on `broker` and the PostgreSQL database (lease 2 s)."""
    logs = tmp_path / "worker-logs"
    logs.mkdir()
    metrics_dir = tmp_path / "metrics"
    metrics_dir.mkdir()
    env = {
        "BROKER_URL": broker.url,
        "DATABASE_URL": pg_url,
        "ARENA_QUEUE": broker.queue,
        "ARENA_LEASE_SECONDS": "2",
        "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
    }
    farm = WorkerFarm(env, broker.queue, logs)
    try:
        yield farm
    finally:
        farm.stop_all()


def assert_ladder_consistent(engine: Engine, ladder_id: int, match_ids: Sequence[int]) -> None:
    """`match_ids` are all recorded, and the ladder's books are right (workers.audit)."""
    from ladder.schema import matches
    from workers.audit import audit_ladder

    ids = sorted(match_ids)
    with engine.connect() as conn:
        statuses = dict(
            conn.execute(sa.select(matches.c.id, matches.c.status).where(matches.c.id.in_(ids))).all()
        )
    assert sorted(statuses) == ids
    not_done = {m: s for m, s in statuses.items() if s != "done"}
    assert not not_done, f"matches not recorded: {not_done}"
    problems = audit_ladder(engine, ladder_id)
    assert not problems, "\n".join(problems)
