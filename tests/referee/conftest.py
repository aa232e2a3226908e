"""Fixtures for the referee tests: a referee on a real port, bots as real processes."""

from __future__ import annotations

import asyncio
import secrets
import sys
import threading
from collections.abc import Coroutine, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

from referee.replay import loads
from referee.server.config import ServerLimits, TimeControl
from referee.server.launcher import LaunchedMatch, run_match
from referee.server.server import RunningReferee, start

REPO = Path(__file__).resolve().parents[2]
BOTS = Path(__file__).resolve().parent / "bots"
T = TypeVar("T")

#: a quick clock so that misbehaviour costs tenths of a second, not seconds
FAST_CLOCK = TimeControl(decision_ms=200, bank_ms=200, max_strikes=3, connect_ms=5000)


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
    clock: TimeControl = FAST_CLOCK,
    game: str = "clank",
) -> Played:
    """Play one match (Clank! unless told) over gRPC between these bot commands."""
    launched = asyncio.run(
        run_match(game, commands, seed=seed, time_control=clock, log_dir=tmp_path / "logs")
    )
    return Played(launched, loads(launched.replay))


class ThreadedReferee:
    """A referee serving from its own event loop in a thread (for tests written synchronously)."""

    def __init__(self, limits: ServerLimits | None = None) -> None:
        self.admin_token = secrets.token_urlsafe(8)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.running: RunningReferee = self.call(start(limits=limits, admin_token=self.admin_token))

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


@pytest.fixture
def referee_server() -> Iterator[ThreadedReferee]:
    ref = ThreadedReferee()
    try:
        yield ref
    finally:
        ref.close()
