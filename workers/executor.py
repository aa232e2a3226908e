"""The seam between running a match and playing it: :class:`MatchExecutor`.

:func:`workers.match_execution.run_match` claims a match, builds a :class:`LadderMatchSpec` from the
database and asks :func:`executor_for` for an executor; the executor plays the game and returns
an :class:`Execution` (result + replay); ``run_match`` records it. Executors know nothing about
the database, leases or Celery.

Two executors:

* :class:`InProcessExecutor` — every seat is a built-in bot (``builtin:<name>``): the game runs
  in this process through ``referee.runner.play_local``. Built-in bots are our own code, so they
  are trusted: no sandbox and no time control (decision times are still measured).
* the **referee executor** — any seat is a hosted command or a remote bot. Those must go through
  the gRPC referee (``referee/server``): it runs the session with time controls, launches hosted
  bots in the sandbox with one-time seat tokens, and waits for remote bots to connect with their
  bot tokens. It is loaded lazily, in the process that first needs it (so gRPC channels are
  created after Celery forks its pool), from ``$ARENA_REFEREE_EXECUTOR`` =
  ``"module:factory"`` (default :data:`DEFAULT_REFEREE_EXECUTOR`). The factory takes no
  arguments and returns a :class:`MatchExecutor`; if it also has ``can_seat(command, bot_id)
  -> bool`` the matchmaker asks it whether a hosted/remote bot version of bot `bot_id` can be
  seated now (a remote bot only while it is connected: the bot id says which bot). If that
  module cannot be imported, matches with such seats fail with reason ``unavailable`` and the
  matchmaker does not schedule them.
"""

from __future__ import annotations

import importlib
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol, runtime_checkable

from ladder.live import LiveFeed
from referee import settings
from referee.bots import LocalBot, available, make_bot
from referee.core.game import Action, Result
from referee.runner import play_local
from workers.bot_commands import BotCommand

__all__ = [
    "DEFAULT_REFEREE_EXECUTOR",
    "REFEREE_EXECUTOR_ENV",
    "Execution",
    "ExecutorUnavailable",
    "InProcessExecutor",
    "LadderMatchSpec",
    "LadderTimeControl",
    "MatchAborted",
    "MatchExecutor",
    "SeatSpec",
    "StopSignal",
    "can_seat",
    "executor_for",
    "live_feed",
    "referee_executor",
    "reset_referee_executor",
]

REFEREE_EXECUTOR_ENV: Final = "ARENA_REFEREE_EXECUTOR"
#: where the gRPC referee's executor factory will live once referee/server lands
DEFAULT_REFEREE_EXECUTOR: Final = "workers.grpc_executor:create_executor"


class ExecutorUnavailable(RuntimeError):
    """No executor can play these seats here (e.g. hosted bots without the gRPC referee)."""


class MatchAborted(Exception):
    """The match was stopped before its end (the lease was lost, or the time limit passed)."""


@dataclass(frozen=True, slots=True)
class LadderTimeControl:
    """A ladder's time control: deadline per decision, time bank per match, strikes allowed,
    and the optional CPU clock for sandboxed bots (0: off)."""

    decision_ms: int
    bank_ms: int
    max_strikes: int
    cpu_decision_ms: int = 0
    cpu_bank_ms: int = 0


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """Who plays one seat."""

    seat: int
    bot_id: int
    bot_name: str
    version_id: int
    version: str
    command: BotCommand
    #: a hosted bot's files (its unpacked upload), shown read-only at /bot in its sandbox
    files_dir: str | None = None


@dataclass(frozen=True, slots=True)
class LadderMatchSpec:
    """Everything needed to play one match."""

    match_id: int
    ladder_id: int
    game: str
    config: Mapping[str, Any]
    seed: int
    time_control: LadderTimeControl
    seats: tuple[SeatSpec, ...]
    #: the rules played: the engine version the match was claimed at (its ladder's); empty: the
    #: build's current version
    engine_version: str = ""


@dataclass(frozen=True, slots=True)
class Execution:
    """A played match: the result, the replay document, and figures for the metrics.

    `reason` says why the match ended (``finished``, or ``forfeit: seat 1 crashed`` ...);
    `forfeits` lists (seat, reason) pairs; `decision_seconds` every decision's latency.
    `logs` holds each hosted seat's captured output: seat -> (bytes, truncated), stored for the
    bot's owner (``bot_logs``).
    """

    result: Result
    replay: dict[str, Any]
    reason: str = "finished"
    decisions: int = 0
    decision_seconds: tuple[float, ...] = ()
    timeouts: int = 0
    forfeits: tuple[tuple[int, str], ...] = ()
    logs: Mapping[int, tuple[bytes, bool]] = field(default_factory=dict)


class StopSignal(Protocol):
    """Asked between decisions: a non-None reason means stop now (raise MatchAborted)."""

    def stop_reason(self) -> str | None:
        """Why the match must stop, or None to go on."""
        ...


@runtime_checkable
class MatchExecutor(Protocol):
    """Plays a match to its end and returns the result and replay.

    Bot faults (timeouts, crashes, illegal answers) are outcomes inside the Execution, never
    exceptions. Raise :class:`MatchAborted` when `stop` asks to stop; any other exception means
    the platform failed and the match is marked failed.
    """

    def execute(self, spec: LadderMatchSpec, stop: StopSignal) -> Execution:
        """Play `spec` and return what happened."""
        ...


@dataclass
class _PacedBot:
    """A built-in bot that checks the stop signal, measures itself and may think slowly."""

    bot: LocalBot
    think_s: float
    stop: StopSignal
    latencies: list[float] = field(default_factory=list)
    name: str = ""

    def __post_init__(self) -> None:
        self.name = self.bot.name

    def act(self, observation: dict[str, Any], legal_actions: Sequence[Action]) -> int:
        reason = self.stop.stop_reason()
        if reason is not None:
            raise MatchAborted(reason)
        started = time.perf_counter()
        if self.think_s:
            time.sleep(self.think_s)
        index = self.bot.act(observation, legal_actions)
        self.latencies.append(time.perf_counter() - started)
        return index


class InProcessExecutor:
    """Plays matches whose every seat is a built-in bot, in this process."""

    def execute(self, spec: LadderMatchSpec, stop: StopSignal) -> Execution:
        """Play `spec` with ``referee.runner.play_local``; the bots get the runner's seeds."""
        paced = []
        for seat in spec.seats:
            if seat.command.kind != "builtin":
                raise ExecutorUnavailable(f"seat {seat.seat} is not a built-in bot")
            bot = make_bot(spec.game, seat.command.builtin, spec.seed * 31 + seat.seat)
            paced.append(_PacedBot(bot, seat.command.think_ms / 1000, stop))
        names = [seat.command.builtin for seat in spec.seats]
        feed = live_feed(spec.match_id)
        played = play_local(
            spec.game, names, spec.seed, spec.config, bots=paced, engine_version=spec.engine_version,
            on_action=None if feed is None else (lambda seat, a: feed.action(seat, a.text or a.kind)),
        )
        replay = dict(played.replay)
        # name the ladder's bots in the replay, not only the built-in strategy behind them
        replay["seats"] = [
            {**recorded, "bot_id": s.bot_id, "bot_name": s.bot_name, "bot_version_id": s.version_id,
             "version": s.version}
            for recorded, s in zip(played.replay["seats"], spec.seats, strict=True)
        ]
        return Execution(
            result=played.result,
            replay=replay,
            decisions=played.decisions,
            decision_seconds=tuple(t for bot in paced for t in bot.latencies),
        )


_lock = threading.Lock()
_loaded: dict[str, MatchExecutor | None] = {}
#: the live feed of each match this process plays now (``run_match`` sets and removes it; the
#: executors hand it each step: ladder/live.py)
_feeds: dict[int, LiveFeed] = {}


def live_feed(match_id: int) -> LiveFeed | None:
    """The live feed of match `match_id` if this process is playing it with one."""
    with _lock:
        return _feeds.get(match_id)


def set_live_feed(match_id: int, feed: LiveFeed | None) -> None:
    """Make `feed` match `match_id`'s live feed (None: it has none any more)."""
    with _lock:
        if feed is None:
            _feeds.pop(match_id, None)
        else:
            _feeds[match_id] = feed


def _load_referee_executor(target: str) -> MatchExecutor | None:
    module_name, _, attr = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and module_name.startswith(exc.name):
            return None  # not built yet (or not installed here)
        raise
    factory: Callable[[], Any] = getattr(module, attr or "create_executor")
    executor = factory()
    if not isinstance(executor, MatchExecutor):
        raise TypeError(f"{target} returned {executor!r}, which has no execute(spec, stop)")
    return executor


def referee_executor() -> MatchExecutor | None:
    """This process's gRPC referee executor, created on first use; None if there is none."""
    target = settings.current().referee_executor
    with _lock:
        if target not in _loaded:
            _loaded[target] = _load_referee_executor(target)
        return _loaded[target]


def reset_referee_executor() -> None:
    """Forget the loaded referee executor (after a fork: its channels belong to the parent)."""
    with _lock:
        _loaded.clear()


def can_seat(game: str, command: BotCommand, bot_id: int | None = None) -> bool:
    """True if a version of bot `bot_id` with `command` can be seated in a match of `game` now.

    The referee executor's ``can_seat(command, bot_id)`` decides for hosted and remote bots (a
    remote bot: is bot `bot_id` connected?).
    """
    if command.kind == "builtin":
        return command.builtin in available(game)
    executor = referee_executor()
    if executor is None:
        return False
    check: Callable[[BotCommand, int | None], bool] | None = getattr(executor, "can_seat", None)
    return True if check is None else bool(check(command, bot_id))


_IN_PROCESS: Final = InProcessExecutor()


def executor_for(spec: LadderMatchSpec) -> MatchExecutor:
    """The executor that can play `spec`. Raises ExecutorUnavailable if none can."""
    if all(seat.command.kind == "builtin" for seat in spec.seats):
        return _IN_PROCESS
    executor = referee_executor()
    if executor is None:
        raise ExecutorUnavailable(
            "hosted and remote bots need the gRPC referee executor "
            f"(${REFEREE_EXECUTOR_ENV}, default {DEFAULT_REFEREE_EXECUTOR}), which is not available"
        )
    return executor
