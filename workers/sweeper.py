"""The sweeper: puts matches whose lease ran out back in the queue and dispatches them again.

A lease runs out when its worker stopped renewing it: the process was killed (SIGKILL, OOM, a
lost machine) or it hung. ``ladder.match_queue.requeue_expired`` requeues the match, or fails it
after ``MAX_ATTEMPTS`` expiries; this module re-dispatches the requeued ones and counts both.
Run it every few seconds (Celery beat ``arena.sweep``; the embedded season loop calls it too).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from sqlalchemy import Engine

from ladder.match_queue import Sweep, requeue_expired
from ladder.schema import ladders, matches
from workers import metrics

__all__ = ["queued_before", "sweep"]


def sweep(engine: Engine, dispatch: Callable[[int], object], *, now: datetime | None = None) -> Sweep:
    """Requeue expired leases, dispatch the requeued matches, count the given-up ones."""
    result = requeue_expired(engine, now)
    for match_id in result.requeued:
        dispatch(match_id)
    metrics.MATCHES_REQUEUED.inc(len(result.requeued))
    if result.failed:
        with engine.connect() as conn:
            games = conn.execute(
                sa.select(ladders.c.game)
                .join(matches, matches.c.ladder_id == ladders.c.id)
                .where(matches.c.id.in_(result.failed))
            ).scalars()
            for game in games:
                metrics.MATCHES_FAILED.labels(game=game, reason="lease_expired").inc()
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
