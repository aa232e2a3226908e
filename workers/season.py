"""A ladder season: play N matches with a dispatcher, doing the matchmaker's and sweeper's jobs.

``arena demo`` and the integration tests use :func:`play_season` with either dispatcher: the
local process pool (embedded) or Celery (distributed). In production Celery beat runs the same
two functions forever (``arena.matchmake``, ``arena.sweep``); a season is the bounded version.

A database restart does not end a season: while the database is unreachable
(``ladder.db.is_outage``) the loop says so on stderr, retries with a short backoff and carries
on once it answers; the matches keep their outcome (workers retry, see ``workers/README.md``).
If it stays unreachable for `db_outage_seconds` the season stops with
:class:`SeasonDatabaseUnavailable`, a one-line message (the matches not finished stay queued or
running, and are played by whoever runs the queue next).
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import sqlalchemy as sa
from sqlalchemy import Engine

from ladder.db import is_outage
from ladder.schema import matches
from workers.matchmaker import fill_queues
from workers.qualification import dispatch_due
from workers.sweeper import queued_before, retry_dispatch, sweep

__all__ = [
    "DB_OUTAGE_SECONDS",
    "Dispatcher",
    "SeasonDatabaseUnavailable",
    "SeasonStalled",
    "SeasonSummary",
    "match_statuses",
    "play_season",
]

#: how long a season waits for an unreachable database before it gives up
DB_OUTAGE_SECONDS = 120.0


class Dispatcher(Protocol):
    """Gets matches played: the local pool or Celery."""

    def dispatch(self, match_id: int) -> None:
        """Have match `match_id` played (it is queued)."""
        ...

    def ensure_dispatched(self, match_id: int) -> None:
        """Dispatch a long-queued match again unless it is known to be on its way."""
        ...

    def pump(self) -> None:
        """Do any housekeeping (collect finished work); called every loop."""
        ...


class SeasonStalled(RuntimeError):
    """The season cannot go on: too few seatable bots, or no progress before the timeout."""


class SeasonDatabaseUnavailable(SeasonStalled):
    """The database stayed unreachable longer than the season waits for it."""


def _to_stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass(frozen=True, slots=True)
class SeasonSummary:
    """The matches of a season and how they ended (`parked`: after too many platform faults,
    ``ladder.match_queue``; neither played nor failed, left for an operator)."""

    match_ids: tuple[int, ...]
    done: int
    failed: int
    seconds: float
    parked: int = 0


def match_statuses(engine: Engine, match_ids: Sequence[int]) -> dict[str, int]:
    """How many of `match_ids` are in each status."""
    counts: dict[str, int] = {}
    with engine.connect() as conn:
        for start in range(0, len(match_ids), 500):
            rows = conn.execute(
                sa.select(matches.c.status, sa.func.count())
                .where(matches.c.id.in_(match_ids[start : start + 500]))
                .group_by(matches.c.status)
            )
            for status, n in rows:
                counts[status] = counts.get(status, 0) + int(n)
    return counts


def play_season(
    engine: Engine,
    dispatcher: Dispatcher,
    ladder_ids: Sequence[int],
    matches_total: int,
    *,
    target_depth: int = 4,
    on_progress: Callable[[int, int], None] | None = None,
    poll_seconds: float = 0.1,
    sweep_seconds: float = 2.0,
    stale_seconds: float = 10.0,
    timeout: float | None = None,
    rng_seed: int | None = None,
    db_outage_seconds: float = DB_OUTAGE_SECONDS,
    notify: Callable[[str], None] = _to_stderr,
) -> SeasonSummary:
    """Create `matches_total` matches on the ladders and wait until each is done, failed or
    parked.

    Keeps at most `target_depth` queued per ladder; sweeps expired leases every
    `sweep_seconds`; re-dispatches matches queued longer than `stale_seconds` (a lost message,
    a restarted pool, a task that gave up on the database). `rng_seed` seeds the matchmaker
    (pairings and game seeds). `on_progress(finished, total)` is called as matches finish.

    While the database is unreachable the loop retries (backoff 0.5 s doubling to 2 s), telling
    `notify` (default: stderr) when the outage starts and ends.
    Raises SeasonStalled if nothing can be scheduled, or at `timeout` seconds (also during an
    outage); SeasonDatabaseUnavailable (a SeasonStalled) once the database has been unreachable
    for `db_outage_seconds`.
    """
    started = time.monotonic()
    rng = random.Random(rng_seed)
    created: list[int] = []
    last_sweep = 0.0
    reported = -1
    finished = 0
    outage_since: float | None = None
    backoff = 0.5

    def dispatch_new(match_id: int) -> None:
        # noted as soon as it exists: a database error later in the same fill_queues call
        # must not lose it from the season
        created.append(match_id)
        dispatcher.dispatch(match_id)

    def check_timeout() -> None:
        if timeout is not None and time.monotonic() - started > timeout:
            raise SeasonStalled(
                f"season not over after {timeout:.0f} s: {finished}/{matches_total} finished"
            )

    while True:
        dispatcher.pump()
        try:
            now = time.monotonic()
            if now - last_sweep >= sweep_seconds:
                sweep(engine, retry_dispatch(dispatcher))
                qualify = getattr(dispatcher, "dispatch_qualification", None)
                if qualify is not None:  # new uploads qualify before the matchmaker seats them
                    dispatch_due(engine, qualify)
                ours = set(created)
                for match_id in queued_before(engine, stale_seconds):
                    if match_id in ours:
                        dispatcher.ensure_dispatched(match_id)
                last_sweep = now
            remaining = matches_total - len(created)
            if remaining > 0:
                fill_queues(
                    engine,
                    dispatch_new,
                    target_depth=target_depth,
                    limit=remaining,
                    ladder_ids=ladder_ids,
                    rng=rng,
                )
            counts = match_statuses(engine, created)
        except Exception as exc:
            if not is_outage(exc):
                raise
            first_line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            if outage_since is None:
                outage_since = time.monotonic()
                notify(
                    f"database unreachable ({type(exc).__name__}: {first_line}); "
                    f"retrying for up to {db_outage_seconds:.0f} s"
                )
            elif time.monotonic() - outage_since > db_outage_seconds:
                raise SeasonDatabaseUnavailable(
                    f"the database has been unreachable for {db_outage_seconds:.0f} s "
                    f"({type(exc).__name__}: {first_line}); giving up with "
                    f"{finished}/{matches_total} matches finished (the unfinished ones stay "
                    "in the queue)"
                ) from exc
            check_timeout()
            time.sleep(backoff)
            backoff = min(2.0, backoff * 2)
            continue
        if outage_since is not None:
            notify(f"database reachable again after {time.monotonic() - outage_since:.1f} s; resuming")
            outage_since = None
            backoff = 0.5
        finished = counts.get("done", 0) + counts.get("failed", 0) + counts.get("parked", 0)
        if finished != reported:
            reported = finished
            if on_progress is not None:
                on_progress(finished, matches_total)
        if len(created) >= matches_total and finished == len(created):
            return SeasonSummary(
                tuple(created), counts.get("done", 0), counts.get("failed", 0),
                time.monotonic() - started, counts.get("parked", 0),
            )
        if not created and time.monotonic() - started > 5.0:
            raise SeasonStalled("no match could be scheduled: too few seatable bots on the ladders")
        check_timeout()
        time.sleep(poll_seconds)
