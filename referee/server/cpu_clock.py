"""CPU meters for the referee's CPU clock (PROTOCOL.md, "CPU time").

A CPU meter is a callable, `() -> float | None`: the CPU seconds a seat's bot has used so far
(every process and thread of it together), or None when that cannot be read right now. The
referee reads it when it sends a decision and again when the answer arrives (and every few
milliseconds while waiting); the difference is the CPU time charged to the decision. Whoever
launches the bot supplies the meter with `MatchSession.set_cpu_meter(seat, meter)`.

The meter that counts is `cgroup_cpu_meter`: the kernel's CPU accounting of the bot's own
cgroup (the sandbox makes one per bot). It counts every process the bot ever started in it,
forked, threaded or daemonised, and it does not depend on how loaded the machine is: a bot
that waits for a core uses no CPU time.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TypeAlias

__all__ = ["CpuMeter", "cgroup_cpu_meter", "cgroup_cpu_seconds"]

log = logging.getLogger("arena.referee")

#: a seat's CPU meter: CPU seconds used so far, or None if unreadable now
CpuMeter: TypeAlias = Callable[[], float | None]

#: cgroup v1 cpuacct: total CPU time of the group in nanoseconds
V1_USAGE = "cpuacct.usage"
#: cgroup v2 (any group, no controller needed): `usage_usec N` in this file
V2_STAT = "cpu.stat"


def cgroup_cpu_seconds(path: Path) -> float:
    """CPU seconds used by every task that ever ran in the cgroup at `path` (a cgroup v1
    cpuacct directory or a cgroup v2 directory). Raises OSError or ValueError if unreadable."""
    v1 = path / V1_USAGE
    if v1.exists():
        return int(v1.read_text()) / 1e9
    for line in (path / V2_STAT).read_text().splitlines():
        key, _, value = line.partition(" ")
        if key == "usage_usec":
            return int(value) / 1e6
    raise ValueError(f"{path / V2_STAT} has no usage_usec")


def cgroup_cpu_meter(path: Path | str) -> CpuMeter:
    """A CPU meter reading the cgroup at `path` (v1 `cpuacct.usage` or v2 `cpu.stat`).

    Reads after the cgroup is gone (the bot ended, the sandbox was torn down) give None: the
    referee then rules that decision on the wall clock alone.
    """
    where = Path(path)
    warned = False

    def meter() -> float | None:
        nonlocal warned
        try:
            return cgroup_cpu_seconds(where)
        except (OSError, ValueError) as exc:
            if not warned:
                log.warning("CPU meter %s unreadable (%s): wall clock only for now", where, exc)
                warned = True
            return None

    return meter
