"""The sweeper: puts matches whose lease ran out back in the queue and dispatches them again.

A lease runs out when its worker stopped renewing it: the process was killed (SIGKILL, OOM, a
lost machine) or it hung. ``ladder.match_queue.requeue_expired`` requeues the match (a platform
fault), or parks it once its faults reach the budget; this module re-dispatches the requeued
ones, ahead of the matches not yet started (the dispatcher's ``dispatch_retry``,
:func:`retry_dispatch`), and counts both. Run it every few seconds (``arena beat``; the embedded
season loop calls it too).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Protocol

import sqlalchemy as sa
from sqlalchemy import Engine

from ladder.match_queue import Sweep, requeue_expired
from ladder.schema import ladders, matches
from workers import metrics

__all__ = ["queued_before", "retried_matches", "retry_dispatch", "sweep"]


class _Dispatches(Protocol):
    def dispatch(self, match_id: int) -> None: ...


def retry_dispatch(dispatcher: _Dispatches) -> Callable[[int], object]:
    """The function that sends a requeued match ahead of the matches not yet started: the
    dispatcher's ``dispatch_retry`` (Celery, the local pool), else its plain ``dispatch``."""
    chosen: Callable[[int], object] | None = getattr(dispatcher, "dispatch_retry", None)
    return chosen or dispatcher.dispatch


def sweep(engine: Engine, dispatch: Callable[[int], object], *, now: datetime | None = None) -> Sweep:
    """Requeue expired leases, dispatch the requeued matches, count the parked ones.

    `dispatch` should put a match ahead of those not yet started (:func:`retry_dispatch`)."""
    result = requeue_expired(engine, now)
    for match_id in result.requeued:
        dispatch(match_id)
    metrics.MATCHES_REQUEUED.inc(len(result.requeued))
    if result.parked:
        with engine.connect() as conn:
            games = conn.execute(
                sa.select(ladders.c.game)
                .join(matches, matches.c.ladder_id == ladders.c.id)
                .where(matches.c.id.in_(result.parked))
            ).scalars()
            for game in games:
                metrics.MATCHES_PARKED.labels(game=game).inc()
    return result


def queued_before(engine: Engine, age_seconds: float, *, limit: int = 500) -> Sequence[int]:
    """Ids of matches queued more than `age_seconds` ago (oldest first, at most `limit`)."""
    cutoff = datetime.now(UTC) - timedelta(seconds=age_seconds)
    with engine.connect() as conn:
        return list(
            conn.execute(
                sa.select(matches.c.id)
                .where(matches.c.status == "queued", matches.c.created_at <= cutoff)
                .order_by(matches.c.id)
                .limit(limit)
            ).scalars()
        )


def retried_matches(engine: Engine, age_seconds: float, *, limit: int = 500) -> Sequence[int]:
    """Of :func:`queued_before`'s matches, those requeued after a platform fault (to re-send at
    the retry priority if their message was lost)."""
    cutoff = datetime.now(UTC) - timedelta(seconds=age_seconds)
    with engine.connect() as conn:
        return list(
            conn.execute(
                sa.select(matches.c.id)
                .where(
                    matches.c.status == "queued",
                    matches.c.created_at <= cutoff,
                    matches.c.attempts > 0,
                )
                .order_by(matches.c.id)
                .limit(limit)
            ).scalars()
        )
