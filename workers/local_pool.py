"""The embedded default: a local process pool that calls the same :func:`run_match`.

Processes are started with ``spawn`` (not ``fork``): each imports what it needs and makes its
own database engine, nothing is inherited half-initialised from the parent. A pool process that
dies (killed, out of memory) breaks the pool, and the pool's other processes are ended with it;
:meth:`LocalPool.collect` then starts a new one and hands back the leases of the matches that
were in flight (``workers.lease.hand_back``: each run had a worker id the pool chose), so the next
sweep requeues them at once instead of after their lease (a platform fault each).

Priorities (``workers/README.md``, "Platform faults"): the pool keeps its own queue and gives the
processes at most one task each; a match the sweeper requeued (:meth:`LocalPool.dispatch_retry`)
goes ahead of every match and qualification not yet started, as on Celery.

**Interrupts**: pool processes ignore SIGINT, so a Ctrl-C (SIGINT to the whole process group)
reaches the parent alone; it decides. A process is started with SIGINT blocked (the thread that
starts it holds it blocked, and the mask survives exec), so a Ctrl-C during its second of imports,
before its initializer ignores SIGINT, stays pending and is dropped instead of printing a
KeyboardInterrupt traceback. Leaving a ``with LocalPool(...)`` block on an exception
(KeyboardInterrupt) calls :meth:`LocalPool.terminate`: the matches not started are cancelled
and the processes are sent SIGTERM, which each turns into SystemExit, so the match it plays
stops its bots on the way out; one still alive after :data:`TERMINATE_GRACE_S` is killed. The
matches they held stay ``running`` until their leases run out (the sweeper requeues them).
:meth:`LocalPool.close` (the normal end) waits for every match submitted.
"""

from __future__ import annotations

import contextlib
import functools
import heapq
import itertools
import logging
import multiprocessing
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Final, Literal

from ladder.db import is_outage
from workers.lease import hand_back
from workers.match_execution import MatchRun, engine_for, run_match
from workers.qualification import QualificationRun, qualify_version

__all__ = ["DEFAULT_POOL_SIZE", "NEW_PRIORITY", "RETRY_PRIORITY", "TERMINATE_GRACE_S", "LocalPool"]

log = logging.getLogger(__name__)

#: pool processes by default: the machine's cores, at most 4
DEFAULT_POOL_SIZE: Final = max(1, min(4, os.cpu_count() or 1))
#: seconds terminated pool processes have to stop their matches' bots before they are killed
TERMINATE_GRACE_S: Final = 2.0
#: a match requeued after a platform fault: taken before anything else waiting
RETRY_PRIORITY: Final = 0
#: a new match, a qualification: first come, first served
NEW_PRIORITY: Final = 6

_Kind = Literal["match", "qualify"]


def _exit_on_sigterm(signum: int, _frame: object) -> None:
    # the match's tasks are cancelled on the way out: asyncio would log each as an error
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    raise SystemExit(128 + signum)


def _init_process(log_level: int | None) -> None:
    """A pool process: the parent alone answers Ctrl-C; SIGTERM unwinds the match it plays."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # drops a SIGINT pending since the start
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    if log_level is not None:
        logging.basicConfig(level=log_level, stream=sys.stderr, format="%(message)s")


@contextlib.contextmanager
def _sigint_blocked() -> Iterator[None]:
    """SIGINT blocked in this thread while it may start a pool process (the executor starts
    them on demand, inside ``submit``): the child inherits the mask. This process still gets a
    SIGINT, through another thread or when the mask is restored."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _play(db_url: str, match_id: int, lease: float | None, worker_id: str) -> MatchRun:
    return run_match(db_url, match_id, worker_id, lease=lease)


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
        self._lock = threading.RLock()
        self._pool = self._new_pool()
        #: bumped at each restart: a callback of the broken pool's futures changes nothing
        self._generation = 0
        #: a submission found the pool broken: collect() restarts it
        self._broken = False
        #: tasks submitted to the processes and not finished (at most `workers`)
        self._busy = 0
        #: tasks not yet given to a process: (priority, order, kind, id)
        self._waiting: list[tuple[int, int, _Kind, int]] = []
        self._order = itertools.count()
        self._runs = itertools.count()
        #: match id -> its future, once submitted (None while it waits)
        self._in_flight: dict[int, Future[MatchRun] | None] = {}
        #: match id -> the worker id its run holds the lease with
        self._worker_ids: dict[int, str] = {}
        self._qualifying: dict[int, Future[QualificationRun] | None] = {}
        self.runs: list[MatchRun] = []
        self.qualifications: list[QualificationRun] = []

    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            self.workers, mp_context=multiprocessing.get_context("spawn"),
            initializer=_init_process, initargs=(self.log_level,),
        )

    def dispatch(self, match_id: int) -> None:
        """Play match `match_id` in a pool process, after those already waiting (no-op if it is
        already in flight here)."""
        self._enqueue(NEW_PRIORITY, "match", match_id)

    def dispatch_retry(self, match_id: int) -> None:
        """Play match `match_id`, requeued after a platform fault, before anything waiting."""
        self._enqueue(RETRY_PRIORITY, "match", match_id)

    def dispatch_qualification(self, version_id: int) -> None:
        """Qualify bot version `version_id` in a pool process (no-op if in flight here)."""
        self._enqueue(NEW_PRIORITY, "qualify", version_id)

    def _enqueue(self, priority: int, kind: _Kind, item: int) -> None:
        with self._lock:
            if kind == "match":
                if item in self._in_flight:
                    return
                self._in_flight[item] = None
            else:
                if item in self._qualifying:
                    return
                self._qualifying[item] = None
            heapq.heappush(self._waiting, (priority, next(self._order), kind, item))
        self._fill()

    def _fill(self) -> None:
        """Give waiting tasks, most urgent first, to the free processes."""
        with self._lock:
            while self._waiting and self._busy < self.workers:
                priority, order, kind, item = heapq.heappop(self._waiting)
                try:
                    future = self._submit(kind, item)
                except BrokenProcessPool:  # collect() restarts the pool and fills it again
                    heapq.heappush(self._waiting, (priority, order, kind, item))
                    self._broken = True
                    return
                self._busy += 1
                future.add_done_callback(functools.partial(self._finished, self._generation))

    def _submit(self, kind: _Kind, item: int) -> Future[MatchRun] | Future[QualificationRun]:
        if kind == "qualify":
            with _sigint_blocked():
                qualifying = self._pool.submit(_qualify, self.db_url, item)
            self._qualifying[item] = qualifying
            return qualifying
        # a worker id of the pool's choosing, so a run lost with its process can be handed back
        worker_id = f"{socket.gethostname()}:{os.getpid()}.pool{next(self._runs)}"
        with _sigint_blocked():
            playing = self._pool.submit(_play, self.db_url, item, self.lease, worker_id)
        self._in_flight[item] = playing
        self._worker_ids[item] = worker_id
        return playing

    def _finished(self, generation: int, _future: object) -> None:
        with self._lock:
            if generation != self._generation:
                return
            self._busy -= 1
        self._fill()

    def ensure_dispatched(self, match_id: int) -> None:
        """Dispatch a queued match unless it is in flight here (after a pool restart)."""
        self.dispatch(match_id)

    def pump(self) -> None:
        """Collect finished matches (see :meth:`collect`)."""
        self.collect()

    def collect(self) -> list[MatchRun]:
        """The runs finished since the last call; restarts the pool if a process died."""
        finished = []
        lost: list[tuple[int, str]] = []
        with self._lock:
            for match_id, future in list(self._in_flight.items()):
                if future is None or not future.done():
                    continue
                del self._in_flight[match_id]
                worker_id = self._worker_ids.pop(match_id)
                try:
                    finished.append(future.result())
                except BrokenProcessPool:
                    lost.append((match_id, worker_id))
                except Exception as exc:
                    if is_outage(exc):  # queued: re-dispatched when stale; running: swept at lease end
                        log.warning("match %s: run_match gave up, the database is unreachable (%s)",
                                    match_id, type(exc).__name__)
                    else:
                        log.exception("match %s: run_match raised", match_id)
            broken = bool(lost) or self._broken
            for version_id, pending in list(self._qualifying.items()):
                if pending is None or not pending.done():
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
        for match_id, worker_id in lost:
            self._hand_back(match_id, worker_id)
        self._fill()
        return finished

    def _hand_back(self, match_id: int, worker_id: str) -> None:
        """Its process is gone: end its lease now, so the next sweep requeues it (one fault)."""
        log.warning("match %s: its pool process died; handing it back to the sweeper", match_id)
        try:
            hand_back(engine_for(self.db_url), match_id, worker_id)
        except Exception as exc:  # the lease runs out by itself all the same
            if not is_outage(exc):
                raise
            log.warning("match %s: could not hand it back (%s); its lease runs out",
                        match_id, type(exc).__name__)

    def in_flight(self) -> int:
        """Matches dispatched here and not yet collected (waiting or playing)."""
        return len(self._in_flight)

    def _restart(self) -> None:
        with self._lock:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = self._new_pool()
            self._generation += 1
            self._busy = 0
            self._broken = False

    def close(self) -> None:
        """Wait for the matches in flight and those waiting, then stop the processes."""
        while True:
            with self._lock:
                futures = [f for f in (*self._in_flight.values(), *self._qualifying.values())
                           if f is not None and not f.done()]
                idle = not futures and not self._waiting
            if idle:
                break
            for future in futures:
                with contextlib.suppress(BaseException):  # cancelled: collected below
                    future.exception()
            self.collect()
        self._pool.shutdown(wait=True)
        self.collect()

    def terminate(self, grace: float = TERMINATE_GRACE_S) -> None:
        """Stop now (an interrupt): cancel the matches not started, SIGTERM the processes (each
        stops its match's bots as it unwinds), SIGKILL any still alive after `grace` seconds."""
        with self._lock:
            self._waiting.clear()  # nothing more is given to the processes
            self._busy = self.workers
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
