"""`arena worker` and `arena beat` name the broker and the database they use (passwords hidden)
and say when one is the default because its variable is unset: a process started without
`BROKER_URL` or `DATABASE_URL` works against a local Redis and `arena.db`, which an operator
should be told rather than discover."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from cli.main import main
from ladder.db import upgrade

REPO = Path(__file__).resolve().parents[2]


class _Exec(Exception):
    """Where `arena worker` would become the Celery worker (os.execve, the unit seam)."""


def test_the_worker_names_its_defaults_before_it_becomes_celery(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("BROKER_URL", raising=False)
    monkeypatch.delenv("DATABASE_URL", raising=False)

    def no_exec(*_args: object) -> None:
        raise _Exec

    monkeypatch.setattr(os, "execve", no_exec)
    with pytest.raises(_Exec):
        main(["worker", "--unsafe-no-sandbox"])
    err = capsys.readouterr().err
    assert (
        "arena worker: broker redis://127.0.0.1:6379/0 (the default: $BROKER_URL is not set), "
        "database sqlite:///arena.db (the default: $DATABASE_URL is not set)"
    ) in err


def test_beat_names_what_it_was_given_with_the_passwords_hidden(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path}/b.db"
    upgrade(db)
    # SQLite has no password: the broker's is the one to hide here
    env = {**os.environ, "BROKER_URL": "redis://:broker-s3cret@127.0.0.1:6379/14", "DATABASE_URL": db}
    proc = subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "beat", "--interval", "3600"],
        env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        assert proc.stdout is not None
        arrived: queue.Queue[str] = queue.Queue()
        out = proc.stdout

        def pump() -> None:
            for text in out:
                arrived.put(text)

        threading.Thread(target=pump, daemon=True).start()
        lines: list[str] = []
        while not lines or not lines[-1].startswith("arena beat: broker "):
            try:  # printed at start, before the first pass; a beat that never prints it fails here
                lines.append(arrived.get(timeout=60))
            except queue.Empty:
                pytest.fail(f"no connections line: {lines}")
        assert lines[-1].strip() == (
            f"arena beat: broker redis://:***@127.0.0.1:6379/14 ($BROKER_URL), database {db} ($DATABASE_URL)"
        )
        assert "s3cret" not in "".join(lines)
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
