"""One control group per sandboxed bot: memory and process limits, CPU time, kill-all.

cgroup v2 (a unified hierarchy with the memory, pids and cpu controllers) is used where the
machine has it; otherwise the v1 hierarchies ``memory``, ``pids`` and ``cpuacct``; otherwise
none (the sandbox then relies on rlimits alone and says so). Creating groups needs root; a
worker that is not root gets `None` from `BotCgroup.create`.

A group is ``arena-sandbox/<name>`` under each hierarchy. Processes join it by writing their
pid into ``cgroup.procs`` (done by the launcher's first process, as root, before it drops to the
bot's user), so every process the bot ever starts is inside.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

__all__ = ["CGROUP_ROOT", "BotCgroup", "cgroup_version", "remove_stale_groups"]

log = logging.getLogger("arena.sandbox")

CGROUP_ROOT: Final = Path("/sys/fs/cgroup")
GROUP_PARENT: Final = "arena-sandbox"
_V1_CONTROLLERS: Final = ("memory", "pids", "cpuacct")
#: the CFS period the CPU quota is given in (the kernel's default, 100 ms)
_CFS_PERIOD_US: Final = 100_000


def cgroup_version(root: Path = CGROUP_ROOT) -> Literal[2, 1] | None:
    """2 when the unified hierarchy offers memory, pids and cpu; 1 when the v1 memory, pids and
    cpuacct hierarchies are mounted; None otherwise (or when this process may not write them)."""
    if os.geteuid() != 0:
        return None
    controllers = root / "cgroup.controllers"
    if controllers.exists():
        offered = set(controllers.read_text().split())
        if {"memory", "pids", "cpu"} <= offered:
            return 2
        return None
    if all((root / c / "cgroup.procs").exists() for c in _V1_CONTROLLERS):
        return 1
    return None


def remove_stale_groups(root: Path = CGROUP_ROOT) -> int:
    """Remove the empty sandbox groups that a worker which died hard (SIGKILL, power loss) left
    behind: named ``<seat>-<worker pid>-<random>`` (`Sandbox.launch`), with no process left in
    them, and whose worker pid is no longer alive. Returns how many were removed."""
    removed = 0
    for parent in [root / GROUP_PARENT, *(p / GROUP_PARENT for p in root.iterdir() if p.is_dir())]:
        if not parent.is_dir():
            continue
        for group in parent.iterdir():
            if not group.is_dir():
                continue
            pid_part = group.name.rsplit("-", 2)
            if len(pid_part) != 3 or not pid_part[1].isdigit() or Path(f"/proc/{pid_part[1]}").exists():
                continue  # not ours, or its worker still runs (it removes its own groups)
            with contextlib.suppress(OSError):  # busy (processes inside) or already gone
                if not (group / "cgroup.procs").read_text().strip():
                    group.rmdir()
                    removed += 1
    return removed


def _write(path: Path, value: str) -> None:
    with path.open("w") as fh:
        fh.write(value)


@dataclass
class BotCgroup:
    """The control group(s) of one sandboxed bot."""

    version: Literal[1, 2]
    #: v2: one directory; v1: one per controller (memory, pids, cpuacct)
    dirs: dict[str, Path]

    @classmethod
    def create(
        cls,
        name: str,
        memory_bytes: int,
        pids: int,
        root: Path = CGROUP_ROOT,
        *,
        cpu_cores: int | None = None,
    ) -> BotCgroup | None:
        """Make the group with its limits, or None where cgroups can't be used here.

        `cpu_cores`: a CPU quota of that many cores for the whole group (v2 ``cpu.max``; v1 the
        ``cpu`` hierarchy's CFS quota, where it is mounted); None: no quota."""
        version = cgroup_version(root)
        if version is None:
            return None
        try:
            if version == 2:
                parent = root / GROUP_PARENT
                if not parent.exists():
                    parent.mkdir(exist_ok=True)
                # controllers must be enabled on the way down (root, then our parent)
                for level in (root, parent):
                    with contextlib.suppress(OSError):
                        _write(level / "cgroup.subtree_control", "+memory +pids +cpu")
                group = parent / name
                group.mkdir()
                cgroup = cls(2, {"memory": group, "pids": group, "cpu": group})
                _write(group / "memory.max", str(memory_bytes))
                with contextlib.suppress(OSError):  # no swap configured: the file may be absent
                    _write(group / "memory.swap.max", "0")
                _write(group / "pids.max", str(pids))
                if cpu_cores is not None:
                    _write(group / "cpu.max", f"{cpu_cores * _CFS_PERIOD_US} {_CFS_PERIOD_US}")
                return cgroup
            dirs: dict[str, Path] = {}
            for controller in _V1_CONTROLLERS:
                group = root / controller / GROUP_PARENT / name
                group.mkdir(parents=True)
                dirs[controller] = group
            cgroup = cls(1, dirs)
            _write(dirs["memory"] / "memory.limit_in_bytes", str(memory_bytes))
            memsw = dirs["memory"] / "memory.memsw.limit_in_bytes"
            if memsw.exists():  # swap accounting on: cap memory + swap at the same figure
                _write(memsw, str(memory_bytes))
            _write(dirs["pids"] / "pids.max", str(pids))
            if cpu_cores is not None and (root / "cpu" / "cgroup.procs").exists():
                group = root / "cpu" / GROUP_PARENT / name
                if group.resolve() not in {d.resolve() for d in dirs.values()}:  # cpu,cpuacct co-mounted
                    group.mkdir(parents=True)
                dirs["cpu"] = group  # joined like the others (procs_files), removed with them
                _write(group / "cpu.cfs_period_us", str(_CFS_PERIOD_US))
                _write(group / "cpu.cfs_quota_us", str(cpu_cores * _CFS_PERIOD_US))
            return cgroup
        except OSError as exc:
            log.warning("cannot create the sandbox cgroup %s (%s): falling back to rlimits", name, exc)
            return None

    @property
    def procs_files(self) -> list[Path]:
        """The ``cgroup.procs`` files a process writes its pid into to join (one per hierarchy)."""
        return sorted({d / "cgroup.procs" for d in self.dirs.values()})

    def cpu_seconds(self) -> float | None:
        """CPU time used by every process of the group so far (user + system), in seconds."""
        try:
            if self.version == 2:
                for line in (self.dirs["cpu"] / "cpu.stat").read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "usage_usec":
                        return int(value) / 1e6
                return None
            return int((self.dirs["cpuacct"] / "cpuacct.usage").read_text()) / 1e9
        except (OSError, ValueError):
            return None

    def memory_peak_bytes(self) -> int | None:
        """The most memory the group has used at once."""
        name = "memory.peak" if self.version == 2 else "memory.max_usage_in_bytes"
        try:
            return int((self.dirs["memory"] / name).read_text())
        except (OSError, ValueError):
            return None

    def oom_killed(self) -> bool:
        """Whether the kernel killed a process of the group for going over its memory limit."""
        try:
            if self.version == 2:
                for line in (self.dirs["memory"] / "memory.events").read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value) > 0
                return False
            # v1: memory.oom_control counts OOM kills (kernel 4.13+). Its failcnt is no sign:
            # with swap accounting the memsw limit is the one hit, and memory.failcnt stays 0
            memory = self.dirs["memory"]
            with contextlib.suppress(OSError):
                for line in (memory / "memory.oom_control").read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value) > 0
            return any(
                int((memory / name).read_text()) > 0
                for name in ("memory.failcnt", "memory.memsw.failcnt")
                if (memory / name).exists()
            )
        except (OSError, ValueError):
            return False

    def pids(self) -> set[int]:
        """Every process still in the group."""
        found: set[int] = set()
        for procs in self.procs_files:
            with contextlib.suppress(OSError, ValueError):
                found.update(int(p) for p in procs.read_text().split())
        return found

    def kill_all(self, timeout_s: float = 1.0) -> bool:
        """SIGKILL every process of the group until it is empty; True when it emptied in time."""
        deadline = time.monotonic() + timeout_s
        if self.version == 2:
            with contextlib.suppress(OSError):  # kernel 5.14+: one write kills the whole group
                _write(self.dirs["memory"] / "cgroup.kill", "1")
        while True:
            alive = self.pids()
            if not alive:
                return True
            for pid in alive:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            if time.monotonic() > deadline:
                return False
            time.sleep(0.005)

    def remove(self) -> None:
        """Delete the group's directories (after `kill_all`); a busy group is retried briefly."""
        for directory in set(self.dirs.values()):
            for _ in range(50):
                try:
                    directory.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)
            else:
                log.warning("sandbox cgroup %s could not be removed", directory)
