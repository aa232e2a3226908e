"""The Celery app: tasks ``arena.play_match``, ``arena.qualify_version``; the matchmaker and the
sweeper functions.

Configured from the environment when this module is imported:

* ``BROKER_URL`` — the Redis broker (default ``redis://127.0.0.1:6379/0``);
* ``DATABASE_URL`` — the ladder database (see ``ladder.db``);
* ``ARENA_QUEUE`` — the match queue's name (default ``arena``); ``arena worker`` consumes it;
* ``ARENA_LEASE_SECONDS``, ``ARENA_QUEUE_DEPTH`` — see ``workers.match_execution`` and
  ``workers.matchmaker``; ``ARENA_BEAT_SECONDS`` — how often ``arena beat`` runs the sweeper and
  the matchmaker;
* ``ARENA_METRICS_PORT`` — if set, the worker's main process serves the merged multiprocess
  metrics there (``PROMETHEUS_MULTIPROC_DIR`` must be set; ``arena worker`` sets both up).

Control work is not a Celery task: :func:`sweep_leases` and :func:`matchmake` are run inline by
``arena beat`` in a process of its own (``workers.control``), so no backlog of matches can delay
them. (As tasks they waited behind matches for a free worker process and expired: a killed
worker's match sat in ``running`` minutes past its lease.)

Delivery: a match task is acknowledged only after it ran (``task_acks_late``) and is given back
to the broker if its pool process dies (``task_reject_on_worker_lost``); each process reserves
one task at a time (prefetch 1). A task that stays unacknowledged because its whole worker died
comes back after the broker's visibility timeout, set to :data:`VISIBILITY_TIMEOUT_S`, above
the hardest match time limit; long before that the sweeper has requeued the match (its lease
ran out) and another worker played it, so the late copy finds it done and does nothing.

Priorities (``workers/README.md``, "Platform faults"): a match the sweeper requeued (its worker
died) is sent at :data:`RETRY_PRIORITY`, every other task (a new match, a qualification) at
:data:`NEW_PRIORITY`. The Redis transport keeps one list per priority step (``priority_steps``,
``0`` the most urgent: the plain queue name) and a worker's BRPOP names them most urgent first, so
a requeued match is the next one any free worker process takes, however many new matches are
queued.

A pool child that dies mid-match (SIGKILL, the OOM killer) is seen by its worker's main process
at once: billiard's pool upkeep (every :data:`MAINTAIN_POOL_S` in :class:`ArenaTaskPool`, 5 s in
billiard) reports the job lost after ``worker_lost_wait`` (:data:`LOST_WAIT_S`; the default 10 s
held the dead child's prefetch slot idle that long) and :class:`PlayRequest`
requeues the match it held right then (``ladder.match_queue.requeue_lost``: the same platform
fault as an expired lease) and sends it at :data:`RETRY_PRIORITY`, instead of leaving it to the
sweeper after the lease; it does so before the dead child's slot is freed (waiting up to
:data:`REQUEUE_WAIT_S`), so that the slot's next message is that match. A worker killed whole
(main process too) has nobody to say so: its matches wait for their leases.

A worker killed whole may also have *reserved* a match's message (taken it off the queue, not
yet claimed the match): the broker keeps such a message unacknowledged until the visibility
timeout (an hour) and its dispatch marker says it is on its way, so the match would sit queued
for the marker's 10 minutes. The sweeper reads the Redis transport's unacknowledged messages
(:meth:`CeleryDispatcher.reserved_unclaimed`): a play message reserved longer ago than
:data:`RESCUE_AFTER_S` (a lease, if shorter) whose match is still queued was taken by a worker
that is gone, and the match is sent again at once (each such message once).

Dispatching also sets a marker key in Redis (``arena:<queue>:sent:<id>``, 10 minutes). The
sweeper re-dispatches matches queued for a while whose marker is gone: after a broker restart
both the messages and the markers are lost, and those matches would otherwise wait forever (a
duplicate message is harmless: the claim lets one run through).

Refill on completion: when a match task ends (recorded, failed, or found done) the worker pushes
its id on the Redis list ``arena:<queue>:done`` (:meth:`CeleryDispatcher.signal_done`); ``arena
beat`` waits on that list between its timed passes (:func:`wait_for_completion`) and runs the
matchmaker at once, so the queue is topped up as fast as the workers empty it (see
``workers.control``). The worker also pushes when it has *claimed* a match: a refill woken by
a completion alone reads the queue before the worker takes its next match, counts that match
as still queued, and leaves one queued match fewer than busy workers (with
``ARENA_QUEUE_DEPTH=1`` and one worker the queue stood empty during every match, and each
match waited for a refill). Woken after the claim, the matchmaker sees the queue as it is and
keeps at least one queued match per running one (``workers.matchmaker.queue_target``).

Qualification (``workers.qualification``): the sweeper also sends ``arena.qualify_version``
(on the match queue: its games are matches) for every version due — pending, or running with a
lease its worker stopped renewing — at most once per lease plus :data:`QUALIFY_MARKER_MARGIN_S`
seconds (a marker key
``arena:<queue>:qualify:<id>``); a duplicate finds the version claimed and does nothing.

Database outages (``ladder.db.is_outage``): a match task that cannot reach the database is
retried by Celery (:data:`PLAY_RETRY_MAX` times, countdown 1, 2, 4, 8, then every
:data:`PLAY_RETRY_CAP_S` seconds); each retry cuts the match's marker down to the countdown plus
:data:`RETRY_MARKER_MARGIN_S`, so a retry that is lost or stuck behind a long match is re-sent by
the sweeper soon after. When the retries run out the marker is deleted: the next sweep that
reaches the database re-sends the match. The claim lets exactly one delivery play it and
recording is idempotent, so no duplicate counts twice. The sweeper and the matchmaker skip a
pass when the database is unreachable (a warning, no traceback) and catch up on the next one.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import random
import socket
import threading
import time
from typing import Any, Final, cast

import redis
import sqlalchemy as sa
from billiard.einfo import ExceptionWithTraceback  # type: ignore[import-untyped]
from billiard.exceptions import WorkerLostError  # type: ignore[import-untyped]
from celery import Celery  # type: ignore[import-untyped]
from celery.concurrency.asynpool import AsynPool  # type: ignore[import-untyped]
from celery.concurrency.prefork import TaskPool  # type: ignore[import-untyped]
from celery.signals import (  # type: ignore[import-untyped]
    worker_init,
    worker_process_init,
    worker_process_shutdown,
)
from celery.worker.control import inspect_command  # type: ignore[import-untyped]
from celery.worker.request import Request  # type: ignore[import-untyped]
from sqlalchemy import Engine
from sqlalchemy.engine import make_url

from ladder.db import database_url, is_outage
from ladder.match_queue import requeue_lost
from ladder.schema import matches
from referee import settings
from workers import metrics
from workers.match_execution import (
    MAX_MATCH_SECONDS,
    engine_for,
    lease_seconds,
    reset_after_fork,
    run_match,
)
from workers.matchmaker import fill_queues
from workers.qualification import dispatch_due, qualify_version
from workers.sweeper import queued_before, retried_matches, sweep

__all__ = [
    "BROKER_ENV",
    "DEFAULT_BROKER_URL",
    "LOST_WAIT_S",
    "MAINTAIN_POOL_S",
    "NEW_PRIORITY",
    "PLAY_RETRY_CAP_S",
    "PLAY_RETRY_MAX",
    "REQUEUE_WAIT_S",
    "RESCUE_AFTER_S",
    "RETRY_PRIORITY",
    "VISIBILITY_TIMEOUT_S",
    "ArenaTaskPool",
    "CeleryDispatcher",
    "PlayRequest",
    "app",
    "arena_database",
    "broker_url",
    "database_label",
    "dispatch",
    "dispatch_retry",
    "dispatcher",
    "ensure_dispatched",
    "make_app",
    "match_queue",
    "play_match",
    "qualify",
    "recover_lost_match",
    "resend_lost_reservations",
    "resend_vanished_retries",
    "retry_countdown",
    "wait_for_completion",
]

log = logging.getLogger(__name__)

BROKER_ENV: Final = "BROKER_URL"
DEFAULT_BROKER_URL: Final = "redis://127.0.0.1:6379/0"
#: the broker redelivers an unacknowledged task after this long: twice the match time limit
VISIBILITY_TIMEOUT_S: Final = int(2 * MAX_MATCH_SECONDS)
#: how long a dispatch marker lives; matches queued longer than STALE_S without one are re-sent
MARKER_TTL_S: Final = 600
STALE_S: Final = 30.0
#: a match task that cannot reach the database is retried this many times ...
PLAY_RETRY_MAX: Final = 20
#: ... after 1, 2, 4, 8 s, then every this many seconds (about 3 minutes in all)
PLAY_RETRY_CAP_S: Final = 10.0
#: a retried match's marker lives the retry's countdown plus this
RETRY_MARKER_MARGIN_S: Final = 10
#: socket timeouts of the marker connection (well above one BLPOP of at most a second)
REDIS_TIMEOUT_S: Final = 10.0
#: the completion list expires this long after its last push (nobody is waiting: no beat runs)
DONE_TTL_S: Final = 60
#: a version due for qualification is sent again after this long past the lease if still due
#: (its task was lost, or its worker died and its lease ran out)
QUALIFY_MARKER_MARGIN_S: Final = 15
#: the Redis transport's priority lists: 0 (the queue's own name) is taken first
PRIORITY_STEPS: Final = (0, 3, 6, 9)
#: a match put back in the queue after a platform fault: ahead of everything not yet started
RETRY_PRIORITY: Final = 0
#: a new match, a qualification
NEW_PRIORITY: Final = 6
#: the Redis transport's bookkeeping of messages taken and not acknowledged (kombu's defaults)
UNACKED_KEY: Final = "unacked"
UNACKED_INDEX_KEY: Final = "unacked_index"
#: between a queue's name and a priority step in the name of that priority's list (kombu's)
TRANSPORT_SEP: Final = "\x06\x16"
#: seconds billiard waits for a dead pool child's result before reporting its job lost (our
#: tasks store no result: nothing to wait for)
LOST_WAIT_S: Final = 1.0
#: how often a worker's main process looks after its pool, the lost-job check among it
#: (billiard's own 5 s reported a dead child's job 1 to 6 s after its death)
MAINTAIN_POOL_S: Final = 0.5
#: how long the main process waits for a dead child's match to be requeued and sent ahead
#: before it frees the child's slot (see :class:`PlayRequest`); past it the requeue goes on
#: in its thread, and the slot may take a new match first
REQUEUE_WAIT_S: Final = 2.0
#: a play message taken off the queue this long ago whose match is still queued was taken by a
#: worker that is gone (a live one takes a message only for a free pool process, and claims the
#: match at once), so the sweeper sends it again; at most a lease (a false alarm is a
#: duplicate message, which the claim turns away)
RESCUE_AFTER_S: Final = 3.0


class _ArenaAsynPool(AsynPool):  # type: ignore[misc]
    """Celery's prefork pool, looked after every :data:`MAINTAIN_POOL_S`."""

    @property
    def timers(self) -> dict[Any, float]:
        """The pool's periodic upkeep (restarting dead processes, reporting lost jobs)."""
        return {self.maintain_pool: MAINTAIN_POOL_S}


class ArenaTaskPool(TaskPool):  # type: ignore[misc]
    """The ``worker_pool`` of ``arena worker``: prefork, its lost jobs reported promptly (their
    matches requeued by :class:`PlayRequest`)."""

    Pool = _ArenaAsynPool


def broker_url() -> str:
    """``$BROKER_URL`` or the local Redis."""
    return settings.current().broker_url or DEFAULT_BROKER_URL


def match_queue() -> str:
    """The queue match tasks go to."""
    return settings.current().queue


def make_app(broker: str | None = None, queue: str | None = None) -> Celery:
    """A Celery app with Arena's settings (the module's `app` is this for the environment)."""
    queue = queue or match_queue()
    celery = Celery("arena", broker=broker or broker_url())
    celery.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        broker_transport_options={
            "visibility_timeout": VISIBILITY_TIMEOUT_S,
            # stated, not left to the default: RETRY_PRIORITY and NEW_PRIORITY are two of them
            "priority_steps": list(PRIORITY_STEPS),
        },
        # a task sent without a priority (an older sender) waits with the new matches
        task_default_priority=NEW_PRIORITY,
        broker_connection_retry_on_startup=True,
        task_default_queue=queue,
        task_serializer="json",
        accept_content=["json"],
        task_ignore_result=True,
        # run_match stops a match at MAX_MATCH_SECONDS itself; this is the backstop for a hang
        task_time_limit=int(MAX_MATCH_SECONDS + 300),
        worker_lost_wait=LOST_WAIT_S,
        worker_pool="workers.celery_app:ArenaTaskPool",
        worker_max_tasks_per_child=1000,
    )
    return celery


app = make_app()


class CeleryDispatcher:
    """Sends ``arena.play_match`` tasks; the Celery side of ``workers.season.Dispatcher``.

    Each dispatch also sets a marker key in the broker's Redis (``arena:<queue>:sent:<id>``,
    :data:`MARKER_TTL_S`); :meth:`ensure_dispatched` re-sends a match whose marker is gone.
    """

    def __init__(self, celery: Celery | None = None, queue: str | None = None,
                 broker: str | None = None) -> None:
        """Send through `celery` (default: this module's app) to `queue` on `broker`."""
        self.celery = celery or app
        self.queue = queue or match_queue()
        url = broker or broker_url()
        # timeouts: the beat blocks on this connection between passes (wait_done); a broker
        # gone silent (a partition) must raise, not hang the sweeper for good
        self._markers = (
            redis.Redis.from_url(url, socket_timeout=REDIS_TIMEOUT_S, socket_connect_timeout=REDIS_TIMEOUT_S)
            if url.startswith(("redis://", "rediss://"))
            else None
        )

    def _marker(self, match_id: int) -> str:
        return f"arena:{self.queue}:sent:{match_id}"

    def dispatch(self, match_id: int, *, priority: int = NEW_PRIORITY) -> None:
        """Send the task (at `priority`, see :data:`RETRY_PRIORITY`) and mark it sent."""
        self.celery.send_task(
            "arena.play_match", args=[match_id], queue=self.queue, priority=priority
        )
        if self._markers is not None:
            self._markers.set(self._marker(match_id), 1, ex=MARKER_TTL_S)

    def dispatch_retry(self, match_id: int) -> None:
        """Send a match the sweeper requeued after a platform fault, ahead of the new ones."""
        self.dispatch(match_id, priority=RETRY_PRIORITY)

    def expect_retry(self, match_id: int, countdown: float) -> None:
        """A retry of the match's task is due in `countdown` s: keep the marker only that long
        (plus :data:`RETRY_MARKER_MARGIN_S`), so a retry that never runs is re-sent soon."""
        if self._markers is not None:
            self._markers.set(
                self._marker(match_id), 1, ex=int(countdown) + RETRY_MARKER_MARGIN_S
            )

    def forget(self, match_id: int) -> None:
        """Drop the match's marker: the next sweep re-sends it if it is still queued."""
        if self._markers is not None:
            self._markers.delete(self._marker(match_id))

    def dispatch_qualification(self, version_id: int) -> None:
        """Send ``arena.qualify_version`` unless it was sent within the last lease
        (``$ARENA_LEASE_SECONDS``) plus :data:`QUALIFY_MARKER_MARGIN_S` seconds."""
        ttl = int(lease_seconds()) + QUALIFY_MARKER_MARGIN_S
        if self._markers is not None and not self._markers.set(
            f"arena:{self.queue}:qualify:{version_id}", 1, ex=ttl, nx=True
        ):
            return
        self.celery.send_task(
            "arena.qualify_version", args=[version_id], queue=self.queue, priority=NEW_PRIORITY
        )

    def done_key(self) -> str:
        """The Redis list finished matches are pushed on (the beat waits on it)."""
        return f"arena:{self.queue}:done"

    def signal_done(self, match_id: int) -> None:
        """Tell the beat a match was taken or ended, so its matchmaker refills the queue now."""
        if self._markers is not None:
            with self._markers.pipeline() as pipe:
                pipe.rpush(self.done_key(), match_id)
                pipe.expire(self.done_key(), DONE_TTL_S)
                pipe.execute()

    def wait_done(self, timeout: float) -> bool:
        """Wait up to `timeout` s for a finished match; True if one or more ended (all are
        taken off the list: one refill serves them all)."""
        if self._markers is None:
            time.sleep(timeout)
            return False
        got = self._markers.blpop([self.done_key()], timeout=max(0.05, timeout))
        if got is None:
            return False
        self._markers.delete(self.done_key())
        return True

    def reserved_unclaimed(self, older_than: float) -> dict[int, int]:
        """Matches whose ``arena.play_match`` message on this queue a worker took off the queue
        more than `older_than` seconds ago and never acknowledged, each with its priority; each
        message is reported once (the caller re-sends the queued ones among them).

        Read from the Redis transport's own bookkeeping of unacknowledged messages (the hash
        ``unacked``, the sorted set ``unacked_index`` of when each was taken)."""
        if self._markers is None:
            return {}
        tags = cast(
            list[bytes], self._markers.zrangebyscore(UNACKED_INDEX_KEY, "-inf", time.time() - older_than)
        )
        found: dict[int, int] = {}
        for tag, raw in zip(tags, self._markers.hmget(UNACKED_KEY, tags) if tags else [], strict=True):
            if raw is None:
                continue
            try:
                message, _exchange, routing_key = json.loads(raw)
                if routing_key != self.queue or message["headers"]["task"] != "arena.play_match":
                    continue
                match_id = int(json.loads(base64.b64decode(message["body"]))[0][0])
                priority = int(message["properties"].get("priority", NEW_PRIORITY))
            except (ValueError, KeyError, TypeError, IndexError):
                continue
            key = f"arena:{self.queue}:rescued:{tag.decode()}"
            if self._markers.set(key, 1, ex=VISIBILITY_TIMEOUT_S, nx=True):
                found[match_id] = priority
        return found

    def in_flight(self) -> set[int]:
        """Matches with an ``arena.play_match`` message on this queue now: waiting in one of its
        priority lists, or taken by a worker and not yet acknowledged (the Redis transport's
        ``unacked``). A message a worker popped and died before recording is in neither."""
        if self._markers is None:
            return set()
        found: set[int] = set()
        raws: list[tuple[bytes, bool]] = []
        for step in PRIORITY_STEPS:  # the transport's lists: the queue, then queue + sep + step
            name = self.queue if step == 0 else f"{self.queue}{TRANSPORT_SEP}{step}"
            raws += [(raw, False) for raw in cast(list[bytes], self._markers.lrange(name, 0, -1))]
        raws += [(raw, True) for raw in cast(list[bytes], self._markers.hvals(UNACKED_KEY))]
        for raw, taken in raws:
            try:
                message = json.loads(raw)
                if taken:
                    message, _exchange, routing_key = message
                    if routing_key != self.queue:
                        continue
                if message["headers"]["task"] == "arena.play_match":
                    found.add(int(json.loads(base64.b64decode(message["body"]))[0][0]))
            except (ValueError, KeyError, TypeError, IndexError):
                continue
        return found

    def sent_ago(self, match_id: int) -> float | None:
        """Seconds since the match was last sent (its marker's age); None without a marker."""
        if self._markers is None:
            return None
        ttl = int(self._markers.ttl(self._marker(match_id)))
        return None if ttl < 0 else float(MARKER_TTL_S - ttl)

    def ensure_dispatched(self, match_id: int, *, retry: bool = False) -> None:
        """Re-send a queued match if its marker is gone (lost with a restarted broker); `retry`:
        it was requeued after a platform fault (sent at :data:`RETRY_PRIORITY`)."""
        if self._markers is None or not self._markers.exists(self._marker(match_id)):
            log.warning("match %s: queued with no message in flight; dispatching it again", match_id)
            self.dispatch(match_id, priority=RETRY_PRIORITY if retry else NEW_PRIORITY)

    def pump(self) -> None:
        """Nothing to do: workers report to the database."""

    def close(self) -> None:
        """Close the marker connection."""
        if self._markers is not None:
            self._markers.close()


_dispatcher: CeleryDispatcher | None = None
_dispatcher_pid = 0


def dispatcher() -> CeleryDispatcher:
    """This process's dispatcher for the environment's broker and queue."""
    global _dispatcher, _dispatcher_pid
    if _dispatcher is None or _dispatcher_pid != os.getpid():
        _dispatcher = CeleryDispatcher()
        _dispatcher_pid = os.getpid()
    return _dispatcher


def dispatch(match_id: int) -> None:
    """Send ``arena.play_match(match_id)`` with this process's dispatcher."""
    dispatcher().dispatch(match_id)


def dispatch_retry(match_id: int) -> None:
    """Send a match requeued after a platform fault, ahead of the new ones."""
    dispatcher().dispatch_retry(match_id)


def ensure_dispatched(match_id: int, *, retry: bool = False) -> None:
    """Re-send a queued match whose dispatch marker is gone."""
    dispatcher().ensure_dispatched(match_id, retry=retry)


def play_match(match_id: int) -> dict[str, Any]:
    """Run the match function (idempotent) and report what it did.

    Raises the database's error if it cannot be reached (see ``run_match``); the task
    ``arena.play_match`` (:func:`_play_match_task`) retries it.
    """
    run = run_match(database_url(), match_id, on_claimed=lambda: _wake_beat(match_id, "start"))
    log.info("match %s: %s %s (%.2f s)", match_id, run.status, run.detail, run.seconds)
    if run.status != "not_claimed":
        _wake_beat(match_id, "end")
    return {"match_id": run.match_id, "status": run.status, "detail": run.detail}


def _wake_beat(match_id: int, what: str) -> None:
    """Tell the beat the queue changed (a match was taken or ended), so it refills now."""
    try:  # best effort: without it the beat refills on its timer
        dispatcher().signal_done(match_id)
    except redis.RedisError:
        log.warning("match %s: could not signal its %s to the beat", match_id, what, exc_info=True)


def retry_countdown(retries: int) -> float:
    """Seconds before retry number `retries` + 1: 1, 2, 4, 8, then :data:`PLAY_RETRY_CAP_S`,
    with up to 10 % jitter so a burst of failed tasks does not come back in one burst."""
    base = min(PLAY_RETRY_CAP_S, 2.0**retries)
    return base * (1.0 + random.uniform(0.0, 0.1))


def _play_match_task(task: Any, match_id: int) -> dict[str, Any]:
    """Task ``arena.play_match``: :func:`play_match`, retried while the database is away."""
    try:
        return play_match(match_id)
    except Exception as exc:
        if not is_outage(exc):
            raise
        retries = int(task.request.retries or 0)
        if retries >= PLAY_RETRY_MAX:
            log.error(
                "match %s: the database stayed unreachable through %d retries (%s); giving up "
                "this task; the sweeper re-sends the match once the database answers",
                match_id, retries, exc,
            )
            dispatcher().forget(match_id)
            return {"match_id": match_id, "status": "db_unavailable", "detail": str(exc)[:500]}
        countdown = retry_countdown(retries)
        log.warning(
            "match %s: the database is unreachable (%s); retry %d/%d in %.1f s",
            match_id, type(exc).__name__, retries + 1, PLAY_RETRY_MAX, countdown,
        )
        try:
            dispatcher().expect_retry(match_id, countdown)
        except redis.RedisError:  # best effort: the full-length marker only delays a re-send
            log.warning("match %s: could not shorten its dispatch marker", match_id, exc_info=True)
        raise task.retry(exc=exc, countdown=countdown, max_retries=PLAY_RETRY_MAX) from exc


def resend_lost_reservations(engine: Engine) -> list[int]:
    """Send again the still-queued matches whose message a worker took more than
    :data:`RESCUE_AFTER_S` ago (a lease, if shorter) and never acknowledged
    (:meth:`CeleryDispatcher.reserved_unclaimed`): that worker is gone."""
    reserved = dispatcher().reserved_unclaimed(min(lease_seconds(), RESCUE_AFTER_S))
    if not reserved:
        return []
    with engine.connect() as conn:
        queued = set(conn.execute(
            sa.select(matches.c.id).where(matches.c.id.in_(list(reserved)), matches.c.status == "queued")
        ).scalars())
    retried = set(retried_matches(engine, 0.0))
    for match_id in sorted(queued):
        log.warning("match %s: its message was taken by a worker that is gone; sending it again", match_id)
        # a match requeued after a fault goes ahead, whichever of its messages was lost (the
        # one taken may be its first, sent at the new matches' priority)
        priority = RETRY_PRIORITY if match_id in retried else min(reserved[match_id], NEW_PRIORITY)
        dispatcher().dispatch(match_id, priority=priority)
    return sorted(queued)


def resend_vanished_retries(engine: Engine) -> list[int]:
    """Send again the matches requeued after a platform fault that have no message anywhere
    (none queued, none taken: :meth:`CeleryDispatcher.in_flight`) though one was sent more than
    :data:`RESCUE_AFTER_S` ago. The Redis transport pops a message before it records it as
    taken: a worker frozen or killed in between (waiting for work, it gets the next message
    the moment it is sent, and the next is a requeued match) takes the message with it, and
    its dispatch marker would keep the match waiting for the marker's 10 minutes."""
    retried = retried_matches(engine, 0.0)
    if not retried:
        return []
    flying = dispatcher().in_flight()
    sent: list[int] = []
    for match_id in retried:
        ago = dispatcher().sent_ago(match_id)
        if match_id in flying or (ago is not None and ago < RESCUE_AFTER_S):
            continue
        log.warning("match %s: requeued after a platform fault, but no message for it is queued or "
                    "taken; sending it again", match_id)
        dispatcher().dispatch_retry(match_id)
        sent.append(match_id)
    return sent


def wait_for_completion(timeout: float) -> bool:
    """Wait up to `timeout` s for a match task to end; True if one did (``arena beat``'s wake)."""
    return dispatcher().wait_done(timeout)


def qualify(version_id: int) -> dict[str, Any]:
    """Task ``arena.qualify_version``: play a version's qualification games (idempotent: the
    claim lets one worker through). While the database is away it gives up; the version stays
    due and the sweep sends it again."""
    try:
        run = qualify_version(database_url(), version_id)
    except Exception as exc:
        if not is_outage(exc):
            raise
        log.warning("version %s: the database is unreachable (%s); the sweep sends it again",
                    version_id, type(exc).__name__)
        return {"version_id": version_id, "status": "db_unavailable"}
    log.info("version %s: qualification %s %s", version_id, run.status, run.reason)
    return {"version_id": version_id, "status": run.status, "reason": run.reason}


def matchmake() -> list[int]:
    """Top up every ladder's queue (nothing while the database is away); ``arena beat`` runs it."""
    try:
        return fill_queues(engine_for(database_url()), dispatch)
    except Exception as exc:
        if not is_outage(exc):
            raise
        log.warning("matchmaker: the database is unreachable (%s); trying again next beat", exc)
        return []


def sweep_leases() -> dict[str, list[int]]:
    """Run by ``arena beat``: requeue expired leases, re-send matches whose message was lost
    (nothing while the database is away)."""
    try:
        engine = engine_for(database_url())
        result = sweep(engine, dispatch_retry)
        resend_lost_reservations(engine)
        resend_vanished_retries(engine)
        retried = set(retried_matches(engine, STALE_S))
        for match_id in queued_before(engine, STALE_S):
            ensure_dispatched(match_id, retry=match_id in retried)
        dispatch_due(engine, dispatcher().dispatch_qualification)
    except Exception as exc:
        if not is_outage(exc):
            raise
        log.warning("sweeper: the database is unreachable (%s); trying again next beat", exc)
        return {"requeued": [], "parked": []}
    return {"requeued": list(result.requeued), "parked": list(result.parked)}


class PlayRequest(Request):  # type: ignore[misc]
    """The request of ``arena.play_match`` in a worker's main process: when the pool child
    playing it dies, requeue its match at once (see the module's docstring)."""

    def on_failure(self, exc_info: Any, send_failed_event: bool = True, return_ok: bool = False) -> Any:
        """Celery's handling (the message is rejected and redelivered), after
        :func:`recover_lost_match` for a lost pool child."""
        exc = exc_info.exception
        if isinstance(exc, ExceptionWithTraceback):
            exc = exc.exc
        if isinstance(exc, (WorkerLostError, SystemExit)) and self.worker_pid and self.args:
            # a thread: the main process's event loop must not wait on the database for long.
            # But a little: Celery's handling below gives the dead child's message back and so
            # frees its slot, and the worker at once takes the next message off the queue. Sent
            # first, the requeued match is that message; otherwise a new match was (the fault
            # test saw one new match start ahead of each requeued one)
            recovering = threading.Thread(
                target=recover_lost_match, args=(int(self.args[0]), int(self.worker_pid)),
                name="arena-lost-match", daemon=True,
            )
            recovering.start()
            recovering.join(REQUEUE_WAIT_S)
        return super().on_failure(exc_info, send_failed_event=send_failed_event, return_ok=return_ok)


def recover_lost_match(match_id: int, pid: int) -> None:
    """Pool child `pid` of this host died playing match `match_id`: requeue the match now (if
    that child still held it) and send it ahead of the new ones. Best effort: if the database
    or the broker is away, the sweeper does it when the lease runs out."""
    worker_id = f"{socket.gethostname()}:{pid}"
    try:
        swept = requeue_lost(engine_for(database_url()), match_id, worker_id)
        for requeued in swept.requeued:
            log.warning("match %s: its pool process %s died; requeued and sent again", requeued, pid)
            metrics.MATCHES_REQUEUED.inc()
            dispatcher().dispatch_retry(requeued)
        for parked in swept.parked:
            log.error("match %s: parked after too many platform faults", parked)
    except Exception:
        log.warning("match %s: could not requeue it after its pool process died; the sweeper "
                    "will, once its lease runs out", match_id, exc_info=True)


play_match_task = app.task(name="arena.play_match", bind=True, Request=PlayRequest)(_play_match_task)
qualify_task = app.task(name="arena.qualify_version")(qualify)


def database_label(url: str | None = None) -> str:
    """The database a URL points at, password hidden: what ``arena_database`` replies."""
    return make_url(database_url(url)).render_as_string(hide_password=True)


@inspect_command()  # type: ignore[untyped-decorator]
def arena_database(_state: Any) -> dict[str, str]:
    """Remote control command ``arena_database``: the database (and queue) this worker plays
    on, so ``arena demo`` uses only workers of its own database."""
    return {"database": database_label(), "queue": match_queue()}


@worker_process_init.connect  # type: ignore[untyped-decorator]
def _after_fork(**_kwargs: Any) -> None:
    # engines, pooled connections and gRPC channels must never cross a fork
    reset_after_fork()


@worker_process_shutdown.connect  # type: ignore[untyped-decorator]
def _on_process_exit(**_kwargs: Any) -> None:
    metrics.mark_process_dead(os.getpid())


@worker_init.connect  # type: ignore[untyped-decorator]
def _on_worker_start(**_kwargs: Any) -> None:
    port = settings.current().metrics_port
    if port is not None:
        metrics.serve_metrics(port)
