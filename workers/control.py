"""The control loop: the sweeper, the matchmaker, competitions and campaign ladders, run inline by
`arena beat` in its own process (campaign ladders: ``workers.campaign_ladders``).

Why not Celery tasks: a control task queued behind matches waits for a worker process to come
free, and every worker process may be playing a match for minutes; with an expiry it is then
dropped, without one it runs late. Either way a dead worker's match sat in ``running`` minutes
past its lease. Here nothing stands in front of them: every ``interval`` seconds this process
sweeps (requeue and re-dispatch the matches whose lease ran out, re-send lost messages) and then
tops up each ladder's queue, whatever the backlog of matches. A killed worker's match is
therefore back in the queue and re-dispatched at most one interval (plus one pass) after its
lease ran out. Match workers (`arena worker`) consume only the match queue.

One `arena beat` is enough; a second is harmless (the matchmaker takes a PostgreSQL advisory
lock, requeueing is one conditional UPDATE, claims are exactly-once).

Refill on completion: between passes the loop does not just sleep. It waits on `wake` (for
`arena beat`: a Redis list each worker pushes to when it takes a match and when a match ends,
``workers.celery_app.wait_for_completion``) and runs the `on_wake` steps (the matchmaker) at
once. The queue is therefore topped up as fast as workers empty it, not
``ARENA_QUEUE_DEPTH`` matches per interval: on a timer alone, a second worker added nothing
(8 matches per 5 s whatever the number of workers). The timed pass still runs every interval.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

from referee import settings

__all__ = ["DEFAULT_INTERVAL_S", "ControlLoop", "beat_seconds"]

log = logging.getLogger(__name__)

#: seconds between two passes (``$ARENA_BEAT_SECONDS``)
DEFAULT_INTERVAL_S: Final = 5.0


def beat_seconds() -> float:
    """``$ARENA_BEAT_SECONDS``, else :data:`DEFAULT_INTERVAL_S`."""
    return settings.current().beat_seconds


@dataclass
class ControlLoop:
    """Runs each of `steps` (name, function) in turn every `interval` seconds until stopped.

    Passes start on a fixed schedule (a pass that took longer than `interval` is followed by the
    next one at once, not by a burst of missed ones). A step that raises is logged and the loop
    goes on: the periodic tasks already skip a beat on a database outage, anything else must not
    stop the sweeper for good either.
    """

    steps: Sequence[tuple[str, Callable[[], object]]]
    interval: float = field(default_factory=beat_seconds)
    stop: threading.Event = field(default_factory=threading.Event)
    passes: int = 0
    #: waits up to the given seconds for a completed match; True if one (or more) ended
    wake: Callable[[float], bool] | None = None
    #: names of the steps run when `wake` says a match ended
    on_wake: Sequence[str] = ()
    #: how many times `on_wake` ran
    wakes: int = 0

    def run_once(self) -> None:
        """One pass: every step, in order."""
        for name, step in self.steps:
            try:
                step()
            except Exception:
                log.exception("control loop: %s failed; next pass in %.1f s", name, self.interval)
        self.passes += 1

    def run_wake_steps(self) -> None:
        """The `on_wake` steps, after a match ended."""
        for name, step in self.steps:
            if name not in self.on_wake:
                continue
            try:
                step()
            except Exception:
                log.exception("control loop: %s (on a finished match) failed", name)
        self.wakes += 1

    def _wait(self, until: float) -> None:
        """Until monotonic time `until` (or `stop`), running the wake steps on each completion."""
        while not self.stop.is_set():
            left = until - time.monotonic()
            if left <= 0:
                return
            if self.wake is None:
                self.stop.wait(left)
                continue
            try:
                # at most a second per wait, so `stop` is seen promptly
                woken = self.wake(min(left, 1.0))
            except Exception as exc:  # the broker away: the timed passes go on meanwhile
                log.warning("control loop: waiting for finished matches failed (%s)", exc)
                self.stop.wait(min(left, 1.0))
                continue
            if woken and not self.stop.is_set():
                self.run_wake_steps()

    def run(self) -> None:
        """Pass after pass until `stop` is set."""
        if self.interval <= 0:
            raise ValueError("the control loop's interval must be positive")
        log.info("control loop: %s every %.1f s", ", ".join(n for n, _ in self.steps), self.interval)
        next_start = time.monotonic()
        while not self.stop.is_set():
            self.run_once()
            next_start = max(next_start + self.interval, time.monotonic())
            self._wait(next_start)


def arena_control_loop(interval: float | None = None) -> ControlLoop:
    """The loop `arena beat` runs: sweep first (recover dead workers' matches), then matchmake,
    then competitions and campaign ladders."""
    from workers.campaign_ladders import run_beat_step
    from workers.celery_app import matchmake, sweep_leases, wait_for_completion
    from workers.tournament import advance_running

    # competitions after the matchmaker: a started competition's next round is scheduled here;
    # campaign ladders last, and on every wake too: a campaign's next game is queued as soon
    # as a worker reports its previous one finished, not a whole interval later
    return ControlLoop(
        [
            ("sweeper", sweep_leases),
            ("matchmaker", matchmake),
            ("competitions", advance_running),
            ("campaigns", run_beat_step),
        ],
        interval if interval is not None else beat_seconds(),
        wake=wait_for_completion,
        on_wake=("matchmaker", "campaigns"),
    )
