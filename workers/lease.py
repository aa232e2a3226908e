"""A lease kept alive from a background thread while a match or a qualification plays.

Both hold a database row under a lease (`lease_expires_at`) that another worker may take over
once it runs out. `LeaseThread` renews it every third of the lease, and is the executor's stop
signal (`workers.executor.StopSignal`): ``lease lost`` once a renewal finds the row taken,
``time limit`` past the deadline. Subclasses say how to renew (`_renew`).

`HandBack` and `hand_back`: a match its worker cannot finish through no fault of the match (the
long-lived referee holding it was lost with its host) goes back to the sweeper: the worker ends
its own lease at once, and the next sweep requeues and re-dispatches the match exactly like one
whose worker died (one platform fault counted; at the budget of ``ladder.match_queue`` it is
parked).
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime
from typing import Self

import sqlalchemy as sa
from sqlalchemy import Engine

from ladder.db import write_transaction
from ladder.schema import matches

__all__ = ["HandBack", "LeaseThread", "hand_back"]


class HandBack(Exception):
    """The match cannot be finished here, and it is not the match's fault (its referee is gone):
    hand it back to the sweeper (`hand_back`) instead of failing it."""


def hand_back(engine: Engine, match_id: int, worker_id: str) -> bool:
    """End `worker_id`'s lease on running match `match_id` now, so the next sweep requeues it;
    True if this call did (False: the worker no longer held it)."""
    with write_transaction(engine) as conn:
        changed = conn.execute(
            sa.update(matches)
            .where(
                matches.c.id == match_id,
                matches.c.status == "running",
                matches.c.lease_owner == worker_id,
            )
            .values(lease_expires_at=datetime.now(UTC))
        ).rowcount
    return changed == 1


class LeaseThread:
    """Renews a lease in a thread for the duration of a ``with`` block."""

    def __init__(self, lease: float, deadline: float, name: str) -> None:
        """`lease`: seconds a renewal holds it; `deadline`: time.monotonic() to stop at."""
        self._lease = lease
        self._deadline = deadline
        self._done = threading.Event()
        self._lost = False
        self._thread = threading.Thread(target=self._keep, name=name, daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop renewing (and wait for the thread); the ``with`` block's end does it too."""
        self._done.set()
        if self._thread.is_alive():
            self._thread.join()

    @property
    def lost(self) -> bool:
        """True once the lease is gone (someone else holds it)."""
        return self._lost

    def stop_reason(self) -> str | None:
        """Why the work must stop now, or None."""
        if self._lost:
            return "lease lost"
        if time.monotonic() > self._deadline:
            return "time limit"
        return None

    def _renew(self) -> bool:
        """Extend the lease; False once it is lost (a passing failure that still leaves the
        lease held returns True)."""
        raise NotImplementedError

    def _keep(self) -> None:
        while not self._done.wait(self._lease / 3):
            if not self._renew():
                self._lost = True
                return
