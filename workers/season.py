"""A ladder season: play N matches with a dispatcher, doing the matchmaker's and sweeper's jobs.

``arena demo`` and the integration tests use :func:`play_season` with either dispatcher: the
local process pool (embedded) or Celery (distributed). In production Celery beat runs the same
two functions forever (``arena.matchmake``, ``arena.sweep``); a season is the bounded version.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import sqlalchemy as sa
from sqlalchemy import Engine

from ladder.schema import matches
from workers.matchmaker import fill_queues
from workers.sweeper import queued_before, sweep

__all__ = ["Dispatcher", "SeasonStalled", "SeasonSummary", "match_statuses", "play_season"]


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


@dataclass(frozen=True, slots=True)
class SeasonSummary:
    """The matches of a season and how they ended."""

    match_ids: tuple[int, ...]
    done: int
    failed: int
    seconds: float


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
) -> SeasonSummary:
    """Create `matches_total` matches on the ladders and wait until each is done or failed.

    Keeps at most `target_depth` queued per ladder; sweeps expired leases every
    `sweep_seconds`; re-dispatches matches queued longer than `stale_seconds` (a lost message,
    a restarted pool). `rng_seed` seeds the matchmaker (pairings and game seeds).
    `on_progress(finished, total)` is called as matches finish.
    Raises SeasonStalled if nothing can be scheduled, or at `timeout` seconds.
    """
    started = time.monotonic()
    rng = random.Random(rng_seed)
    created: list[int] = []
    last_sweep = 0.0
    reported = -1
    finished = 0
    while True:
        dispatcher.pump()
        now = time.monotonic()
        if now - last_sweep >= sweep_seconds:
            last_sweep = now
            sweep(engine, dispatcher.dispatch)
            ours = set(created)
            for match_id in queued_before(engine, stale_seconds):
                if match_id in ours:
                    dispatcher.ensure_dispatched(match_id)
        remaining = matches_total - len(created)
        if remaining > 0:
            created += fill_queues(
                engine,
                dispatcher.dispatch,
                target_depth=target_depth,
                limit=remaining,
                ladder_ids=ladder_ids,
                rng=rng,
            )
        counts = match_statuses(engine, created)
        finished = counts.get("done", 0) + counts.get("failed", 0)
        if finished != reported:
            reported = finished
            if on_progress is not None:
                on_progress(finished, matches_total)
        if len(created) == matches_total and finished == matches_total:
            return SeasonSummary(
                tuple(created), counts.get("done", 0), counts.get("failed", 0),
                time.monotonic() - started,
            )
        if not created and time.monotonic() - started > 5.0:
            raise SeasonStalled("no match could be scheduled: too few seatable bots on the ladders")
        if timeout is not None and time.monotonic() - started > timeout:
            raise SeasonStalled(
                f"season not over after {timeout:.0f} s: {finished}/{matches_total} finished"
            )
        time.sleep(poll_seconds)
