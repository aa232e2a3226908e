"""The limits of one hosted bot's sandbox: a frozen value class, every default documented.

`workers/SANDBOX.md` has the table; `SandboxLimits.from_env()` reads the operator's overrides
(``ARENA_SANDBOX_<NAME>``, e.g. ``ARENA_SANDBOX_MEMORY_MB=1024``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Final

from referee import settings

__all__ = ["ENV_PREFIX", "SandboxLimits"]

ENV_PREFIX: Final = "ARENA_SANDBOX_"

MIB: Final = 1024 * 1024


@dataclass(frozen=True, slots=True)
class SandboxLimits:
    """What one sandboxed bot may use. Every field is enforced by the kernel (see SANDBOX.md)."""

    #: memory of every process of the bot together (cgroup memory limit; tmpfs pages count too)
    memory_mb: int = 512
    #: processes and threads of the bot together (cgroup pids limit, and RLIMIT_NPROC of its own uid)
    pids: int = 64
    #: open file descriptors per process (RLIMIT_NOFILE)
    open_files: int = 256
    #: the largest file a bot may write (RLIMIT_FSIZE)
    file_size_mb: int = 16
    #: the private writable scratch directory, /scratch (a tmpfs of this size)
    scratch_mb: int = 64
    #: stdout + stderr kept in the owner's log; the rest is counted and dropped
    output_kb: int = 1024
    #: CPU seconds for the whole match (RLIMIT_CPU: SIGXCPU, then SIGKILL one second later)
    cpu_seconds: int = 600
    #: wall seconds the sandbox may live (a match never lasts longer; it is then killed)
    wall_seconds: int = 3600
    #: CPU cores all the bot's processes may keep busy at once (cgroup CPU quota): however many
    #: processes it spins, it cannot take more of the worker's CPU from the matches beside it
    cpu_cores: int = 1

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"sandbox limit {f.name} must be a positive integer, got {value!r}")

    @property
    def memory_bytes(self) -> int:
        """`memory_mb` in bytes."""
        return self.memory_mb * MIB

    @property
    def output_bytes(self) -> int:
        """`output_kb` in bytes."""
        return self.output_kb * 1024

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> SandboxLimits:
        """The defaults, with ``ARENA_SANDBOX_<FIELD>`` overrides (``ARENA_SANDBOX_PIDS=128``).

        Raises ValueError naming the variable for a value that is not a positive integer.
        """
        # every limit is declared, with its meaning and default, and parsed in referee/settings.py
        parsed = settings.current() if environ is None else settings.Settings.from_env(environ)
        return cls(**{f.name: parsed.sandbox_limits[f.name] for f in fields(cls)})
