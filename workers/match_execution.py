"""The one match function: :func:`run_match`, called by Celery tasks and by the local pool.

::

    claim (queued -> running, exactly once; a lease starts)
      -> load the ladder's game, time control and the seated bot versions
      -> execute (an executor plays the game; a thread renews the lease meanwhile)
      -> record_result: result + replay + rating changes in one idempotent transaction
      -> metrics

Running it again for the same match changes nothing: the claim fails (the match is running
or done) and it returns. A worker that dies mid-match stops renewing its lease; the sweeper
(``workers.sweeper``) requeues the match and it is played again from scratch (same seed, same
built-in bots: same game). A worker that loses its lease while alive (say, a long pause) stops
at the next decision; if it finished anyway, recording is idempotent, so the match still
counts once.

Database outages (``ladder.db.is_outage``: the server restarting, refusing connections,
dropping them): before the claim nothing has happened, and :func:`run_match` raises the error
for its caller to call again later (the Celery task retries with a backoff; the local pool's
season re-dispatches the still-queued match). After the claim it holds the match and retries
the database step itself (loading the match, recording the result, marking it failed) for up to
:data:`DB_RETRY_SECONDS`, renewing the lease meanwhile, so a finished game is recorded once the
database is back, not played again. Only an outage longer than that makes it raise with the
match still running: its lease then runs out and the sweeper requeues it (one attempt).

Database engines are per process and created on first use (:func:`engine_for`); after a fork
call :func:`reset_after_fork` (the Celery app does, on ``worker_process_init``).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final, Literal, TypeVar

import sqlalchemy as sa
from sqlalchemy import Connection, Engine

from ladder.db import create_engine, database_url, is_outage, write_transaction
from ladder.live import LiveFeed, channel_for
from ladder.match_queue import claim_match, renew_lease
from ladder.recording import record_result
from ladder.schema import bot_versions, bots, ladders, matches
from referee import settings
from referee.core.game import canonical_json
from referee.games import game_class
from referee.replay import ReplayError
from referee.replay import encode as encode_replay
from workers import metrics
from workers.bot_commands import BotCommandError, parse_command
from workers.bot_files import files_dir_for
from workers.executor import (
    ExecutorUnavailable,
    LadderMatchSpec,
    LadderTimeControl,
    MatchAborted,
    MatchExecutor,
    SeatSpec,
    executor_for,
    reset_referee_executor,
    set_live_feed,
)
from workers.lease import HandBack, LeaseThread, hand_back

__all__ = [
    "DB_RETRY_SECONDS",
    "DEFAULT_LEASE_SECONDS",
    "LEASE_ENV",
    "MAX_MATCH_SECONDS",
    "MatchRun",
    "default_worker_id",
    "engine_for",
    "lease_seconds",
    "load_spec",
    "mark_failed",
    "reset_after_fork",
    "run_match",
    "seat_specs",
]

log = logging.getLogger(__name__)

LEASE_ENV: Final = "ARENA_LEASE_SECONDS"
#: a running match's lease; renewed every third of it, so two missed renewals are survivable
DEFAULT_LEASE_SECONDS: Final = 30.0
#: the hardest time limit of any match: past it the match is stopped and marked failed. The
#: Celery broker's visibility timeout is set well above it (see workers.celery_app).
MAX_MATCH_SECONDS: Final = 1800.0

#: how long a claimed match waits for an unreachable database (retrying) before giving up
DB_RETRY_SECONDS: Final = 60.0

RunStatus = Literal["recorded", "already_recorded", "not_claimed", "lease_lost", "failed"]


@dataclass(frozen=True, slots=True)
class MatchRun:
    """What one :func:`run_match` call did.

    `status`: ``recorded`` (this call recorded the result), ``already_recorded`` (the match was
    done before), ``not_claimed`` (someone else holds it, or it failed), ``lease_lost`` (this
    call was stopped because its lease was taken away), ``failed`` (this call gave it up).
    """

    match_id: int
    worker_id: str
    status: RunStatus
    detail: str = ""
    seconds: float = 0.0


def lease_seconds() -> float:
    """The lease length: ``$ARENA_LEASE_SECONDS`` or :data:`DEFAULT_LEASE_SECONDS`."""
    return settings.current().lease_seconds


def default_worker_id() -> str:
    """``host:pid``, unique among live workers."""
    return f"{socket.gethostname()}:{os.getpid()}"


_engines: dict[str, Engine] = {}
_engines_pid = os.getpid()
_engines_lock = threading.Lock()


def engine_for(db_url: str) -> Engine:
    """This process's engine for `db_url` (created on first use, recreated after a fork)."""
    global _engines_pid
    url = database_url(db_url)
    with _engines_lock:
        if _engines_pid != os.getpid():  # forked without reset_after_fork: drop, don't close
            _engines.clear()
            _engines_pid = os.getpid()
        engine = _engines.get(url)
        if engine is None:
            engine = _engines[url] = create_engine(url)
        return engine


def reset_after_fork() -> None:
    """Forget engines and gRPC channels inherited from the parent process (never close them:
    they are the parent's)."""
    global _engines_pid
    with _engines_lock:
        for engine in _engines.values():
            engine.dispose(close=False)
        _engines.clear()
        _engines_pid = os.getpid()
    reset_referee_executor()


class _LeaseKeeper(LeaseThread):
    """Renews a match's lease from a background thread; tells the match when to stop."""

    def __init__(
        self, engine: Engine, match_id: int, worker_id: str, lease: float, deadline: float
    ) -> None:
        super().__init__(lease, deadline, name=f"lease-{match_id}")
        self._engine = engine
        self._match_id = match_id
        self._worker_id = worker_id
        self._last_renewed = time.monotonic()

    def _renew(self) -> bool:
        try:
            held = renew_lease(self._engine, self._match_id, self._worker_id, self._lease)
        except Exception as exc:  # a database blip: try again, give up once the lease has run out
            if is_outage(exc):
                log.warning(
                    "match %s: renewing the lease failed, the database is unreachable (%s)",
                    self._match_id, type(exc).__name__,
                )
            else:
                log.warning("match %s: renewing the lease failed", self._match_id, exc_info=True)
            held = time.monotonic() - self._last_renewed < self._lease
        else:
            self._last_renewed = time.monotonic()
        if not held:
            log.warning("match %s: %s lost its lease", self._match_id, self._worker_id)
        return held


def seat_specs(conn: Connection, version_ids: Sequence[int]) -> tuple[SeatSpec, ...]:
    """The seats of bot versions `version_ids`, in seat order (also used by qualification
    games, ``workers.qualification``). Raises LookupError for an unknown version."""
    versions = {
        v.id: v
        for v in conn.execute(
            sa.select(
                bot_versions.c.id,
                bot_versions.c.version,
                bot_versions.c.command,
                bot_versions.c.archive_sha256,
                bots.c.id.label("bot_id"),
                bots.c.name,
            )
            .join(bots, bots.c.id == bot_versions.c.bot_id)
            .where(bot_versions.c.id.in_(list(version_ids)))
        )
    }
    missing = sorted(set(version_ids) - versions.keys())
    if missing:
        raise LookupError(f"no bot versions {missing}")
    return tuple(
        SeatSpec(
            seat=i,
            bot_id=versions[v].bot_id,
            bot_name=versions[v].name,
            version_id=v,
            version=versions[v].version,
            command=parse_command(versions[v].command),
            files_dir=files_dir_for(conn, v, versions[v].archive_sha256),
        )
        for i, v in enumerate(version_ids)
    )


def load_spec(engine: Engine, match_id: int) -> LadderMatchSpec:
    """The match's game, config, seed, time control and seats. Raises LookupError/ValueError."""
    with engine.connect() as conn:
        row = conn.execute(
            sa.select(
                matches.c.ladder_id,
                matches.c.seed,
                matches.c.seats,
                matches.c.config,
                matches.c.engine_version,
                ladders.c.game,
                ladders.c.players,
                ladders.c.decision_ms,
                ladders.c.bank_ms,
                ladders.c.max_strikes,
                ladders.c.cpu_decision_ms,
                ladders.c.cpu_bank_ms,
            )
            .join(ladders, ladders.c.id == matches.c.ladder_id)
            .where(matches.c.id == match_id)
        ).one_or_none()
        if row is None:
            raise LookupError(f"no match {match_id}")
        try:
            seats = seat_specs(conn, [int(v) for v in row.seats])
        except LookupError as exc:
            raise LookupError(f"match {match_id}: {exc}") from None
    # A match may carry its own config (a cooperative scenario, a board side); it is rated
    # against exactly what was played.
    version = row.engine_version or ""
    rules = game_class(row.game, version or None)
    config = dict(row.config) if row.config else rules.default_config(row.players)
    return LadderMatchSpec(
        match_id=match_id,
        ladder_id=row.ladder_id,
        game=row.game,
        config=config,
        seed=int(row.seed),
        time_control=LadderTimeControl(
            row.decision_ms, row.bank_ms, row.max_strikes, row.cpu_decision_ms, row.cpu_bank_ms
        ),
        seats=seats,
        engine_version=version,
    )


def mark_failed(engine: Engine, match_id: int, worker_id: str, error: str) -> bool:
    """Give up running match `match_id` held by `worker_id`; True if this call did."""
    with write_transaction(engine) as conn:
        changed = conn.execute(
            sa.update(matches)
            .where(
                matches.c.id == match_id,
                matches.c.status == "running",
                matches.c.lease_owner == worker_id,
            )
            .values(
                status="failed",
                error=error[:2000],
                finished_at=datetime.now(UTC),
                lease_owner=None,
                lease_expires_at=None,
            )
        ).rowcount
    return changed == 1


def _status_of(engine: Engine, match_id: int) -> str | None:
    with engine.connect() as conn:
        status: str | None = conn.execute(
            sa.select(matches.c.status).where(matches.c.id == match_id)
        ).scalar_one_or_none()
    return status


_T = TypeVar("_T")


def _retry_db(match_id: int, what: str, step: Callable[[], _T], deadline: float) -> _T:
    """`step()`, retried with a backoff (0.25 s doubling to 4 s) while the database is
    unreachable (``ladder.db.is_outage``), until `deadline` (monotonic); then its error."""
    delay = 0.25
    while True:
        try:
            return step()
        except Exception as exc:
            if not is_outage(exc) or time.monotonic() + delay > deadline:
                raise
            log.warning(
                "match %s: the database is unreachable while %s (%s); retrying in %.2f s",
                match_id, what, type(exc).__name__, delay,
            )
        time.sleep(delay)
        delay = min(4.0, delay * 2)


def run_match(
    db_url: str,
    match_id: int,
    worker_id: str | None = None,
    *,
    lease: float | None = None,
    max_seconds: float = MAX_MATCH_SECONDS,
    db_retry_seconds: float | None = None,
    on_claimed: Callable[[], object] | None = None,
) -> MatchRun:
    """Claim, play and record match `match_id` on the database at `db_url`, at most once.

    `on_claimed` is called once the match is claimed (it has left the queue), before it is
    played: the Celery task wakes ``arena beat`` there, so the queue is topped up the moment
    a worker takes a match (see ``workers.celery_app``).

    `worker_id` names the lease holder (default ``host:pid``); `lease` is the lease length in
    seconds (default :func:`lease_seconds`). Nothing a match can do makes it raise (a bad
    match, a missing executor, a crashing or hanging game: the returned MatchRun says what
    happened), but a database it cannot reach does, with the database's error (see
    ``ladder.db.is_outage``):

    * before the claim (claiming, or reading the status of a match it could not claim):
      nothing changed; call it again later;
    * after the claim, only once the database stayed unreachable for `db_retry_seconds`
      (default :data:`DB_RETRY_SECONDS`), retrying meanwhile: the match is left running under
      this worker's lease, which runs out; the sweeper then requeues it.

    Other errors of the database (a bug, a schema mismatch) are raised too.
    """
    worker_id = worker_id or default_worker_id()
    lease = lease or lease_seconds()
    retry_for = DB_RETRY_SECONDS if db_retry_seconds is None else db_retry_seconds
    engine = engine_for(db_url)
    started = time.monotonic()
    if not claim_match(engine, match_id, worker_id, lease):
        status = _status_of(engine, match_id)
        if status == "done":
            return MatchRun(match_id, worker_id, "already_recorded")
        return MatchRun(match_id, worker_id, "not_claimed", f"match is {status or 'unknown'}")
    if on_claimed is not None:
        on_claimed()

    def fail(game: str, reason: str, error: str) -> MatchRun:
        log.error("match %s failed (%s): %s", match_id, reason, error)
        _retry_db(
            match_id, "marking it failed",
            lambda: mark_failed(engine, match_id, worker_id, f"{reason}: {error}"),
            time.monotonic() + retry_for,
        )
        metrics.MATCHES_FAILED.labels(game=game, reason=reason).inc()
        return MatchRun(match_id, worker_id, "failed", f"{reason}: {error}", time.monotonic() - started)

    try:
        spec = _retry_db(
            match_id, "loading it", lambda: load_spec(engine, match_id), time.monotonic() + retry_for
        )
    except (LookupError, ValueError, BotCommandError) as exc:
        return fail("unknown", "bad_match", str(exc))
    metrics.MATCHES_STARTED.labels(game=spec.game).inc()
    try:
        executor = executor_for(spec)
    except ExecutorUnavailable as exc:
        return fail(spec.game, "unavailable", str(exc))

    feed = _open_feed(db_url, match_id)
    try:
        run = _play_and_record(
            engine, spec, executor, worker_id, lease, started, max_seconds, retry_for, fail
        )
    except BaseException:
        if feed is not None:
            feed.close()
        raise
    finally:
        set_live_feed(match_id, None)
    if feed is not None:
        # after the recording: a spectator sent to the replay at the end finds it stored
        if run.status in ("recorded", "already_recorded"):
            feed.end("done")
        elif run.status == "failed":
            feed.end("failed")
        else:  # handed back or lease lost: another attempt starts the feed afresh
            feed.close()
    return run


def _open_feed(db_url: str, match_id: int) -> LiveFeed | None:
    """The live feed of a match this process starts playing (None if its channel cannot be
    opened: the match plays without a live view)."""
    try:
        feed = LiveFeed(channel_for(db_url), match_id)
    except Exception as exc:
        log.warning("match %s: no live view: %s: %s", match_id, type(exc).__name__, exc)
        return None
    set_live_feed(match_id, feed)
    return feed


def _play_and_record(
    engine: Engine,
    spec: LadderMatchSpec,
    executor: MatchExecutor,
    worker_id: str,
    lease: float,
    started: float,
    max_seconds: float,
    retry_for: float,
    fail: Callable[[str, str, str], MatchRun],
) -> MatchRun:
    """Play the claimed match `spec` under its lease and record it (run_match's second half)."""
    match_id = spec.match_id
    with _LeaseKeeper(engine, match_id, worker_id, lease, started + max_seconds) as keeper:
        try:
            execution = executor.execute(spec, keeper)
        except MatchAborted as exc:
            if keeper.lost:
                return MatchRun(match_id, worker_id, "lease_lost", str(exc), time.monotonic() - started)
            return fail(spec.game, "time_limit", f"stopped after {max_seconds:.0f} s")
        except HandBack as exc:  # its referee was lost: the sweeper requeues it (workers.lease)
            log.warning("match %s: %s; handing it back to the sweeper", match_id, exc)
            keeper.stop()  # first, so no renewal lands after the hand-back
            _retry_db(match_id, "handing it back", lambda: hand_back(engine, match_id, worker_id),
                      time.monotonic() + retry_for)
            return MatchRun(match_id, worker_id, "lease_lost", f"handed back: {exc}",
                            time.monotonic() - started)
        except Exception as exc:
            log.exception("match %s: the executor failed", match_id)
            return fail(spec.game, "error", f"{type(exc).__name__}: {exc}")

        try:  # format 2: compact, its digests cover the seats' metadata (referee/REPLAY.md)
            replay = encode_replay(execution.replay)
        except ReplayError as exc:  # still readable as the expanded document (format 1)
            log.warning("match %s: replay kept in format 1: %s", match_id, exc)
            replay = canonical_json(execution.replay).encode()
        # still under the lease keeper: while the database is away the lease is renewed as soon
        # as it is back, so the sweeper does not requeue a match whose result is in hand
        # (recording is idempotent: were it requeued and played again, it still counts once)
        recording = _retry_db(
            match_id,
            "recording its result",
            lambda: record_result(
                engine, match_id, execution.result, replay, execution.reason, logs=execution.logs
            ),
            time.monotonic() + retry_for,
        )
    seconds = time.monotonic() - started
    if recording.already_recorded:
        return MatchRun(match_id, worker_id, "already_recorded", seconds=seconds)
    outcome = "forfeit" if execution.forfeits else "finished"
    metrics.MATCHES_FINISHED.labels(game=spec.game, outcome=outcome).inc()
    metrics.MATCH_DURATION_SECONDS.labels(game=spec.game).observe(seconds)
    metrics.RATING_UPDATES.labels(game=spec.game).inc(len(recording.changes))
    decision_hist = metrics.DECISION_SECONDS.labels(game=spec.game)
    for latency in execution.decision_seconds:
        decision_hist.observe(latency)
    if execution.timeouts:
        metrics.TIMEOUTS.labels(game=spec.game).inc(execution.timeouts)
    for _seat, why in execution.forfeits:
        metrics.FORFEITS.labels(game=spec.game, reason=why).inc()
    return MatchRun(match_id, worker_id, "recorded", execution.reason, seconds)
