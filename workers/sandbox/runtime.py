"""What a sandboxed bot finds installed: the interpreters and the Arena SDKs, read-only.

Inside every sandbox:

* ``/usr`` (and ``/bin``, ``/lib``...): the host's system files, read-only: ``python3``
  (Debian's CPython 3), ``node`` (Node.js), the C library;
* ``/opt/arena/bin/python``: ``python3`` under the name ``python``;
* ``/opt/arena/python`` (on ``PYTHONPATH``): the Python SDK as ``arena_bot``, with ``grpc``,
  ``google.protobuf`` and ``typing_extensions``;
* ``/opt/arena/javascript`` (on ``NODE_PATH``): the JavaScript kit (``require('arena_bot')``,
  ``@grpc/grpc-js``, ``@grpc/proto-loader``);
* ``/opt/arena/proto`` (``ARENA_PROTO_DIR``): the ``arena.v1`` .proto files.

Every one of them is a staged copy (`workers/sandbox/staging.py`), never the checkout itself.
A bot ships anything else it needs inside its own archive (a vendored folder: ``pip install
--target vendor ...`` and put ``vendor`` on ``sys.path``, or ``node_modules``).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from workers.sandbox.staging import prune, stage_javascript, stage_root, stage_tree

__all__ = ["RUNTIME_OF_COMMAND", "BotRuntime", "Mount", "default_runtime"]

#: distributions the Python SDK imports at run time (their top-level packages are mounted)
_PYTHON_DISTRIBUTIONS: Final = ("grpcio", "protobuf", "typing_extensions")


@dataclass(frozen=True, slots=True)
class Mount:
    """A host path shown read-only at `target` inside the sandbox."""

    source: Path
    target: str


@dataclass(frozen=True, slots=True)
class BotRuntime:
    """The read-only mounts and environment every sandboxed bot gets."""

    mounts: tuple[Mount, ...]
    env: dict[str, str] = field(default_factory=dict)
    #: (target, link) symlinks made inside the sandbox
    symlinks: tuple[tuple[str, str], ...] = ()
    #: interpreters found on the host, for the documentation and `arena match --sandbox` errors
    interpreters: tuple[str, ...] = ()
    #: runtimes this worker cannot provide, and why ("javascript": "node is not installed ...")
    unavailable: dict[str, str] = field(default_factory=dict)
    #: the staging folder the mounts come from (None: mounted from where they are)
    stage: Path | None = None

    def unavailable_for(self, command: str) -> str | None:
        """Why `command` cannot run here (its interpreter is a runtime this worker lacks), or None."""
        words = command.split()
        first = os.path.basename(words[0]) if words else ""
        runtime = RUNTIME_OF_COMMAND.get(first)
        if runtime is None or runtime not in self.unavailable:
            return None
        return f"this worker has no {runtime} runtime for its bots: {self.unavailable[runtime]}"


#: the runtime a command's first word needs
RUNTIME_OF_COMMAND: Final = {
    "node": "javascript", "nodejs": "javascript", "python": "python", "python3": "python",
}  # fmt: skip


def _top_level_paths(distribution: str) -> list[Path]:
    dist = importlib.metadata.distribution(distribution)
    tops: set[Path] = set()
    for entry in dist.files or ():
        parts = Path(entry).parts
        if not parts or parts[0].startswith("..") or parts[0].endswith((".dist-info", ".data")):
            continue
        if parts[0] == "__pycache__":
            continue
        tops.add(Path(str(dist.locate_file(parts[0]))))
    return sorted(p for p in tops if p.exists())


def default_runtime(stage: Path | None = None) -> BotRuntime:
    """The runtime of this installation: the SDKs of this repository and the venv's gRPC, staged
    into `stage` (default: :func:`workers.sandbox.staging.stage_root`) and mounted from there."""
    root = stage or stage_root()
    env = {"PYTHONPATH": "/opt/arena/python", "PYTHONDONTWRITEBYTECODE": "1"}
    unavailable: dict[str, str] = {}
    sdk = importlib.util.find_spec("arena_bot")
    if sdk is None or sdk.origin is None:
        raise RuntimeError("the Python SDK (arena_bot) is not importable")
    sdk_dir = Path(sdk.origin).parent
    python_sources: list[tuple[Path, str]] = [(sdk_dir, "arena_bot")]
    seen: set[str] = set()
    for distribution in _PYTHON_DISTRIBUTIONS:
        for path in _top_level_paths(distribution):
            if path.name not in seen:
                seen.add(path.name)
                python_sources.append((path, path.name))
    mounts = [Mount(stage_tree(root, "python", python_sources), "/opt/arena/python")]
    if shutil.which("python3", path="/usr/bin:/bin") is None:
        unavailable["python"] = "python3 is not installed in /usr/bin"
    repo = sdk_dir.parents[2]
    proto = repo / "proto"
    if proto.is_dir():
        mounts.append(Mount(stage_tree(root, "proto", [(proto, "")]), "/opt/arena/proto"))
        env["ARENA_PROTO_DIR"] = "/opt/arena/proto"
    js_kit, why = stage_javascript(root, repo / "bots" / "javascript")
    if js_kit is not None:
        mounts.append(Mount(js_kit, "/opt/arena/javascript"))
        env["NODE_PATH"] = "/opt/arena/javascript/node_modules:/opt/arena/javascript"
    else:
        unavailable["javascript"] = why
    interpreters = tuple(
        name for name in ("python3", "node") if (p := shutil.which(name, path="/usr/bin:/bin")) and p
    )
    symlinks = (("/usr/bin/python3", "/opt/arena/bin/python"),)
    # this runtime's folders are held now: what an earlier version of the sources staged, and
    # no process holds any more, goes (about 40 MB a set)
    prune(root)
    return BotRuntime(tuple(mounts), env, symlinks, interpreters, unavailable, root)
