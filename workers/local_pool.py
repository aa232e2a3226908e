"""The embedded default: a local process pool that calls the same :func:`run_match`.

Processes are started with ``spawn`` (not ``fork``): each imports what it needs and makes its
own database engine, nothing is inherited half-initialised from the parent. A pool process that
dies (killed, out of memory) breaks the pool; :meth:`LocalPool.collect` then starts a new one,
and the dead process's match comes back through the sweeper once its lease runs out.

**Interrupts**: pool processes ignore SIGINT, so a Ctrl-C (SIGINT to the whole process group)
reaches the parent alone; it decides. Leaving a ``with LocalPool(...)`` block on an exception
(KeyboardInterrupt) calls :meth:`LocalPool.terminate`: the matches not started are cancelled
and the processes are sent SIGTERM, which each turns into SystemExit, so the match it plays
stops its bots on the way out; one still alive after :data:`TERMINATE_GRACE_S` is killed. The
matches they held stay ``running`` until their leases run out (the sweeper requeues them).
:meth:`LocalPool.close` (the normal end) waits for every match submitted.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import sys
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Final

from ladder.db import is_outage
from workers.match_execution import MatchRun, run_match
from workers.qualification import QualificationRun, qualify_version

__all__ = ["DEFAULT_POOL_SIZE", "LocalPool"]

log = logging.getLogger(__name__)

#: pool processes by default: the machine's cores, at most 4
DEFAULT_POOL_SIZE: Final = max(1, min(4, os.cpu_count() or 1))
#: seconds terminated pool processes have to stop their matches' bots before they are killed
TERMINATE_GRACE_S: Final = 2.0


def _exit_on_sigterm(signum: int, _frame: object) -> None:
    # the match's tasks are cancelled on the way out: asyncio would log each as an error
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    raise SystemExit(128 + signum)


def _init_process(log_level: int | None) -> None:
    """A pool process: the parent alone answers Ctrl-C; SIGTERM unwinds the match it plays."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    if log_level is not None:
        logging.basicConfig(level=log_level, stream=sys.stderr, format="%(message)s")


def _play(db_url: str, match_id: int, lease: float | None) -> MatchRun:
    return run_match(db_url, match_id, lease=lease)


def _qualify(db_url: str, version_id: int) -> QualificationRun:
    return qualify_version(db_url, version_id)


class LocalPool:
    """Runs matches in local worker processes; a dispatcher for ``workers.season``."""

    def __init__(
        self,
        db_url: str,
        workers: int = DEFAULT_POOL_SIZE,
        *,
        lease: float | None = None,
        log_level: int | None = None,
    ):
        """A pool of `workers` processes playing matches on the database at `db_url`; their log
        records below `log_level` are dropped (default: Python's, warnings and up)."""
        self.db_url = db_url
        self.workers = workers
        self.lease = lease
        self.log_level = log_level
        self._pool = self._new_pool()
        self._in_flight: dict[int, Future[MatchRun]] = {}
        self._qualifying: dict[int, Future[QualificationRun]] = {}
        self.runs: list[MatchRun] = []
        self.qualifications: list[QualificationRun] = []

    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            self.workers, mp_context=multiprocessing.get_context("spawn"),
            initializer=_init_process, initargs=(self.log_level,),
        )

    def dispatch(self, match_id: int) -> None:
        """Play match `match_id` in a pool process (no-op if it is already in flight here)."""
        if match_id in self._in_flight:
            return
        try:
            future = self._pool.submit(_play, self.db_url, match_id, self.lease)
        except BrokenProcessPool:
            self._restart()
            future = self._pool.submit(_play, self.db_url, match_id, self.lease)
        self._in_flight[match_id] = future

    def dispatch_qualification(self, version_id: int) -> None:
        """Qualify bot version `version_id` in a pool process (no-op if in flight here)."""
        if version_id in self._qualifying:
            return
        try:
            future = self._pool.submit(_qualify, self.db_url, version_id)
        except BrokenProcessPool:
            self._restart()
            future = self._pool.submit(_qualify, self.db_url, version_id)
        self._qualifying[version_id] = future

    def ensure_dispatched(self, match_id: int) -> None:
        """Dispatch a queued match unless it is in flight here (after a pool restart)."""
        self.dispatch(match_id)

    def pump(self) -> None:
        """Collect finished matches (see :meth:`collect`)."""
        self.collect()

    def collect(self) -> list[MatchRun]:
        """The runs finished since the last call; restarts the pool if a process died."""
        finished = []
        broken = False
        for match_id, future in list(self._in_flight.items()):
            if not future.done():
                continue
            del self._in_flight[match_id]
            try:
                finished.append(future.result())
            except BrokenProcessPool:
                broken = True
                log.warning("match %s: its pool process died; the sweeper will requeue it", match_id)
            except Exception as exc:
                if is_outage(exc):  # queued: re-dispatched when stale; running: swept at lease end
                    log.warning("match %s: run_match gave up, the database is unreachable (%s)",
                                match_id, type(exc).__name__)
                else:
                    log.exception("match %s: run_match raised", match_id)
        for version_id, pending in list(self._qualifying.items()):
            if not pending.done():
                continue
            del self._qualifying[version_id]
            try:
                self.qualifications.append(pending.result())
            except BrokenProcessPool:
                broken = True
            except Exception:  # the version stays due: the next sweep sends it again
                log.warning("version %s: qualify_version raised", version_id, exc_info=True)
        if broken:
            self._restart()
        self.runs.extend(finished)
        return finished

    def in_flight(self) -> int:
        """Matches submitted and not yet collected."""
        return len(self._in_flight)

    def _restart(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = self._new_pool()

    def close(self) -> None:
        """Wait for the matches in flight, then stop the processes."""
        self._pool.shutdown(wait=True)
        self.collect()

    def terminate(self, grace: float = TERMINATE_GRACE_S) -> None:
        """Stop now (an interrupt): cancel the matches not started, SIGTERM the processes (each
        stops its match's bots as it unwinds), SIGKILL any still alive after `grace` seconds."""
        # the executor has no public way to stop its processes before Python 3.14
        # (terminate_workers); its process table is read before shutdown() forgets it
        processes = list((getattr(self._pool, "_processes", None) or {}).values())
        self._pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.terminate()
        deadline = time.monotonic() + grace
        for process in processes:
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join(1.0)

    def __enter__(self) -> LocalPool:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *_exc: object) -> None:
        if exc_type is None:
            self.close()
        else:
            self.terminate()
