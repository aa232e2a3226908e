"""Fixtures for the referee tests: a referee on a real port, bots as real processes."""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import subprocess
import sys
import threading
from collections.abc import Coroutine, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import grpc
import pytest
from arena_bot._proto.arena.v1 import admin_pb2
from arena_bot.wire import ADMIN_SERVICE, bearer

from referee.replay import loads
from referee.server.auth import FailedAuthLimiter
from referee.server.config import ServerLimits, TimeControl
from referee.server.launcher import LaunchedMatch, run_match
from referee.server.lobby import Authenticator
from referee.server.server import RunningReferee, start

REPO = Path(__file__).resolve().parents[2]
BOTS = Path(__file__).resolve().parent / "bots"
T = TypeVar("T")

#: the clock of every test that is not about the clock: generous, so that a loaded machine (slow
#: process starts, slow answers) cannot turn a good bot into a timed-out or absent one
CLOCK = TimeControl(decision_ms=2000, bank_ms=10_000, max_strikes=3, connect_ms=30_000)
#: the clock of the tests about timeouts, still far more than a good bot needs. The misbehaving
#: bot sleeps a second past its whole allowance (tests/referee/bots/buggy_bot.py, WAY_PAST_S),
#: and its next decision, sent when the first timed out, still has a second left when it wakes:
#: load cannot flip a timeout, or an answer in time, either way
TIMEOUT_CLOCK = TimeControl(decision_ms=2000, bank_ms=1000, max_strikes=3, connect_ms=30_000)


def timeout_clock(max_strikes: int) -> TimeControl:
    """TIMEOUT_CLOCK with another number of strikes."""
    return TimeControl(
        decision_ms=TIMEOUT_CLOCK.decision_ms,
        bank_ms=TIMEOUT_CLOCK.bank_ms,
        max_strikes=max_strikes,
        connect_ms=TIMEOUT_CLOCK.connect_ms,
    )


def python_bot(path: Path, *args: str) -> str:
    """A shell command running a Python bot with this interpreter."""
    return " ".join([sys.executable, str(path), *args])


RANDOM_BOT = python_bot(REPO / "bots" / "python" / "examples" / "random_bot.py")
GREEDY_BOT = python_bot(REPO / "bots" / "python" / "examples" / "greedy_clank_bot.py")


def buggy(mode: str) -> str:
    """The misbehaving bot in `mode` (see tests/referee/bots/buggy_bot.py)."""
    return python_bot(BOTS / "buggy_bot.py", "--mode", mode)


@dataclass
class Played:
    """A match played through the launcher, with its replay decoded."""

    launched: LaunchedMatch
    replay: dict[str, Any]

    def log(self, seat: int) -> str:
        return self.launched.bots[seat].log_path.read_text()


def play(
    commands: Sequence[str],
    tmp_path: Path,
    *,
    seed: int = 1,
    clock: TimeControl = CLOCK,
    game: str = "clank",
) -> Played:
    """Play one match (Clank! unless told) over gRPC between these bot commands."""
    launched = asyncio.run(
        run_match(game, commands, seed=seed, time_control=clock, log_dir=tmp_path / "logs")
    )
    return Played(launched, loads(launched.replay))


class ThreadedReferee:
    """A referee serving from its own event loop in a thread (for tests written synchronously)."""

    def __init__(
        self,
        limits: ServerLimits | None = None,
        authenticator: Authenticator | None = None,
        auth_limiter: FailedAuthLimiter | None = None,
    ) -> None:
        self.admin_token = secrets.token_urlsafe(8)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.running: RunningReferee = self.call(
            start(
                limits=limits,
                admin_token=self.admin_token,
                authenticator=authenticator,
                auth_limiter=auth_limiter,
            )
        )

    def admin(self, method: str, request: Any, response: Any, timeout: float | None = 10) -> Any:
        """A unary AdminService call."""
        with grpc.insecure_channel(self.address) as channel:
            call = channel.unary_unary(
                f"/{ADMIN_SERVICE}/{method}",
                request_serializer=request.SerializeToString,
                response_deserializer=response.FromString,
            )
            return call(request, metadata=bearer(self.admin_token), timeout=timeout)

    def wait_until_over(self, match_id: str, timeout: float = 180) -> None:
        """Follow WatchMatch until the match has ended."""
        with grpc.insecure_channel(self.address) as channel:
            watch = channel.unary_stream(
                f"/{ADMIN_SERVICE}/WatchMatch",
                request_serializer=admin_pb2.GetMatchRequest.SerializeToString,
                response_deserializer=admin_pb2.MatchEvent.FromString,
            )
            request = admin_pb2.GetMatchRequest(match_id=match_id)
            for _ in watch(request, metadata=bearer(self.admin_token), timeout=timeout):
                pass

    def call(self, coro: Coroutine[Any, Any, T], timeout: float = 60) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    @property
    def address(self) -> str:
        return self.running.address

    def close(self) -> None:
        self.call(self.running.stop(grace=0.2))
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


@dataclass
class BotProcess:
    """A bot command running as a process against a ThreadedReferee, its output in a file."""

    proc: subprocess.Popen[bytes]
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self, wait: float = 10) -> int:
        """Its exit code, once it has exited by itself within `wait` s (else it is killed)."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            return self.proc.wait(wait)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)  # the group started for this bot
        return self.proc.wait(10)


def start_bot(ref: ThreadedReferee, command: str, token: str, log_path: Path) -> BotProcess:
    """Start a bot command with ARENA_REFEREE / ARENA_TOKEN (a seat token or a bot token)."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("wb") as out:
        proc = subprocess.Popen(
            command,
            shell=True,
            env={**os.environ, "ARENA_REFEREE": ref.address, "ARENA_TOKEN": token},
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    return BotProcess(proc, log_path)


@dataclass
class PlayedOn:
    """A match played on a long-lived referee (ThreadedReferee)."""

    match_id: str
    status: admin_pb2.MatchStatus
    replay: dict[str, Any]
    bots: list[BotProcess] = field(default_factory=list)

    def log(self, seat: int) -> str:
        return self.bots[seat].log()


def play_on(
    ref: ThreadedReferee,
    commands: Sequence[str],
    tmp_path: Path,
    *,
    seed: int = 1,
    clock: TimeControl = CLOCK,
    game: str = "clank",
    bound: Sequence[int] = (),
) -> PlayedOn:
    """Play one match on `ref` between bot processes; `bound[i]` (if given and not 0) seats a
    remote bot already connected with its bot token instead of starting `commands[i]`."""
    seats = [
        admin_pb2.SeatSpec(name=f"seat{i}", bot_id=bound[i] if bound else 0) for i in range(len(commands))
    ]
    made = ref.admin(
        "CreateMatch",
        admin_pb2.CreateMatchRequest(game=game, seats=seats, seed=seed, time_control=clock.to_proto()),
        admin_pb2.CreateMatchResponse,
    )
    bots = [
        start_bot(ref, command, token, tmp_path / made.match_id / f"seat{i}.log")
        for i, (command, token) in enumerate(zip(commands, made.seat_tokens, strict=True))
        if token
    ]
    try:
        ref.wait_until_over(made.match_id)
    finally:
        for bot in bots:
            bot.stop()
    request = admin_pb2.GetMatchRequest(match_id=made.match_id)
    status = ref.admin("GetMatch", request, admin_pb2.MatchStatus)
    replay = loads(ref.admin("GetReplay", request, admin_pb2.Replay).data)
    return PlayedOn(made.match_id, status, replay, bots)


@pytest.fixture
def referee_server() -> Iterator[ThreadedReferee]:
    ref = ThreadedReferee()
    try:
        yield ref
    finally:
        ref.close()
