"""A host user of its own for every running sandbox (as Halite gave each bot a user).

The bot's processes then share no uid with the worker, with another bot, or with anything else
on the machine: they cannot signal or trace each other even outside their namespaces, and
RLIMIT_NPROC counts only that bot's processes. A uid is claimed with an exclusive `flock` on
``<lock dir>/<uid>.lock``, so it is released whenever the holder dies, however it dies.
Only root can switch users; elsewhere `claim_uid` returns None.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from referee import settings

__all__ = ["UID_BASE", "UID_COUNT", "ClaimedUid", "claim_uid"]

#: the first host uid handed to sandboxes, and how many there are (not used by any account)
UID_BASE: Final = settings.current().sandbox_uid_base
UID_COUNT: Final = settings.current().sandbox_uid_count
LOCK_DIR: Final = Path(settings.current().sandbox_lock_dir)


@dataclass
class ClaimedUid:
    """A uid held for one sandbox; `release()` gives it back."""

    uid: int
    _fd: int

    def release(self) -> None:
        """Give the uid back (closing the lock file drops the lock)."""
        if self._fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = -1


def claim_uid(lock_dir: Path = LOCK_DIR, attempts: int = 64) -> ClaimedUid | None:
    """A free uid from the sandbox range, held until released; None when not root."""
    if os.geteuid() != 0:
        return None
    lock_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    for _ in range(attempts):
        uid = UID_BASE + random.randrange(UID_COUNT)
        fd = os.open(lock_dir / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return ClaimedUid(uid, fd)
    raise RuntimeError(f"no free sandbox uid after {attempts} attempts in {lock_dir}")
