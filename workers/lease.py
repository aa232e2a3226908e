"""A lease kept alive from a background thread while a match or a qualification plays.

Both hold a database row under a lease (`lease_expires_at`) that another worker may take over
once it runs out. `LeaseThread` renews it every third of the lease, and is the executor's stop
signal (`workers.executor.StopSignal`): ``lease lost`` once a renewal finds the row taken,
``time limit`` past the deadline. Subclasses say how to renew (`_renew`).
"""

from __future__ import annotations

import threading
import time
from typing import Self

__all__ = ["LeaseThread"]


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
        self._done.set()
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
