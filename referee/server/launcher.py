"""Play one match over real gRPC between bot commands, each in its own process.

Used by `arena match` and `arena bot check`. It starts a referee on a free local port,
creates the match through the admin service, launches every bot command with its address and
one-time seat token in the environment (ARENA_REFEREE, ARENA_TOKEN), follows the match through
WatchMatch, and fetches the replay. A bot process that exits before the match ends is reported
to the referee as a crash. A seat given a `SeatPlayer` (`arena match --bot builtin:NAME`) is
played in a thread of this process instead, over the same gRPC and clock as the others.

`launch_bot`, `stop_bots` and `follow_match` are the pieces; the ladder's executor
(`workers.grpc_executor`) uses them too.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import grpc

from referee.core.game import canonical_json
from referee.server.config import ServerLimits, TimeControl
from referee.server.server import start
from referee.wire import admin_calls, bearer
from referee.wire._proto.arena.v1 import admin_pb2

__all__ = [
    "BotProcess",
    "BotRun",
    "BotSandbox",
    "LaunchedMatch",
    "SeatPlayer",
    "follow_match",
    "interpreter_env",
    "killed_for",
    "launch_bot",
    "missing_sdk_hint",
    "run_match",
    "stop_bots",
]

ENV_REFEREE = "ARENA_REFEREE"
ENV_TOKEN = "ARENA_TOKEN"
#: how long bots get to exit on their own after the match before they are stopped
EXIT_WAIT_S = 5.0

#: plays one seat in this process: (referee address, seat token, the seat's log file), blocking
#: until its game ends (a built-in bot behind a gRPC client; the referee has none of its own, so
#: the composition root hands it in). It must not raise: it writes what went wrong to the log.
SeatPlayer = Callable[[str, str, Path], None]


class BotProcess(Protocol):
    """A launched bot: a plain process group, or a sandbox (`BotSandbox.launch`)."""

    @property
    def pid(self) -> int:
        """The host pid of the bot's outermost process."""
        ...

    @property
    def returncode(self) -> int | None:
        """Its exit code once it ended."""
        ...

    async def wait(self) -> int:
        """Wait for the bot's main process to end."""
        ...

    async def kill(self) -> None:
        """End every process of the bot, now."""
        ...

    def cpu_seconds(self) -> float | None:
        """CPU time the bot has used so far, all its processes together (None: not measured).
        The referee's CPU clock reads it (`MatchSession.set_cpu_meter`)."""
        ...


class BotSandbox(Protocol):
    """Runs a bot command in a sandbox (``workers.sandbox.Sandbox`` is the one we ship).

    The sandbox shows the referee's Unix socket to the bot and sets its ``ARENA_REFEREE``;
    `env` holds only ``ARENA_*`` variables (the seat token).
    """

    kind: str

    async def launch(
        self,
        command: str,
        *,
        files_dir: Path | None,
        referee_socket: Path,
        env: Mapping[str, str],
        log_path: Path,
        name: str = ...,
    ) -> BotProcess:
        """Start `command` in a new sandbox."""
        ...


def interpreter_env(env: Mapping[str, str]) -> dict[str, str]:
    """`env` with the running interpreter's folder first on ``PATH``.

    ``python`` in an unsandboxed bot command is then the interpreter `arena` runs on (its
    virtualenv, where the project and the SDK are installed), as if the virtualenv were
    activated: without it, ``python bots/python/examples/random_bot.py`` fails with "No module
    named 'bots'" (or "python: not found") whenever the shell's ``python`` is another one.
    """
    folder = os.path.dirname(sys.executable)
    path = env.get("PATH", os.defpath)
    if not folder or path.split(os.pathsep)[0] == folder:
        return dict(env)
    return {**env, "PATH": f"{folder}{os.pathsep}{path}"}


def missing_sdk_hint(output: str) -> str:
    """What to do when an unsandboxed bot's `output` says ``No module named 'arena_bot'`` (the
    import the README's bots use: the SDK's one name, installed with the project, but not in
    the Python the bot's command runs) or that Node.js cannot find the JavaScript kit's own
    packages (its ``npm ci`` never run: :func:`referee.bot_output.js_kit_hint`); "" otherwise."""
    from referee.bot_output import js_kit_hint

    if "No module named 'arena_bot'" not in output:
        return js_kit_hint(output)
    return (
        "arena_bot is the SDK's name in the sandbox (--sandbox, the ladder); to run the bot "
        "outside it, install the SDK here: pip install ./bots/python (bots/python/README.md)"
    )


class _ProcessGroup:
    """An unsandboxed bot: a shell command in its own process group."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    async def wait(self) -> int:
        return await self.process.wait()

    def cpu_seconds(self) -> float | None:
        return None  # no cgroup of its own: only the sandbox measures a bot's CPU time

    async def kill(self) -> None:
        # the whole group, whether or not its leader still lives: children it forked keep the
        # group after the leader exits (a process that calls setsid escapes it: only the
        # sandbox stops that)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            await self.process.wait()


@dataclass
class BotRun:
    """One launched bot command."""

    seat: int
    command: str
    log_path: Path
    exit_code: int | None = None
    #: the running bot (a process group or a sandbox)
    process: BotProcess | None = None
    #: "bubblewrap" when sandboxed, "" when not
    sandbox: str = ""
    #: which of its sandbox's limits ended the bot, when known ("memory limit of 512 MB"), else ""
    killed_for: str = ""

    def log_tail(self, lines: int = 20) -> str:
        """The last lines the bot printed."""
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])


async def launch_bot(
    seat: int,
    command: str,
    address: str,
    token: str,
    log_path: Path,
    *,
    on_exit: Callable[[BotRun], None] | None = None,
    base_env: Mapping[str, str] | None = None,
    sandbox: BotSandbox | None = None,
    files_dir: Path | None = None,
    referee_socket: Path | None = None,
) -> tuple[BotProcess, BotRun, asyncio.Task[None]]:
    """Start one bot command with its seat token, its output to `log_path`.

    Unsandboxed (`sandbox` None): a shell command line in its own process group, with the
    referee address and its seat token in ARENA_REFEREE / ARENA_TOKEN and the rest of its
    environment `base_env` (default: this process's), this interpreter's folder first on PATH
    (`interpreter_env`).
    Sandboxed: `sandbox.launch` with `files_dir` as the bot's read-only files and the referee's
    `referee_socket` (required), and no environment but ARENA_TOKEN (the sandbox adds its own).

    Returns the process, its BotRun and a task that sets `exit_code` (and calls `on_exit`)
    when the process ends.
    """
    run = BotRun(seat, command, log_path)
    process: BotProcess
    if sandbox is not None:
        if referee_socket is None:
            raise ValueError("a sandboxed bot reaches the referee only through its Unix socket")
        process = await sandbox.launch(
            command,
            files_dir=files_dir,
            referee_socket=referee_socket,
            env={ENV_TOKEN: token},
            log_path=log_path,
            name=f"seat{seat}",
        )
        run.sandbox = sandbox.kind
    else:
        env = {
            **interpreter_env(os.environ if base_env is None else base_env),
            ENV_REFEREE: address,
            ENV_TOKEN: token,
        }
        with run.log_path.open("wb") as out:
            plain = await asyncio.create_subprocess_shell(
                command,
                env=env,
                stdout=out,
                stderr=asyncio.subprocess.STDOUT,
                stdin=asyncio.subprocess.DEVNULL,
                start_new_session=True,
                cwd=files_dir,
            )
        process = _ProcessGroup(plain)
    run.process = process

    async def watch() -> None:
        run.exit_code = await process.wait()
        run.killed_for = killed_for(process, run.exit_code)
        if on_exit is not None:
            on_exit(run)

    return process, run, asyncio.create_task(watch(), name=f"bot-{seat}")


def killed_for(process: BotProcess, exit_code: int | None) -> str:
    """Which sandbox limit ended a bot, "" for a plain process or none: its wall time (the
    sandbox's own clock says so), its memory (the cgroup's OOM count: read it while the sandbox
    exists, as the bot exits) or its CPU seconds (RLIMIT_CPU's signal in `exit_code`)."""
    limits = getattr(process, "limits", None)
    if limits is None:
        return ""
    own = getattr(process, "killed_for", None)
    if own:
        return str(own)
    oom_killed = getattr(process, "oom_killed", None)
    if callable(oom_killed) and oom_killed():
        return f"memory limit of {limits.memory_mb} MB"
    if exit_code == 128 + signal.SIGXCPU:  # RLIMIT_CPU's soft limit; its shell reports 128 + N
        return f"CPU seconds limit of {limits.cpu_seconds} s"
    return ""


async def stop_bots(procs: Sequence[BotProcess], watchers: Sequence[asyncio.Task[None]] = ()) -> None:
    """End every process of every bot (each its whole process group or sandbox) and reap them."""
    await asyncio.gather(*(proc.kill() for proc in procs), return_exceptions=True)
    for task in watchers:
        task.cancel()
    await asyncio.gather(*watchers, return_exceptions=True)


async def follow_match(
    admin: dict[str, Any],
    auth: Sequence[tuple[str, str]],
    match_id: str,
    on_event: Callable[[admin_pb2.MatchEvent], None] | None = None,
) -> tuple[admin_pb2.MatchStatus, bytes, int]:
    """Follow a match through WatchMatch to its end; its final status, its replay, the events."""
    request = admin_pb2.GetMatchRequest(match_id=match_id)
    events = 0
    async for event in admin["WatchMatch"](request, metadata=auth):
        events += 1
        if on_event is not None:
            on_event(event)
    status = await admin["GetMatch"](request, metadata=auth)
    replay = await admin["GetReplay"](request, metadata=auth)
    return status, replay.data, events


@dataclass
class LaunchedMatch:
    """What `run_match` returns."""

    match_id: str
    status: admin_pb2.MatchStatus
    replay: bytes
    bots: list[BotRun] = field(default_factory=list)
    events: int = 0


async def run_match(
    game: str,
    commands: Sequence[str],
    *,
    seed: int = 1,
    config: Mapping[str, Any] | None = None,
    time_control: TimeControl | None = None,
    log_dir: Path | None = None,
    on_event: Callable[[admin_pb2.MatchEvent], None] | None = None,
    limits: ServerLimits | None = None,
    names: Sequence[str] | None = None,
    sandbox: BotSandbox | None = None,
    files_dir: Path | None = None,
    in_process: Mapping[int, SeatPlayer] | None = None,
) -> LaunchedMatch:
    """Play one match; raises grpc.aio.AioRpcError if the referee refuses the match request.

    With a `sandbox`, every command runs inside one (as the ladder runs hosted bots), with
    `files_dir` as its read-only files, reaching the referee through a Unix socket.
    A seat in `in_process` is not launched: its player plays it in a thread of this process
    (over TCP, outside any sandbox: it is the platform's own code, as the ladder's built-in
    seats); its BotRun has no process and no exit code.
    """
    tc = time_control or TimeControl()
    admin_token = secrets.token_urlsafe(16)
    socket_dir = Path(tempfile.mkdtemp(prefix="arena-referee-")) if sandbox is not None else None
    socket_path = socket_dir / "referee.sock" if socket_dir is not None else None
    running = await start(
        "127.0.0.1",
        0,
        limits=limits,
        admin_token=admin_token,
        unix_socket=str(socket_path) if socket_path is not None else None,
    )
    logs = log_dir or Path(tempfile.mkdtemp(prefix="arena-bots-"))
    logs.mkdir(parents=True, exist_ok=True)
    procs: list[BotProcess] = []
    runs: list[BotRun] = []
    watchers: list[asyncio.Task[None]] = []
    threads: list[threading.Thread] = []
    players = in_process or {}
    try:
        async with grpc.aio.insecure_channel(running.address) as channel:
            admin = admin_calls(channel)
            auth = bearer(admin_token)
            request = admin_pb2.CreateMatchRequest(
                game=game,
                seats=[
                    admin_pb2.SeatSpec(name=(names[i] if names else cmd)[:64])
                    for i, cmd in enumerate(commands)
                ],
                seed=seed,
                config_json=canonical_json(dict(config)) if config is not None else "",
                time_control=tc.to_proto(),
            )
            created = await admin["CreateMatch"](request, metadata=auth)
            session = running.referee.get(created.match_id)
            assert session is not None
            session.processes_watched = True
            for seat, (command, token) in enumerate(zip(commands, created.seat_tokens, strict=True)):
                player = players.get(seat)
                if player is not None:
                    run = BotRun(seat, command, logs / f"seat{seat}.log")
                    thread = threading.Thread(
                        target=player,
                        args=(running.address, token, run.log_path),
                        name=f"seat-{seat}",
                        daemon=True,  # never keeps `arena` alive if the referee is gone
                    )
                    thread.start()
                    threads.append(thread)
                    runs.append(run)
                    continue
                proc, run, watcher = await launch_bot(
                    seat,
                    command,
                    running.address,
                    token,
                    logs / f"seat{seat}.log",
                    on_exit=lambda run: session.process_exited(run.seat, run.exit_code or 0),
                    sandbox=sandbox,
                    files_dir=files_dir,
                    referee_socket=socket_path,
                )
                if sandbox is not None:  # its cgroup measures its CPU time (PROTOCOL.md, "CPU time")
                    session.set_cpu_meter(seat, proc.cpu_seconds)
                procs.append(proc)
                runs.append(run)
                watchers.append(watcher)
            status, replay, events = await follow_match(admin, auth, created.match_id, on_event)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*watchers), EXIT_WAIT_S)
        return LaunchedMatch(created.match_id, status, replay, runs, events)
    finally:
        await stop_bots(procs, watchers)
        await running.stop(grace=0.2)
        # the referee is gone, so each in-process player's stream has ended or is ending
        deadline = asyncio.get_running_loop().time() + EXIT_WAIT_S
        for thread in threads:
            await asyncio.to_thread(thread.join, max(0.0, deadline - asyncio.get_running_loop().time()))
        if socket_dir is not None:
            shutil.rmtree(socket_dir, ignore_errors=True)
