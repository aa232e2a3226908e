"""Starting and stopping Celery worker processes (``arena demo`` on Celery, tests, the benchmark).

Each worker runs in its own process group, so it can be stopped (or killed) whole: the main
process and its pool children together.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Mapping
from pathlib import Path

__all__ = ["celery_worker_command", "start_worker", "stop_worker"]


def celery_worker_command(
    queue: str, *, name: str | None = None, concurrency: int = 1, loglevel: str = "WARNING"
) -> list[str]:
    """The command line of a Celery worker consuming the match queue `queue` (the control work
    is `arena beat`'s, see workers.control)."""
    return [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "workers.celery_app",
        "worker",
        "--concurrency",
        str(concurrency),
        "-n",
        f"{name or 'arena-' + uuid.uuid4().hex[:8]}@%h",
        "-Q",
        queue,
        "--loglevel",
        loglevel,
        "--without-gossip",
        "--without-mingle",
    ]


def start_worker(
    env: Mapping[str, str],
    queue: str,
    *,
    name: str | None = None,
    concurrency: int = 1,
    log_path: Path | None = None,
    cwd: Path | None = None,
) -> subprocess.Popen[bytes]:
    """Start a Celery worker with `env` (BROKER_URL, DATABASE_URL, ...) in a new session."""
    out = log_path.open("ab") if log_path is not None else subprocess.DEVNULL
    try:
        return subprocess.Popen(
            celery_worker_command(queue, name=name, concurrency=concurrency),
            env={**os.environ, **env},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=cwd,
        )
    finally:
        if log_path is not None and not isinstance(out, int):
            out.close()


def stop_worker(
    proc: subprocess.Popen[bytes], *, sig: int = signal.SIGTERM, timeout: float = 20.0
) -> None:
    """Signal the worker's whole process group and wait; SIGKILL if it does not stop."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=timeout)
