"""Launch a hosted bot inside a sandbox, and take the whole sandbox down again.

How one bot is started (see ``workers/SANDBOX.md`` for the threat model)::

    /bin/sh (root)            joins the bot's cgroup(s): echo $$ > cgroup.procs
     └ exec prlimit            sets the rlimits (files, file size, CPU seconds, processes, core)
        └ exec setpriv         drops to the sandbox's own host uid, no groups, no_new_privs
           └ exec bwrap        new user, PID, IPC, UTS, mount, network and cgroup namespaces;
              └ bwrap (pid 1)   read-only /usr, the bot's files at /bot, a tmpfs /scratch, the
                 └ sh -c CMD    referee's Unix socket; seccomp filter; empty environment but ARENA_*

Everything from ``bwrap`` on is in the cgroup, under the bot's uid and inside its PID
namespace, so however a bot forks or daemonises, killing the namespace's pid 1 (bwrap's
``--die-with-parent`` follows our SIGKILL of the outer bwrap) or the cgroup kills all of it.
The seat token and the rest of the environment travel in a memory file (``bwrap --args FD``),
never on a command line. stdout and stderr go through a pipe into a capped log.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import shlex
import shutil
import signal
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from workers.sandbox.cgroups import BotCgroup, cgroup_version, remove_stale_groups
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.runtime import BotRuntime, default_runtime
from workers.sandbox.seccomp_filter import SeccompUnavailable, compile_filter
from workers.sandbox.staging import ENV_STAGE_DIR, StagingError, skeleton
from workers.sandbox.uids import ClaimedUid, claim_uid

__all__ = [
    "BOT_DIR",
    "REFEREE_SOCKET",
    "SCRATCH_DIR",
    "Sandbox",
    "SandboxUnavailable",
    "SandboxedBot",
    "sandbox_status",
    "unreachable_reason",
    "unreadable_reason",
]

log = logging.getLogger("arena.sandbox")

#: where things are inside the sandbox
BOT_DIR: Final = "/bot"
SCRATCH_DIR: Final = "/scratch"
REFEREE_SOCKET: Final = "/run/arena/referee.sock"
#: the bot's uid and gid inside its user namespace
INSIDE_UID: Final = 1000
_PASSWD: Final = f"bot:x:{INSIDE_UID}:{INSIDE_UID}:bot:{SCRATCH_DIR}:/bin/sh\n"
_GROUP: Final = f"bot:x:{INSIDE_UID}:\n"
#: the only environment variables a bot sees besides the runtime's and the caller's ARENA_*
_BASE_ENV: Final = {
    "PATH": "/opt/arena/bin:/usr/local/bin:/usr/bin:/bin",
    "HOME": SCRATCH_DIR,
    "TMPDIR": SCRATCH_DIR,
    "ARENA_SCRATCH": SCRATCH_DIR,
    "LANG": "C.UTF-8",
}
_READ_CHUNK: Final = 64 * 1024
_JOIN_CGROUP: Final = 'for f in $1; do echo $$ > "$f" || exit 125; done; shift; exec "$@"'
#: run as root in the sandbox's own mount namespace (nothing it mounts is seen outside it, and
#: all of it goes with the sandbox's last process): the bot's files ($2, "" for none) bound on
#: MNT/bot and the referee's socket ($4) on MNT/referee.sock, so no folder on their way needs to
#: be open to the bot's uid (the socket's folder is the worker's alone, mode 0700: no other local
#: user reaches the referee through it), and the scratch and /dev/shm as tmpfs of $3 bytes owned
#: by root (a tmpfs mounted by the bot's uid names that uid in its options, which
#: /proc/self/mountinfo shows the bot)
_PRIVATE_MOUNTS: Final = (
    'set -e; m=$1; [ -z "$2" ] || mount -n --bind "$2" "$m/bot"; '
    'mount -n --bind "$4" "$m/referee.sock"; '
    'mount -n -t tmpfs -o "mode=1777,size=$3" arena-scratch "$m/scratch"; '
    'mount -n -t tmpfs -o "mode=1777,size=$3" arena-shm "$m/shm"; shift 4; exec "$@"'
)
#: the devices a bot may open
_DEVICES: Final = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty")


class SandboxUnavailable(RuntimeError):
    """This machine cannot run the sandbox (no bubblewrap, no user namespaces, no libseccomp)."""


def sandbox_status() -> dict[str, object]:
    """What the sandbox will use on this machine (for logs, `arena worker` and SANDBOX.md)."""
    return {
        "bwrap": shutil.which("bwrap"),
        "cgroup": cgroup_version(),
        "own_uid": os.geteuid() == 0,
    }


@dataclass
class SandboxedBot:
    """One running sandbox. `kill()` ends every process in it; `wait()` its exit code."""

    process: asyncio.subprocess.Process
    cgroup: BotCgroup | None
    uid: ClaimedUid | None
    log_path: Path
    limits: SandboxLimits
    started_at: float
    #: bytes the bot wrote to stdout/stderr, kept or not
    output_bytes: int = 0
    output_truncated: bool = False
    #: why the sandbox ended it, if it did ("wall time", "output" is never a kill)
    killed_for: str | None = None
    _reader: asyncio.Task[None] | None = None
    _timer: asyncio.Task[None] | None = None
    _closed: bool = field(default=False)
    #: set when the first kill() has finished (a second caller waits for it)
    _killed: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def pid(self) -> int:
        """The outer process (bwrap) on the host."""
        return self.process.pid

    @property
    def returncode(self) -> int | None:
        """The bot's exit code once the sandbox ended (negative: killed by that signal)."""
        return self.process.returncode

    async def wait(self) -> int:
        """Wait for the bot's main process to end; its exit code."""
        code = await self.process.wait()
        if self._reader is not None:
            # the pipe closes when the last process holding it is gone; don't wait on daemons
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._reader), 0.5)
        return code

    def cpu_seconds(self) -> float | None:
        """CPU time used so far by every process of the bot (None without cgroups)."""
        return self.cgroup.cpu_seconds() if self.cgroup is not None else None

    def memory_peak_bytes(self) -> int | None:
        """The most memory the bot used at once (None without cgroups)."""
        return self.cgroup.memory_peak_bytes() if self.cgroup is not None else None

    def oom_killed(self) -> bool:
        """Whether the memory limit was hit."""
        return self.cgroup is not None and self.cgroup.oom_killed()

    async def kill(self) -> None:
        """End the whole sandbox now (every process, however it daemonised) and clean up."""
        if self._closed:
            # the wall clock may be ending it right now: return only once the cgroup and the uid
            # are given back (the caller's event loop may end next, dropping that kill half-way)
            await self._killed.wait()
            return
        self._closed = True
        try:
            await self._kill()
        finally:
            self._killed.set()

    async def _kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            # the outer bwrap: its pid 1 dies with it (--die-with-parent), and the kernel then
            # kills every process left in the PID namespace
            os.kill(self.process.pid, signal.SIGKILL)
        if self.cgroup is not None:
            emptied = await asyncio.to_thread(self.cgroup.kill_all, 1.0)
            if not emptied:
                log.error("sandbox cgroup %s did not empty within 1 s", self.cgroup.dirs)
        with contextlib.suppress(ProcessLookupError):
            await self.process.wait()
        if self._timer is not None and self._timer is not asyncio.current_task():
            self._timer.cancel()
        if self._reader is not None:
            with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(self._reader, 1.0)
        if self.cgroup is not None:
            await asyncio.to_thread(self.cgroup.remove)
        if self.uid is not None:
            self.uid.release()

    async def _capture(self, stream: asyncio.StreamReader) -> None:
        """Copy the bot's output into its log, up to the limit; count and drop the rest."""
        cap = self.limits.output_bytes
        kept = 0
        with self.log_path.open("wb") as out:
            while True:
                chunk = await stream.read(_READ_CHUNK)
                if not chunk:
                    break
                self.output_bytes += len(chunk)
                if kept < cap:
                    piece = chunk[: cap - kept]
                    out.write(piece)
                    out.flush()
                    kept += len(piece)
                    if kept >= cap and len(piece) < len(chunk):
                        self.output_truncated = True
                elif not self.output_truncated:
                    self.output_truncated = True
            if self.output_truncated:
                note = f"\n[arena: output cut at {cap} bytes; {self.output_bytes} bytes written in all]\n"
                out.write(note.encode())

    async def _wall_clock(self) -> None:
        await asyncio.sleep(self.limits.wall_seconds)
        if self.process.returncode is None:
            self.killed_for = f"wall time ({self.limits.wall_seconds} s)"
            log.warning("sandbox pid %d killed: %s", self.pid, self.killed_for)
            await self.kill()


class Sandbox:
    """Launches hosted bots with bubblewrap, cgroups, rlimits and seccomp (`SANDBOX.md`).

    `check()` raises SandboxUnavailable with a reason where it cannot work; the ladder then
    refuses to run hosted bots (unless the operator said ``--unsafe-no-sandbox``).
    """

    #: a name the launcher shows in logs and replays
    kind = "bubblewrap"

    def __init__(self, limits: SandboxLimits | None = None, runtime: BotRuntime | None = None) -> None:
        self.limits = limits or SandboxLimits.from_env()
        self._runtime = runtime
        self._bwrap = shutil.which("bwrap")
        self._skeleton: Path | None = None

    @property
    def runtime(self) -> BotRuntime:
        """The interpreters and SDKs mounted into every sandbox."""
        if self._runtime is None:
            self._runtime = default_runtime()
        return self._runtime

    def check(self) -> None:
        """Raise SandboxUnavailable unless bubblewrap, user namespaces and libseccomp work here.
        Also removes the empty cgroups of workers that died without cleaning up."""
        if cgroup_version() is not None:
            with contextlib.suppress(OSError):
                removed = remove_stale_groups()
                if removed:
                    log.info("removed %d empty sandbox cgroups of workers no longer running", removed)
        if self._bwrap is None:
            raise SandboxUnavailable("bubblewrap (bwrap) is not installed: apt-get install bubblewrap")
        try:
            os.close(compile_filter())
        except SeccompUnavailable as exc:
            raise SandboxUnavailable(str(exc)) from exc
        max_userns = Path("/proc/sys/user/max_user_namespaces")
        if max_userns.exists() and max_userns.read_text().strip() == "0":
            raise SandboxUnavailable("user namespaces are disabled (user.max_user_namespaces = 0)")
        try:
            runtime = self.runtime
        except (StagingError, OSError) as exc:
            raise SandboxUnavailable(f"the sandbox's files cannot be staged: {exc}") from exc
        if os.geteuid() == 0:
            for path in (runtime.stage, *(m.source for m in runtime.mounts)):
                why = None if path is None else unreachable_reason(path)
                if why is not None:
                    raise SandboxUnavailable(
                        f"the bots' uids cannot reach the staging folder {path}: {why} "
                        f"(set ${ENV_STAGE_DIR} to a folder whose parents others may search)"
                    )

    async def launch(
        self,
        command: str,
        *,
        files_dir: Path | None,
        referee_socket: Path,
        env: Mapping[str, str],
        log_path: Path,
        name: str = "bot",
    ) -> SandboxedBot:
        """Start `command` (a shell command line run in /bot) in a new sandbox.

        `files_dir`: the bot's files, shown read-only at /bot (None: an empty /bot).
        `referee_socket`: the referee's Unix socket on the host, shown at /run/arena/referee.sock.
        `env`: the ``ARENA_*`` variables the bot gets (the referee address and its seat token);
        anything not named ``ARENA_*`` is refused, so a caller can't leak its own environment.
        Output goes to `log_path`, capped at the output limit.
        """
        if self._bwrap is None:
            raise SandboxUnavailable("bubblewrap (bwrap) is not installed: apt-get install bubblewrap")
        stray = sorted(k for k in env if not k.startswith("ARENA_"))
        if stray:
            raise ValueError(f"a sandboxed bot gets only ARENA_* variables, not {stray}")
        runtime = self.runtime
        own_uid = os.geteuid() == 0
        if own_uid:
            # the bot's own uid mounts the staged runtime (its folders are open to it); the bot's
            # files and the referee's socket are mounted by root, in the sandbox's own mount
            # namespace, so no folder on their way needs to be open to other users: only the
            # bot's folder itself (the socket's is the worker's alone)
            mounted = [m.source for m in runtime.mounts]
            for path in mounted:
                why = unreachable_reason(path)
                if why is not None:
                    raise SandboxUnavailable(f"the sandbox user cannot reach {path}: {why}")
            why = None if files_dir is None else unreadable_reason(files_dir)
            if why is not None:
                raise SandboxUnavailable(f"the sandbox user cannot read {files_dir}: {why}")
        missing = runtime.unavailable_for(command)
        if missing is not None:
            # the bot starts and ends at once with the reason as its output: its match, and its
            # version's qualification, fail with that line rather than "node: not found"
            command = f"echo {shlex.quote('arena: ' + missing)} >&2; exit 127"
        limits = self.limits
        group_name = f"{name}-{os.getpid()}-{secrets.token_hex(4)}"
        cgroup = await asyncio.to_thread(
            BotCgroup.create, group_name, limits.memory_bytes, limits.pids, cpu_cores=limits.cpu_cores
        )
        uid = claim_uid()
        fds: list[int] = []
        try:
            seccomp_fd = compile_filter()
            fds.append(seccomp_fd)
            if uid is not None:
                args = self._private_bwrap_args(files_dir, env, seccomp_fd)
            else:
                args = self._bwrap_args(command, files_dir, referee_socket, env, seccomp_fd, fds)
            args_fd = _memory_file(b"".join(a.encode() + b"\0" for a in args))
            fds.append(args_fd)
            # the command goes on the real command line (bwrap reads only options from --args);
            # it holds nothing secret: the token is in the environment, inside the memory file
            argv = [
                *self._launcher_argv(cgroup, uid, args_fd, files_dir, referee_socket),
                "--", "/bin/sh", "-c", command,
            ]  # fmt: skip
            log_path.parent.mkdir(parents=True, exist_ok=True)
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"},
                cwd="/",
                pass_fds=tuple(fds),
                start_new_session=True,
            )
        except BaseException:
            if cgroup is not None:
                cgroup.remove()
            if uid is not None:
                uid.release()
            raise
        finally:
            for fd in fds:
                os.close(fd)
        bot = SandboxedBot(process, cgroup, uid, log_path, limits, time.monotonic())
        assert process.stdout is not None
        bot._reader = asyncio.create_task(bot._capture(process.stdout), name=f"sandbox-log-{name}")
        bot._timer = asyncio.create_task(bot._wall_clock(), name=f"sandbox-wall-{name}")
        return bot

    def _launcher_argv(
        self,
        cgroup: BotCgroup | None,
        uid: ClaimedUid | None,
        args_fd: int,
        files_dir: Path | None = None,
        referee_socket: Path | None = None,
    ) -> list[str]:
        """sh (joins the cgroup) → [own uid: unshare (a private mount namespace) → sh (mounts
        the bot's files, the referee's socket and its scratch as root)] → prlimit → setpriv (own
        uid) → bwrap --args FD."""
        limits = self.limits
        assert self._bwrap is not None
        rlimits = [
            f"--nofile={limits.open_files}",
            f"--fsize={limits.file_size_mb * 1024 * 1024}",
            # soft: SIGXCPU; hard one second later: SIGKILL
            f"--cpu={limits.cpu_seconds}:{limits.cpu_seconds + 1}",
            "--core=0",
        ]
        if uid is not None:
            # counted per real uid: the sandbox's own uid holds only this bot's processes
            rlimits.append(f"--nproc={limits.pids}")
        if cgroup is None:
            # no memory cgroup: bound the address space instead (coarser: runtimes that reserve
            # large virtual areas, such as Node, need a higher figure; see SANDBOX.md)
            rlimits.append(f"--as={limits.memory_bytes * 4}")
        argv = ["prlimit", *rlimits, "--"]
        if uid is not None:
            argv += [
                "setpriv",
                f"--reuid={uid.uid}",
                f"--regid={uid.uid}",
                "--clear-groups",
                "--no-new-privs",
                "--",
            ]
        argv += [self._bwrap, "--args", str(args_fd)]
        if uid is not None:
            stage = self._stage()
            scratch = str(self.limits.scratch_mb * 1024 * 1024)
            bot = "" if files_dir is None else str(files_dir.resolve())
            argv = [
                "unshare", "--mount", "--propagation", "private", "--",
                "/bin/sh", "-c", _PRIVATE_MOUNTS, "arena-mounts", str(stage / "mnt"), bot, scratch,
                str(referee_socket) if referee_socket is not None else "/dev/null", *argv,
            ]  # fmt: skip
        if cgroup is None:
            return argv
        procs = " ".join(str(p) for p in cgroup.procs_files)
        return ["/bin/sh", "-c", _JOIN_CGROUP, "arena-sandbox", procs, *argv]

    def _stage(self) -> Path:
        """The staging folder of the runtime's mounts (workers/sandbox/staging.py)."""
        stage = self.runtime.stage
        if stage is None:
            raise SandboxUnavailable(
                "this sandbox runtime has no staging folder (a sandbox of its own uid needs one)"
            )
        return stage

    def _root_skeleton(self) -> Path:
        """The staged read-only root the bot sees as /, made once per runtime."""
        if self._skeleton is None:
            runtime = self.runtime
            points = [(m.target, m.source.is_dir()) for m in runtime.mounts]
            self._skeleton = skeleton(
                self._stage(), points, runtime.symlinks, {"passwd": _PASSWD, "group": _GROUP}
            )
        return self._skeleton

    def _private_bwrap_args(
        self, files_dir: Path | None, env: Mapping[str, str], seccomp_fd: int
    ) -> list[str]:
        """bubblewrap's arguments for a bot of its own uid: no tmpfs of bubblewrap's own (its
        options name the uid that mounted it, shown in /proc/self/mountinfo); the root is the
        staged skeleton, the scratch and /dev/shm the tmpfs the private mount namespace's root
        shell mounted on ``mnt/`` (owned by root, mode 1777), the bot's files and the referee's
        socket its binds there."""
        mnt = self._stage() / "mnt"
        args = [
            "--unshare-all",  # user, ipc, pid, net, uts, cgroup
            "--unshare-user",
            "--disable-userns",  # and no further user namespaces inside
            "--die-with-parent",
            "--new-session",  # no controlling terminal: no TIOCSTI into ours
            "--uid", str(INSIDE_UID),
            "--gid", str(INSIDE_UID),
            "--hostname", "arena-bot",
            "--ro-bind", str(self._root_skeleton()), "/",
            "--ro-bind", "/usr", "/usr",
            "--ro-bind-try", "/usr/lib64", "/usr/lib64",
            "--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache",
            "--ro-bind-try", "/etc/localtime", "/etc/localtime",
            "--proc", "/proc",
        ]  # fmt: skip
        for device in _DEVICES:
            # /dev/tty may be missing in a container: its mount point then stays an empty file
            args += ["--dev-bind-try" if device == "/dev/tty" else "--dev-bind", device, device]
        args += [
            "--bind", str(mnt / "shm"), "/dev/shm",
            "--bind", str(mnt / "scratch"), SCRATCH_DIR,
            "--bind", str(mnt / "referee.sock"), REFEREE_SOCKET,
            "--ro-bind", str(mnt / "bot"), BOT_DIR,
        ]  # fmt: skip
        for mount in self.runtime.mounts:
            args += ["--ro-bind", str(mount.source), mount.target]
        args += ["--chdir", BOT_DIR, "--clearenv"]
        referee = {"ARENA_REFEREE": f"unix:{REFEREE_SOCKET}"}
        for key, value in {**_BASE_ENV, **self.runtime.env, **env, **referee}.items():
            args += ["--setenv", key, value]
        args += ["--seccomp", str(seccomp_fd)]
        return args

    def _bwrap_args(
        self,
        command: str,
        files_dir: Path | None,
        referee_socket: Path,
        env: Mapping[str, str],
        seccomp_fd: int,
        fds: list[int],
    ) -> list[str]:
        """bubblewrap's arguments; memory files it reads are appended to `fds` (to pass, then close)."""
        runtime = self.runtime
        limits = self.limits
        args = [
            "--unshare-all",  # user, ipc, pid, net, uts, cgroup
            "--unshare-user",
            "--disable-userns",  # and no further user namespaces inside
            "--die-with-parent",
            "--new-session",  # no controlling terminal: no TIOCSTI into ours
            "--uid", str(INSIDE_UID),
            "--gid", str(INSIDE_UID),
            "--hostname", "arena-bot",
            "--ro-bind", "/usr", "/usr",
            "--symlink", "usr/bin", "/bin",
            "--symlink", "usr/sbin", "/sbin",
            "--symlink", "usr/lib", "/lib",
            "--ro-bind-try", "/usr/lib64", "/usr/lib64",
            "--symlink", "usr/lib64", "/lib64",
            "--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache",
            "--ro-bind-try", "/etc/localtime", "/etc/localtime",
            "--proc", "/proc",
            "--dev", "/dev",
            # --dev's /dev is a writable tmpfs of no size (its /dev/shm a plain folder in it): a
            # way around the scratch limit and "read-only but /scratch". POSIX shared memory
            # (Python's multiprocessing locks) gets a tmpfs of the scratch size; /dev goes read-only
            "--size", str(limits.scratch_mb * 1024 * 1024),
            "--tmpfs", "/dev/shm",
            "--remount-ro", "/dev",
            "--size", str(limits.scratch_mb * 1024 * 1024),
            "--perms", "0700",
            "--tmpfs", SCRATCH_DIR,
            "--symlink", SCRATCH_DIR, "/tmp",
            "--dir", "/run/arena",
            "--bind", str(referee_socket), REFEREE_SOCKET,
        ]  # fmt: skip
        # /etc/passwd and /etc/group name the bot's user (some runtimes ask), nothing else
        for target, text in (("/etc/passwd", _PASSWD), ("/etc/group", _GROUP)):
            fd = _memory_file(text.encode())
            fds.append(fd)
            args += ["--ro-bind-data", str(fd), target]
        # bwrap mounts these as the bot's own user: every folder on the way must be reachable
        # by others (`reachable` said so before launch)
        if files_dir is not None:
            args += ["--ro-bind", str(files_dir), BOT_DIR]
        else:
            args += ["--dir", BOT_DIR]
        for mount in runtime.mounts:
            args += ["--ro-bind", str(mount.source), mount.target]
        for target, link in runtime.symlinks:
            args += ["--symlink", target, link]
        args += ["--remount-ro", "/", "--chdir", BOT_DIR, "--clearenv"]
        referee = {"ARENA_REFEREE": f"unix:{REFEREE_SOCKET}"}
        for key, value in {**_BASE_ENV, **runtime.env, **env, **referee}.items():
            args += ["--setenv", key, value]
        args += ["--seccomp", str(seccomp_fd)]
        return args


def unreadable_reason(path: Path) -> str | None:
    """Why a user other than the owner can't list `path` itself (no o+r or o+x), or None."""
    mode = path.resolve().stat().st_mode
    if mode & 0o005 != 0o005:
        return f"{path} is not readable by other users (mode {mode & 0o777:o})"
    return None


def unreachable_reason(path: Path) -> str | None:
    """Why a user other than the owner can't reach `path` (a folder on the way without o+x,
    or the path itself without o+r), or None when it can."""
    path = path.resolve()
    for folder in reversed(path.parents):
        if not folder.stat().st_mode & 0o001:
            return f"{folder} is not searchable by other users (mode {folder.stat().st_mode & 0o777:o})"
    mode = path.stat().st_mode
    if not mode & 0o004:
        return f"{path} is not readable by other users (mode {mode & 0o777:o})"
    return None


def _memory_file(data: bytes) -> int:
    """A memory file holding `data`, positioned at its start."""
    fd = os.memfd_create("arena-sandbox-data", 0)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
