"""Play one match over real gRPC between bot commands, each in its own process.

Used by `arena match` and `arena bot check`. It starts a referee on a free local port,
creates the match through the admin service, launches every bot command with its address and
one-time seat token in the environment (ARENA_REFEREE, ARENA_TOKEN), follows the match through
WatchMatch, and fetches the replay. A bot process that exits before the match ends is reported
to the referee as a crash.

`launch_bot`, `stop_bots` and `follow_match` are the pieces; the ladder's executor
(`referee.server.match_executor`) uses them too.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from bots.python.arena_bot._proto.arena.v1 import admin_pb2
from bots.python.arena_bot.wire import admin_calls, bearer
from referee.core.game import canonical_json
from referee.server.config import ServerLimits, TimeControl
from referee.server.server import start

__all__ = ["BotRun", "LaunchedMatch", "follow_match", "launch_bot", "run_match", "stop_bots"]

ENV_REFEREE = "ARENA_REFEREE"
ENV_TOKEN = "ARENA_TOKEN"
#: how long bots get to exit on their own after the match before they are stopped
EXIT_WAIT_S = 5.0


@dataclass
class BotRun:
    """One launched bot command."""

    seat: int
    command: str
    log_path: Path
    exit_code: int | None = None

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
) -> tuple[asyncio.subprocess.Process, BotRun, asyncio.Task[None]]:
    """Start one bot command (a shell command line, in its own process group) with the referee
    address and its seat token in ARENA_REFEREE / ARENA_TOKEN, its output to `log_path`.
    The rest of its environment is `base_env` (default: this process's).

    Returns the process, its BotRun and a task that sets `exit_code` (and calls `on_exit`)
    when the process ends.
    """
    run = BotRun(seat, command, log_path)
    env = {**(os.environ if base_env is None else base_env), ENV_REFEREE: address, ENV_TOKEN: token}
    with run.log_path.open("wb") as out:
        proc = await asyncio.create_subprocess_shell(
            command,
            env=env,
            stdout=out,
            stderr=asyncio.subprocess.STDOUT,
            stdin=asyncio.subprocess.DEVNULL,
            start_new_session=True,
        )

    async def watch() -> None:
        run.exit_code = await proc.wait()
        if on_exit is not None:
            on_exit(run)

    return proc, run, asyncio.create_task(watch(), name=f"bot-{seat}")


async def stop_bots(
    procs: Sequence[asyncio.subprocess.Process], watchers: Sequence[asyncio.Task[None]] = ()
) -> None:
    """Kill what is still running of the bots (each its whole process group) and reap them."""
    for proc in procs:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)  # the group we started for this bot
    for proc in procs:
        with contextlib.suppress(ProcessLookupError):
            await proc.wait()
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
) -> LaunchedMatch:
    """Play one match; raises grpc.aio.AioRpcError if the referee refuses the match request."""
    tc = time_control or TimeControl()
    admin_token = secrets.token_urlsafe(16)
    running = await start("127.0.0.1", 0, limits=limits, admin_token=admin_token)
    logs = log_dir or Path(tempfile.mkdtemp(prefix="arena-bots-"))
    logs.mkdir(parents=True, exist_ok=True)
    procs: list[asyncio.subprocess.Process] = []
    runs: list[BotRun] = []
    watchers: list[asyncio.Task[None]] = []
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
                proc, run, watcher = await launch_bot(
                    seat,
                    command,
                    running.address,
                    token,
                    logs / f"seat{seat}.log",
                    on_exit=lambda run: session.process_exited(run.seat, run.exit_code or 0),
                )
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
