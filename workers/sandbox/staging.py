"""Where the sandbox's read-only files come from: a staging folder of their own.

A sandboxed bot runs as a uid of its own, and bubblewrap mounts its files as that uid, so every
folder on the way to a mounted path must be searchable by other users. A checkout in a private
home folder (0700 on Fedora, 0750 on Ubuntu) is not. So the sandbox never mounts the checkout:
the SDKs, the packages they need and the protos are copied, once, into a staging folder whose
parents any user can search, and mounted from there. The staged copies also keep the checkout's
path (and so the operator's user name) out of the sandbox's ``/proc/self/mountinfo``.

Layout of the staging folder (``$ARENA_SANDBOX_STAGE_DIR``; as root ``/var/lib/arena-sandbox``,
otherwise ``<temp dir>/arena-sandbox-<uid>``), owned by the worker's user, 0755::

    runtime/python-<digest>/       arena_bot, grpc, google (protobuf), typing_extensions.py
    runtime/javascript-<digest>/   arena_bot.js, node_modules (@grpc/grpc-js, @grpc/proto-loader)
    runtime/proto-<digest>/        the arena.v1 .proto files
    runtime/root-<digest>/         the sandbox's read-only root: empty mount points, /etc/passwd
    mnt/                           where a sandbox's private mount namespace mounts its scratch
    bots/                          uploaded bots' files (ARENA_BOT_FILES_DIR unset; 0700)

Each staged folder is named by a digest of its sources (every file's path, size, mtime and
executable bit; for the JavaScript kit, its package files), so a changed source is staged
again under a new name on the next worker start, and a folder never changes once written: it
is built in a sibling and renamed into place, under a lock, so workers starting together stage
it once. Files are 0644 (0755 if executable), folders 0755.

A changed source leaves the old copy behind (about 40 MB for a set of them), so each process
that uses a staged folder holds a shared lock on ``runtime/.<name>.lock`` for as long as it
lives (its forked children with it), and :func:`prune` (run whenever a runtime is staged)
removes the folders nobody holds: it takes each one's lock exclusively, without waiting, and
skips any folder it cannot lock, that was handed out less than :data:`UNUSED_GRACE_S` ago (the
lock file's mtime, set at each hand-out; a folder with no lock file, staged by a version before
the locks, by its own mtime), or that a running sandbox has mounted. The grace keeps a folder
for a process of an earlier version, which takes no lock, while it may still use it (stop such
workers within a day of upgrading). Staging and pruning both happen under the staging lock, so
a folder is never handed out while it is being removed.

The JavaScript kit's packages come from ``bots/javascript/node_modules`` when it holds exactly
what ``package-lock.json`` locks, and otherwise from ``npm ci`` into the staging folder (once per
lock file, offline from npm's cache when it can), so a worker does not depend on anyone having
run ``npm ci`` in the checkout. A runtime that cannot be provided (no ``node`` in ``/usr/bin``,
no packages and no ``npm``) is named in :attr:`workers.sandbox.runtime.BotRuntime.unavailable`.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Final

from referee import settings

__all__ = [
    "ENV_STAGE_DIR",
    "UNUSED_GRACE_S",
    "StagingError",
    "prune",
    "skeleton",
    "stage_javascript",
    "stage_root",
    "stage_tree",
]

log = logging.getLogger("arena.sandbox")

ENV_STAGE_DIR: Final = "ARENA_SANDBOX_STAGE_DIR"
#: the staging folder of a worker running as root
ROOT_STAGE_DIR: Final = Path("/var/lib/arena-sandbox")
#: how long `npm ci` of the JavaScript kit may take (a cold cache downloads 34 packages)
NPM_TIMEOUT_S: Final = 600
#: how long after it was last handed out a staged folder nobody holds may be pruned
UNUSED_GRACE_S: Final = 24 * 3600
#: a staged folder's name (`runtime/<kind>-<digest>`); anything else in runtime/ is left alone
_STAGED: Final = re.compile(r"(?:python|proto|javascript|root)-[0-9a-f]{24}")
#: this process's shared locks on the staged folders it uses, by folder (open for its life)
_HELD: dict[Path, int] = {}


class StagingError(RuntimeError):
    """The staging folder cannot be used (not ours, or not reachable by the bots' uids)."""


def stage_root() -> Path:
    """The staging folder, created 0755 if missing. Raises StagingError when it belongs to
    another user (someone else could change what every bot runs with)."""
    configured = settings.current().sandbox_stage_dir
    if configured:
        root = Path(configured)
    elif os.geteuid() == 0:
        root = ROOT_STAGE_DIR
    else:
        root = Path(tempfile.gettempdir()) / f"arena-sandbox-{os.geteuid()}"
    root.mkdir(parents=True, exist_ok=True)
    info = root.lstat()
    if info.st_uid != os.geteuid() or not root.is_dir() or root.is_symlink():
        raise StagingError(
            f"the sandbox's staging folder {root} is not a folder of this user (uid {os.geteuid()})"
        )
    root.chmod(0o755)
    for sub in ("runtime", "mnt", "mnt/bot", "mnt/scratch", "mnt/shm"):
        (root / sub).mkdir(exist_ok=True)
        (root / sub).chmod(0o755)
    # where a sandbox's private mount namespace binds the referee's socket (from its folder of
    # mode 0700, which the bot's uid cannot search): an empty file to mount on
    (root / "mnt" / "referee.sock").touch(mode=0o644, exist_ok=True)
    return root


@contextlib.contextmanager
def staging_lock(root: Path) -> Iterator[None]:
    """Held while staging: workers starting at once stage each folder once."""
    fd = os.open(root / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _lock_path(folder: Path) -> Path:
    return folder.parent / f".{folder.name}.lock"


def _hold(folder: Path) -> Path:
    """Hold a shared lock on the staged `folder` for this process's life (call under the staging
    lock, so :func:`prune` cannot be removing it); `folder`."""
    if folder not in _HELD:
        fd = os.open(_lock_path(folder), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        fcntl.flock(fd, fcntl.LOCK_SH)
        _HELD[folder] = fd
    os.utime(_HELD[folder])  # handed out now: the grace starts again
    return folder


def _mounted_names() -> str:
    """Every mount's root in every process's mount table (a running sandbox mounts its staged
    folders), one string to search; "" where /proc says nothing."""
    found = []
    for table in Path("/proc").glob("[0-9]*/mountinfo"):
        with contextlib.suppress(OSError):
            found.append(table.read_text(errors="replace"))
    return "\n".join(found)


def prune(root: Path, now: float | None = None) -> list[tuple[str, int]]:
    """Remove the staged folders of `root` that no process uses, and half-built ones a dead
    stager left (``runtime/.<kind>-*``); (name, bytes) of each removed. See the module docstring."""
    runtime = root / "runtime"
    removed: list[tuple[str, int]] = []
    if not runtime.is_dir():
        return removed
    now = time.time() if now is None else now
    with staging_lock(root):  # no folder is being staged or handed out meanwhile
        mounted: str | None = None
        for folder in sorted(runtime.iterdir()):
            if not folder.is_dir() or folder.is_symlink() or folder in _HELD:
                continue
            leftover = folder.name.startswith(".")  # built under the staging lock: never in use now
            if not leftover and not _STAGED.fullmatch(folder.name):
                continue
            lock = _lock_path(folder)
            fd = -1
            try:
                if not leftover:
                    if lock.exists():
                        fd = os.open(lock, os.O_RDWR | os.O_CLOEXEC)
                        try:
                            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        except BlockingIOError:
                            continue  # a process holds it: in use
                    handed_out = (lock if lock.exists() else folder).stat().st_mtime
                    if now - handed_out < UNUSED_GRACE_S:
                        continue  # recently handed out: a process of an earlier version may use it
                    if mounted is None:
                        mounted = _mounted_names()
                    if f"/{folder.name}" in mounted:
                        continue  # a sandbox (of a worker holding no lock) has it mounted
                size = sum(p.lstat().st_size for p in _files(folder))
                shutil.rmtree(folder)
                lock.unlink(missing_ok=True)
                removed.append((folder.name, size))
            except OSError as exc:
                log.warning("cannot prune the staged folder %s: %s", folder, exc)
            finally:
                if fd >= 0:
                    os.close(fd)
    if removed:
        log.info("pruned %d staged folders (%d bytes) no process uses: %s", len(removed),
                 sum(size for _, size in removed), ", ".join(name for name, _ in removed))
    return removed


def _files(source: Path) -> Iterator[Path]:
    """`source` and everything under it, sorted, never following a link."""
    yield source
    if source.is_dir() and not source.is_symlink():
        for folder, dirs, files in os.walk(source):
            dirs.sort()
            for name in sorted([*dirs, *files]):
                yield Path(folder, name)


def _fingerprint(sources: Sequence[tuple[Path, str]]) -> str:
    """A digest of every file's name, size, mtime and executable bit (or link target), but
    compiled bytecode (Python writes it as it imports; it is checked against its source's mtime,
    which the copy keeps)."""
    digest = hashlib.sha256()
    for source, name in sources:
        for path in _files(source):
            if "__pycache__" in path.parts:  # written by imports on the host; copied, not counted
                continue
            info = path.lstat()
            rel = f"{name}/{path.relative_to(source)}"
            target = os.readlink(path) if path.is_symlink() else ""
            line = f"{rel}\0{info.st_size}\0{info.st_mtime_ns}\0{info.st_mode & 0o111}\0{target}\n"
            digest.update(line.encode())
    return digest.hexdigest()[:24]


def _normalize(folder: Path) -> None:
    """Folders 0755, files 0644 or 0755 (executable): every bot uid reads them, none writes."""
    for path in _files(folder):
        if path.is_symlink():
            continue
        if path.is_dir():
            path.chmod(0o755)
        else:
            path.chmod(0o755 if path.stat().st_mode & 0o100 else 0o644)


def _publish(building: Path, target: Path) -> Path:
    """Rename a finished folder into place (its name never changes once there)."""
    _normalize(building)
    try:
        building.rename(target)
    except OSError:
        if not target.is_dir():
            raise
        shutil.rmtree(building, ignore_errors=True)
    return target


def stage_tree(root: Path, kind: str, sources: Sequence[tuple[Path, str]]) -> Path:
    """Copy each (source, name) to ``runtime/<kind>-<digest>/<name>`` (name "": the folder's
    own content) unless that copy is there already; the staged folder."""
    target = root / "runtime" / f"{kind}-{_fingerprint(sources)}"
    with staging_lock(root):  # held from under it: prune cannot take it meanwhile
        if target.is_dir():
            return _hold(target)
        building = Path(tempfile.mkdtemp(prefix=f".{kind}-", dir=root / "runtime"))
        try:
            for source, name in sources:
                dest = building / name if name else building
                if source.is_dir():
                    shutil.copytree(source, dest, symlinks=True, dirs_exist_ok=True)
                else:
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(source, dest)
            return _hold(_publish(building, target))
        finally:
            shutil.rmtree(building, ignore_errors=True)


def _kit_modules_match(kit: Path) -> bool:
    """Whether the kit's node_modules holds every package its lock file names, at that version."""
    try:
        locked = json.loads((kit / "package-lock.json").read_text())["packages"]
        installed = json.loads((kit / "node_modules" / ".package-lock.json").read_text())["packages"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return all(
        installed.get(name, {}).get("version") == entry.get("version")
        for name, entry in locked.items()
        if name and not entry.get("dev")
    )


def stage_javascript(root: Path, kit: Path) -> tuple[Path | None, str]:
    """The staged JavaScript kit (``arena_bot.js`` and its ``node_modules``), or None and why
    it cannot be provided."""
    if shutil.which("node", path="/usr/local/bin:/usr/bin:/bin") is None:
        return None, "node is not installed (no node in /usr/local/bin or /usr/bin)"
    package_files = [kit / "arena_bot.js", kit / "package.json", kit / "package-lock.json"]
    missing = [p.name for p in package_files if not p.is_file()]
    if missing:
        return None, f"the JavaScript kit {kit} lacks {', '.join(missing)}"
    digest = hashlib.sha256(b"".join(p.read_bytes() + b"\0" for p in package_files)).hexdigest()[:24]
    target = root / "runtime" / f"javascript-{digest}"
    with staging_lock(root):
        if target.is_dir():
            return _hold(target), ""
        building = Path(tempfile.mkdtemp(prefix=".javascript-", dir=root / "runtime"))
        try:
            for path in package_files:
                shutil.copy2(path, building / path.name)
            why = _install_modules(kit, building)
            if why:
                return None, why
            return _hold(_publish(building, target)), ""
        finally:
            shutil.rmtree(building, ignore_errors=True)


def _install_modules(kit: Path, building: Path) -> str:
    """Put the kit's packages in `building`/node_modules: a copy of the checkout's when it
    matches the lock file, else `npm ci`. "" when done, otherwise why not."""
    if _kit_modules_match(kit):
        shutil.copytree(kit / "node_modules", building / "node_modules", symlinks=True)
        return ""
    npm = shutil.which("npm")
    if npm is None:
        return (
            f"its packages are not installed ({kit}/node_modules does not match package-lock.json) "
            "and npm is not there to install them: run `make js`"
        )
    log.info("staging the JavaScript kit: npm ci in %s", building)
    command = [npm, "ci", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline"]
    try:
        done = subprocess.run(
            command, cwd=building, capture_output=True, text=True, timeout=NPM_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"npm ci of its packages failed: {exc}"
    if done.returncode != 0:
        lines = [line for line in (done.stderr + done.stdout).splitlines() if line.strip()]
        return f"npm ci of its packages failed (exit {done.returncode}): {lines[-1] if lines else ''}"
    return ""


#: the sandbox's root file system: mount points for everything mounted on it, and the files
#: of /etc a runtime asks for
_SKELETON_DIRS: Final = ("usr", "proc", "dev", "dev/shm", "scratch", "bot", "run/arena", "etc", "opt/arena")
_SKELETON_FILES: Final = (
    "dev/null", "dev/zero", "dev/full", "dev/random", "dev/urandom", "dev/tty",
    "run/arena/referee.sock", "etc/ld.so.cache", "etc/localtime",
)  # fmt: skip
_SKELETON_LINKS: Final = (
    ("bin", "usr/bin"), ("sbin", "usr/sbin"), ("lib", "usr/lib"), ("lib64", "usr/lib64"),
    ("tmp", "/scratch"), ("dev/fd", "/proc/self/fd"), ("dev/stdin", "/proc/self/fd/0"),
    ("dev/stdout", "/proc/self/fd/1"), ("dev/stderr", "/proc/self/fd/2"),
)  # fmt: skip


def skeleton(
    root: Path,
    mount_points: Sequence[tuple[str, bool]],
    links: Sequence[tuple[str, str]],
    etc: dict[str, str],
) -> Path:
    """The sandbox's read-only root (``runtime/root-<digest>``): the folders and empty files
    every mount lands on (`mount_points`: absolute path, is a folder), the symlinks (`links`:
    target, absolute link path) and /etc's files (`etc`: name -> text)."""
    spec = json.dumps([sorted(mount_points), sorted(links), sorted(etc.items())]).encode()
    target = root / "runtime" / f"root-{hashlib.sha256(spec).hexdigest()[:24]}"
    with staging_lock(root):
        if target.is_dir():
            return _hold(target)
        building = Path(tempfile.mkdtemp(prefix=".root-", dir=root / "runtime"))
        try:
            dirs = [*_SKELETON_DIRS, *(p.lstrip("/") for p, is_dir in mount_points if is_dir)]
            files = [*_SKELETON_FILES, *(p.lstrip("/") for p, is_dir in mount_points if not is_dir)]
            for name in dirs:
                (building / name).mkdir(parents=True, exist_ok=True)
            for name in files:
                (building / name).parent.mkdir(parents=True, exist_ok=True)
                (building / name).touch()
            for name, text in etc.items():
                (building / "etc" / name).write_text(text)
            for name, link_target in [*_SKELETON_LINKS, *((link.lstrip("/"), t) for t, link in links)]:
                (building / name).parent.mkdir(parents=True, exist_ok=True)
                (building / name).symlink_to(link_target)
            return _hold(_publish(building, target))
        finally:
            shutil.rmtree(building, ignore_errors=True)
