"""Play one match over real gRPC between bot commands, each in its own process.

Used by `arena match` and `arena bot check`. It starts a referee on a free local port,
creates the match through the admin service, launches every bot command with its address and
one-time seat token in the environment (ARENA_REFEREE, ARENA_TOKEN), follows the match through
WatchMatch, and fetches the replay. A bot process that exits before the match ends is reported
to the referee as a crash.
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

__all__ = ["BotRun", "LaunchedMatch", "run_match"]

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
                run = BotRun(seat, command, logs / f"seat{seat}.log")
                env = {**os.environ, ENV_REFEREE: running.address, ENV_TOKEN: token}
                with run.log_path.open("wb") as out:
                    proc = await asyncio.create_subprocess_shell(
                        command,
                        env=env,
                        stdout=out,
                        stderr=asyncio.subprocess.STDOUT,
                        stdin=asyncio.subprocess.DEVNULL,
                        start_new_session=True,
                    )
                procs.append(proc)
                runs.append(run)

                async def watch(proc: asyncio.subprocess.Process = proc, run: BotRun = run) -> None:
                    run.exit_code = await proc.wait()
                    session.process_exited(run.seat, run.exit_code)

                watchers.append(asyncio.create_task(watch()))
            events = 0
            async for event in admin["WatchMatch"](
                admin_pb2.GetMatchRequest(match_id=created.match_id), metadata=auth
            ):
                events += 1
                if on_event is not None:
                    on_event(event)
            status = await admin["GetMatch"](
                admin_pb2.GetMatchRequest(match_id=created.match_id), metadata=auth
            )
            replay = await admin["GetReplay"](
                admin_pb2.GetMatchRequest(match_id=created.match_id), metadata=auth
            )
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*watchers), EXIT_WAIT_S)
        return LaunchedMatch(created.match_id, status, replay.data, runs, events)
    finally:
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
        await running.stop(grace=0.2)
