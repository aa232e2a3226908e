"""The sandbox every hosted bot runs in (`workers/SANDBOX.md`).

`Sandbox.launch(...)` starts a bot command under bubblewrap (namespaces, no network, read-only
files, a private scratch tmpfs, an empty environment), in a cgroup of its own (memory, processes,
CPU time), with rlimits and a seccomp filter, as a host user of its own; `SandboxedBot.kill()`
ends every process of it.
"""

from workers.sandbox.limits import SandboxLimits
from workers.sandbox.runtime import BotRuntime, default_runtime
from workers.sandbox.sandbox import (
    BOT_DIR,
    REFEREE_SOCKET,
    SCRATCH_DIR,
    Sandbox,
    SandboxedBot,
    SandboxUnavailable,
    sandbox_status,
)

__all__ = [
    "BOT_DIR",
    "REFEREE_SOCKET",
    "SCRATCH_DIR",
    "BotRuntime",
    "Sandbox",
    "SandboxLimits",
    "SandboxUnavailable",
    "SandboxedBot",
    "default_runtime",
    "sandbox_status",
]
