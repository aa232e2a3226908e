"""One match played against connected bots: the referee's loop, its clock and its rulings.

The loop mirrors `referee.runner.play_local`: ask the engine whose decision it is, send that seat
its observation and the legal actions, wait (deadline + time bank; and, for a seat whose CPU time
is measured, its CPU allowance + CPU bank: PROTOCOL.md "CPU time"), apply the chosen action,
record it. Only this loop changes the game, so forfeits (a disconnect noticed while another
seat is thinking, too many strikes) are applied between two actions and the replay re-simulates.

Every bot fault is a ruling recorded in the replay (a step's `reason`, a forfeit's `reason`, and
the seat's `strikes` and `incidents`); none of them can stop the match or the server. What the
session keeps for a seat is bounded whatever the bot sends (PROTOCOL.md, "Flooding and not
reading"): its inbox, its outbox, its incidents and its budget of bad messages; a seat that breaks
one of them is faulted (`MatchSession.fault`): its stream ends at once and the loop forfeits it.

The parts: `seat` (a seat's phase, its bounded queues), `rulings` (what happens, as values, from
pure functions), `messages` (the protobuf messages); this module runs them with asyncio.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import time
from array import array
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

import grpc

from referee.core.game import Action, Decision, Game, Result
from referee.games import game_class
from referee.replay import NOTE_LIMIT, CompactRecorder
from referee.server import messages, metrics, rulings
from referee.server.codecs import action_cache, codec_for, encode_json, observation_table
from referee.server.config import MatchSpec, ServerLimits
from referee.server.cpu_clock import CpuMeter
from referee.server.messages import result_to_proto
from referee.server.rulings import DecisionClock, Forfeit, ForfeitKind, StrikeKind
from referee.server.seat import LOST, Close, Lost, Outbox, Outgoing, SeatPhase, SeatState
from referee.wire._proto.arena.v1 import admin_pb2, bot_pb2
from referee.wire.codec import json_observation

__all__ = [
    "CPU_TIME",
    "TIMEOUT",
    "Close",
    "MatchSession",
    "Outbox",
    "SeatPhase",
    "SeatState",
    "State",
    "result_to_proto",
]

log = logging.getLogger("arena.referee")

#: bot names are cut to this length in replays
NAME_LIMIT = 64
#: how long a lost stream waits for the launcher to report the process's exit code
EXIT_GRACE_S = 0.5
#: the reasons of a decision the clock ran out on (step `reason`, strike and incident kind)
TIMEOUT = StrikeKind.TIMEOUT.value
CPU_TIME = StrikeKind.CPU_TIME.value
#: the step `reason` of a decision played for a seat that is out of the game
FORFEITED_STEP = "forfeited"
#: while a CPU-metered seat thinks, its meter is read at least this often (and more often as
#: its CPU allowance runs out), so a bot spinning on the CPU is cut soon after it is spent
CPU_POLL_S = 0.015
#: the shortest wait between two readings
CPU_POLL_MIN_S = 0.002
#: cores a bot can spin on at once: its CPU allowance cannot run out faster than this many
#: seconds of CPU per second of wall time
CPU_CORES = max(1, os.cpu_count() or 1)


class State(Enum):
    """Where a match is in its life."""

    WAITING = admin_pb2.MatchStatus.WAITING
    RUNNING = admin_pb2.MatchStatus.RUNNING
    FINISHED = admin_pb2.MatchStatus.FINISHED


class _Forfeited:
    """Outcome of asking a seat that was forfeited while being asked."""


FORFEITED = _Forfeited()


class _EventLog:
    """WatchMatch's events of one match, compact (kept for the whole match, read by few): an
    action is a handful of numbers in arrays and a reference to its text; the rare other events
    are their messages. Each MatchEvent is built when it is read."""

    __slots__ = ("_cpu", "_decision", "_index", "_millis", "_others", "_reason", "_reasons", "_seat",
                 "_slot", "_text")

    def __init__(self) -> None:
        # 4-byte ints: decision ids stop at `max_decisions`, times at the clock's bounds (hours)
        #: per event: 2 * (its place among the actions or the others) + 1 if it is an other
        self._slot = array("i")
        self._others: list[admin_pb2.MatchEvent] = []
        self._decision = array("i")
        self._seat = array("B")
        self._index = array("i")
        self._millis = array("i")
        #: the CPU milliseconds, -1 for none
        self._cpu = array("i")
        #: the reason's number in `_reasons` (a handful of distinct texts)
        self._reason = array("B")
        self._reasons: list[str] = []
        self._text: list[str] = []

    def __len__(self) -> int:
        return len(self._slot)

    def other(self, event: admin_pb2.MatchEvent) -> None:
        """Append a non-action event (its sequence already set)."""
        self._slot.append(2 * len(self._others) + 1)
        self._others.append(event)

    def action(
        self, decision_id: int, seat: int, index: int, text: str, millis: int, reason: str, cpu: int | None
    ) -> None:
        """Append an action played."""
        self._slot.append(2 * len(self._text))
        self._decision.append(decision_id)
        self._seat.append(seat)
        self._index.append(index)
        self._millis.append(millis)
        self._cpu.append(-1 if cpu is None else cpu)
        if reason not in self._reasons:
            self._reasons.append(reason)
        self._reason.append(self._reasons.index(reason))
        self._text.append(text)

    def __getitem__(self, i: int) -> admin_pb2.MatchEvent:
        slot, other = divmod(self._slot[i], 2)
        if other:
            return self._others[slot]
        played = admin_pb2.ActionPlayed(
            decision_id=self._decision[slot],
            seat=self._seat[slot],
            index=self._index[slot],
            text=self._text[slot],
            millis=self._millis[slot],
            reason=self._reasons[self._reason[slot]],
        )
        if self._cpu[slot] >= 0:
            played.cpu_ms = self._cpu[slot]
        return admin_pb2.MatchEvent(sequence=i + 1, action=played)


@dataclass(frozen=True, slots=True)
class _Answered:
    """Outcome of asking a seat: the action to play and how the step is recorded."""

    index: int
    note: str
    millis: int
    reason: str
    #: CPU time the bot used on the decision, when its seat is measured
    cpu_millis: int | None = None


class MatchSession:
    """A match in progress (or finished) inside one referee process."""

    # a referee holds hundreds of these: no per-instance dict (and a misspelt attribute fails)
    __slots__ = (
        "_actions",
        "_all_connected",
        "_changed",
        "_codec_warned",
        "_decision_cpu_seconds",
        "_decision_seconds",
        "_events",
        "_observations",
        "_parts",
        "_started_at",
        "_unrecorded",
        "_watchers",
        "bot_present",
        "cancel_reason",
        "config",
        "decisions",
        "done",
        "encode",
        "ended_by",
        "game",
        "limits",
        "match_id",
        "on_step",
        "processes_watched",
        "recorder",
        "replay_bytes",
        "result",
        "seats",
        "spec",
        "state",
        "time",
    )

    def __init__(self, spec: MatchSpec, limits: ServerLimits) -> None:
        # KeyError: unknown game, or an engine version this build does not have
        cls: type[Game] = game_class(spec.game, spec.engine_version or None)
        players = len(spec.seat_names)
        config = dict(spec.config) if spec.config is not None else cls.default_config(players)
        self.game: Game = cls.new_game(config, spec.seed)  # InvalidConfig: bad config
        if self.game.num_seats != players:
            raise ValueError(f"the config is for {self.game.num_seats} seats, {players} were given")
        self.spec = spec
        self._started_at: float | None = None
        self.limits = limits
        self.match_id = spec.match_id or secrets.token_hex(8)
        self.time = spec.time_control
        self.config = config
        self.encode = codec_for(spec.game)
        # the decision requests' parts kept between decisions (referee.wire.codec): each seat's
        # observation field by field, and the match's encoded legal actions
        table = observation_table(spec.game)
        self._observations = [table.cache() for _ in range(players)] if table is not None else None
        self._actions = action_cache(spec.game)
        self._parts = messages.RequestParts()
        self.seats: list[SeatState] = []
        bound = spec.seat_bot_ids or (0,) * players
        if len(bound) != players:
            raise ValueError(f"{len(bound)} seat bot ids for {players} seats")
        for i, name in enumerate(spec.seat_names):
            record: dict[str, Any] = {
                "seat": i,
                "bot": name[:NAME_LIMIT],
                "kind": "remote",
                "strikes": 0,
                "incidents": [],
            }
            self.seats.append(
                SeatState(
                    i,
                    name[:NAME_LIMIT],
                    # a prefix so a token never starts with "-" (a bot's `--token T` argument
                    # parser would take it for an option)
                    "seat_" + secrets.token_urlsafe(24),
                    self.time.bank_ms,
                    record,
                    cpu_bank_ms=self.time.cpu_bank_ms,
                    bot_id=bound[i] or None,
                    max_incidents=limits.max_incidents,
                    outbox=Outbox(limits.max_outbox),
                )
            )
        # columns of a few bytes per step, not a dict per step (the replay's bytes are the same)
        self.recorder = CompactRecorder(self.game, spec.seed, config, [s.record for s in self.seats])
        self.state = State.WAITING
        self.decisions = 0
        self.ended_by = ""
        self.result: Result | None = None
        self.replay_bytes: bytes | None = None
        #: WatchMatch's events; an action is kept as its fields and built when watched (most
        #: matches are never watched: no message per decision, and less memory per match)
        self._events = _EventLog()
        #: what WatchMatch streams wait on; made by the first one (most matches are never watched)
        self._changed: asyncio.Event | None = None
        #: WatchMatch streams reading now: an event wakes them only if there are any
        self._watchers = 0
        # the per-decision metrics, bound to this game's label once (labels() is a dict lookup
        # under a lock on every call)
        self._decision_seconds = metrics.DECISION_SECONDS.labels(game=spec.game)
        self._decision_cpu_seconds = metrics.DECISION_CPU_SECONDS.labels(game=spec.game)
        self._all_connected = asyncio.Event()
        self.done = asyncio.Event()
        #: set by a launcher that reports its bot processes' exits (crash vs disconnect)
        self.processes_watched = False
        #: set by the referee: is this remote bot connected (waiting for a seat or playing)?
        self.bot_present: Callable[[int], bool] = lambda _bot_id: False
        #: set by cancel(): the match ends between two actions with ended_by "cancelled: ..."
        self.cancel_reason = ""
        #: called in the session's loop right after each recorded step (an action applied or a
        #: seat forfeited): `arena replay rerun --step` ends the match there
        self.on_step: Callable[[], None] | None = None
        self._codec_warned = False
        #: the action applied last, until it is recorded (`_record_step`)
        self._unrecorded: tuple[Decision, _Answered, Action] | None = None

    @property
    def finished(self) -> bool:
        """True once the match has ended (its replay is ready)."""
        return self.state is State.FINISHED

    # --- events (WatchMatch) ---------------------------------------------------------------

    def _emit(self, **event: Any) -> None:
        self._events.other(admin_pb2.MatchEvent(sequence=len(self._events) + 1, **event))
        self._changed_now()

    def _changed_now(self) -> None:
        if self._watchers and self._changed is not None:
            self._changed.set()
            self._changed = None  # the next watcher to wait makes a new one

    @property
    def events(self) -> list[admin_pb2.MatchEvent]:
        """Every event so far (WatchMatch's messages)."""
        return [self._events[i] for i in range(len(self._events))]

    async def watch(self) -> AsyncIterator[admin_pb2.MatchEvent]:
        """Every event from the start, then live ones until the match ends."""
        sent = 0
        self._watchers += 1
        try:
            while True:
                changed = self._changed
                if changed is None:
                    changed = self._changed = asyncio.Event()
                while sent < len(self._events):
                    yield self._events[sent]
                    sent += 1
                if self.state is State.FINISHED:
                    return
                await changed.wait()
        finally:
            self._watchers -= 1

    # --- connections (called by the bot service) -------------------------------------------

    def attach(self, seat: SeatState, hello: bot_pb2.Hello) -> None:
        """A bot opened its session on `seat` (the token is used up from now on)."""
        seat.used = True
        seat.connected = True
        if hello.bot_name:
            seat.record["bot_name"] = hello.bot_name[:NAME_LIMIT]
        if hello.bot_version:
            seat.record["bot_version"] = hello.bot_version[:NAME_LIMIT]
        if hello.sdk:
            seat.record["sdk"] = hello.sdk[:NAME_LIMIT]
        self._send(seat, bot_pb2.RefereeMessage(game_start=self._game_start(seat.seat)))
        self._emit(connected=admin_pb2.SeatConnected(seat=seat.seat, bot_name=hello.bot_name[:NAME_LIMIT]))
        # a seat whose bot already crashed will never connect: don't wait the connect window for it
        if all(s.used or s.pending for s in self.seats):
            self._all_connected.set()

    def lost(self, seat: SeatState, reason: str) -> None:
        """The seat's stream ended or broke (the loop forfeits it between two actions)."""
        if not seat.connected:
            return
        seat.connected = False
        # end the call now (a half-closed stream would otherwise wait for the forfeit)
        seat.outbox.put(Close(grpc.StatusCode.UNAVAILABLE, f"{reason}: the seat is forfeited"))
        if seat.forfeited or self.state is State.FINISHED:
            return
        if seat.pending is None:
            seat.lose(Forfeit(ForfeitKind.DISCONNECTED, reason))
        seat.inbox.put_nowait(LOST)

    def process_exited(self, seat_index: int, code: int) -> None:
        """The launcher saw the bot's process end (a crash if it ends before the match)."""
        seat = self.seats[seat_index]
        seat.exit_code = code
        seat.record["exit_code"] = code
        seat.exited.set()
        if self.state is State.FINISHED or seat.forfeited or seat.faulted:
            return
        seat.lose(Forfeit.crashed(code))
        seat.connected = False
        seat.inbox.put_nowait(LOST)
        if all(s.used or s.pending for s in self.seats):
            self._all_connected.set()

    def set_cpu_meter(self, seat_index: int, meter: CpuMeter | None) -> None:
        """Measure the seat's CPU time with `meter` (PROTOCOL.md, "CPU time"): a callable giving
        the CPU seconds its bot has used so far (every process of it), or None when unreadable;
        `cpu_clock.cgroup_cpu_meter(path)` reads a sandbox's cgroup. Called by whoever launched
        the bot, before its first decision; None goes back to the wall clock only. With the CPU
        clock on (`cpu_decision_ms` > 0) the seat is ruled on both clocks; with it off, its
        CPU time is only recorded (replay `cpu_ms`, metrics)."""
        seat = self.seats[seat_index]
        seat.cpu_meter = meter
        if meter is None:
            seat.record.pop("cpu_metered", None)
        else:
            seat.record["cpu_metered"] = True

    def receive(self, seat: SeatState, message: bot_pb2.BotMessage | None) -> bool:
        """A message arrived on the seat's stream (None: one that does not parse). True if it
        woke the loop waiting for the seat's answer (the stream's reader then lets the loop
        run before it asks gRPC for the next message: that request is off the answer's path)."""
        if not seat.connected or seat.forfeited or seat.faulted or self.state is State.FINISHED:
            return False  # its stream is ending: nothing more is ruled on (or kept)
        which = message.WhichOneof("message") if message is not None else None
        if message is not None and which == "answer":
            if seat.inbox.qsize() >= self.limits.max_inbox:
                self.fault(
                    seat,
                    Forfeit(
                        ForfeitKind.FLOOD, f"more than {self.limits.max_inbox} answers waiting to be read"
                    ),
                )
                return False
            return seat.inbox.put_nowait(message.answer)
        if message is None:
            detail = "a message that does not parse"
        else:
            detail = "a second hello" if which == "hello" else "an empty message"
        seat.incident("bad_message", detail)
        if self._bad_message(seat, detail):
            return False
        self._tell(seat, rulings.bad_message_notice(detail))
        return False

    def _bad_message(self, seat: SeatState, detail: str) -> bool:
        """Count a message that was not an answer to the open decision; past the budget the
        seat is faulted for flooding. True if it was."""
        seat.bad_messages += 1
        forfeit = rulings.bad_message_forfeit(seat.bad_messages, self.limits.max_bad_messages, detail)
        if forfeit is None:
            return False
        self.fault(seat, forfeit)
        return True

    def fault(self, seat: SeatState, forfeit: Forfeit | str) -> None:
        """The seat broke a limit (`forfeit`: a flood, not reading, a message too large; or its
        reason, "flood: ..."): its stream ends now with RESOURCE_EXHAUSTED and the loop forfeits
        it between two actions, with this reason."""
        if seat.faulted or seat.forfeited or not seat.connected or self.state is State.FINISHED:
            return
        if isinstance(forfeit, str):
            forfeit = Forfeit.parse(forfeit)
        log.warning("match %s: seat %d %s", self.match_id, seat.seat, forfeit.reason)
        seat.fault(forfeit)
        seat.connected = False
        seat.outbox.abort(Close(forfeit.code, f"seat {seat.seat} forfeited: {forfeit.reason}"))
        while not seat.inbox.empty():  # its unread answers go (they are not ruled on)
            seat.inbox.get_nowait()
        seat.inbox.put_nowait(LOST)
        if all(s.used or s.pending for s in self.seats):
            self._all_connected.set()

    def _send(self, seat: SeatState, message: Outgoing) -> None:
        """Queue a message for the seat's stream; a full outbox faults the seat (not reading)."""
        if not seat.outbox.put(message):
            self.fault(
                seat,
                Forfeit(
                    ForfeitKind.NOT_READING,
                    f"more than {seat.outbox.limit} messages waiting to be written to its stream",
                ),
            )

    def _tell(self, seat: SeatState, notice: rulings.Notice) -> None:
        """Send a ruling's notice to the seat (with its strike count now)."""
        self._send(seat, messages.notice(notice, seat.strikes, self.time.max_strikes))

    # --- the loop ----------------------------------------------------------------------------

    async def run(self) -> None:
        """Play the match to its end. Never raises: any failure ends the match and says why."""
        try:
            await self._wait_for_seats()
            self.state = State.RUNNING
            self._started_at = time.monotonic()
            metrics.MATCHES_STARTED.labels(game=self.spec.game).inc()
            metrics.ACTIVE_MATCHES.inc()
            self.ended_by = await self._play()
        except Exception as exc:  # the engine failed: end the match, keep the server up
            log.exception("match %s: engine error", self.match_id)
            self.ended_by = f"engine_error: {type(exc).__name__}: {exc}"
        finally:
            await self._finish()

    def _queued(self, seat: SeatState) -> bool:
        """A seat bound to a remote bot that is connected, but busy in another match."""
        return (
            not seat.used
            and seat.pending is None
            and seat.bot_id is not None
            and self.bot_present(seat.bot_id)
        )

    async def _wait_for_seats(self) -> None:
        """Wait `connect_ms` for every seat; longer (up to `remote_queue_ms`) for a remote bot
        that is connected and finishing other matches first."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        deadline = started + self.time.connect_ms / 1000
        hard = started + max(self.time.connect_ms, self.limits.remote_queue_ms) / 1000
        while not self._all_connected.is_set() and not self.cancel_reason:
            now = loop.time()
            if now < deadline:
                timeout = deadline - now
            elif now < hard and any(self._queued(s) for s in self.seats):
                timeout = min(0.5, hard - now)
            else:
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._all_connected.wait(), timeout)
        if self.cancel_reason:
            return
        for seat in self.seats:
            if not seat.used and not seat.forfeited:
                forfeit = seat.pending or Forfeit(ForfeitKind.NEVER_CONNECTED)
                if seat.pending is None and seat.bot_id is not None and self.bot_present(seat.bot_id):
                    forfeit = Forfeit(
                        ForfeitKind.NEVER_CONNECTED, f"bot {seat.bot_id} stayed busy in other matches"
                    )
                self._forfeit(seat, forfeit)

    def cancel(self, reason: str) -> None:
        """End the match between two actions (an admin's CancelMatch: the worker gave it up)."""
        if self.state is State.FINISHED or self.cancel_reason:
            return
        self.cancel_reason = reason or "no reason given"
        self._all_connected.set()
        for seat in self.seats:
            seat.inbox.put_nowait(LOST)  # wakes a pending _ask

    async def _play(self) -> str:
        game = self.game
        while True:
            if self.cancel_reason:
                return f"cancelled: {self.cancel_reason}"
            for seat in self.seats:
                if seat.pending is not None:
                    if self.processes_watched and seat.exit_code is None and not seat.faulted:
                        # the launcher may be about to report a crash: name it rather than
                        # "disconnected" if it comes soon
                        with contextlib.suppress(TimeoutError):
                            await asyncio.wait_for(seat.exited.wait(), EXIT_GRACE_S)
                    pending = seat.pending  # read after the wait: a crash reported renames it
                    if pending is not None:
                        self._forfeit(seat, pending)
            if game.is_over():
                return "game_over"
            if all(s.forfeited for s in self.seats):
                return "all_forfeited"
            if self.decisions >= self.limits.max_decisions:
                return "decision_limit"
            d = game.decision()
            assert d is not None
            if not d.actions:
                # the protocol promises at least one legal action (the default action needs one)
                raise RuntimeError(f"decision {d.id} of seat {d.seat} has no legal action")
            seat = self.seats[d.seat]
            if seat.forfeited:
                outcome: _Answered | _Forfeited = _Answered(game.default_index(d), "", 0, FORFEITED_STEP)
            else:
                outcome = await self._ask(seat, d)
            if isinstance(outcome, _Forfeited):
                continue
            self._record_step()  # the previous step, if no request went out since (a forfeited seat's)
            action = game.apply_index(outcome.index)
            self.decisions += 1
            # recorded once the next request is out (`_ask`), or before anything else changes
            # the game or the records: the bot waiting for it does not wait for the bookkeeping
            self._unrecorded = (d, outcome, action)
            if self.on_step is not None:
                self._record_step()
                self.on_step()
            if outcome.reason in (TIMEOUT, CPU_TIME):
                forfeit = rulings.strikes_forfeit(seat.strikes, self.time.max_strikes)
                if forfeit is not None:
                    self._forfeit(seat, forfeit)
            if self.decisions % 64 == 0:
                await asyncio.sleep(0)  # let other matches run when a seat answers at once

    def _record_step(self) -> None:
        """Record the action applied last (replay, WatchMatch's log, metrics), if not yet."""
        step = self._unrecorded
        if step is None:
            return
        self._unrecorded = None
        d, outcome, action = step
        if outcome.reason != FORFEITED_STEP:
            self._decision_seconds.observe(outcome.millis / 1000)
            if outcome.cpu_millis is not None:
                self._decision_cpu_seconds.observe(outcome.cpu_millis / 1000)
        self.recorder.action(
            d.id,
            d.seat,
            outcome.index,
            action,
            note=outcome.note,
            millis=outcome.millis,
            reason=outcome.reason,
            cpu_millis=outcome.cpu_millis,
        )
        self._events.action(
            d.id, d.seat, outcome.index, action.text, outcome.millis, outcome.reason, outcome.cpu_millis
        )
        self._changed_now()

    def _request(self, seat: SeatState, d: Decision) -> bytes:
        """The encoded RefereeMessage asking decision `d` (`messages.decision_request`'s
        message, built from the parts kept between decisions)."""
        cpu_bank_ms = seat.cpu_bank_ms if self._cpu_ruled(seat) else None
        obs = self.game.observe(d.seat)
        return messages.decision_request_bytes(
            d,
            obs,
            self._observation(d.seat, obs),
            self._actions.encode(d.actions, obs),
            self.time,
            seat.bank_ms,
            seat.strikes,
            cpu_bank_ms,
            self._parts,
        )

    def _observation(self, seat: int, obs: dict[str, Any]) -> bytes:
        """The seat's encoded Observation: typed, field by field when the game's codec has a
        table; JSON when the typed codec fails (as `_encode`)."""
        if self._observations is None:
            return self._encode(obs).SerializeToString()
        try:
            return self._observations[seat].encode(obs)
        except (ValueError, TypeError, KeyError):
            self._codec_failed()
            return json_observation(obs)

    def _cpu_ruled(self, seat: SeatState) -> bool:
        """Is the seat on the CPU clock (the clock is on and its CPU time is measured)?"""
        return self.time.cpu_clock and seat.cpu_meter is not None

    def _cpu_seconds(self, seat: SeatState) -> float | None:
        """The seat's meter reading; None if it has none or the reading failed (a meter that
        raises is a launcher's bug: it must not stop the match)."""
        meter = seat.cpu_meter
        if meter is None:
            return None
        try:
            value = meter()
        except Exception:
            log.exception(
                "match %s: seat %d: the CPU meter failed; wall clock only", self.match_id, seat.seat
            )
            seat.cpu_meter = None
            return None
        return None if value is None else float(value)

    def _encode(self, obs: dict[str, Any]) -> bot_pb2.Observation:
        try:
            return self.encode(obs)
        except (ValueError, TypeError, KeyError):
            self._codec_failed()
            return encode_json(obs)

    def _codec_failed(self) -> None:
        # the engine's observation grew a field the typed codec does not know yet: the bot
        # still gets everything, as JSON (tests/referee/test_codecs.py catches the drift)
        if not self._codec_warned:
            log.exception("match %s: typed observation codec failed; sending JSON", self.match_id)
            self._codec_warned = True

    async def _ask(self, seat: SeatState, d: Decision) -> _Answered | _Forfeited:
        """Send the decision and rule on what comes back (or does not).

        Two clocks: the wall clock (`decision_ms` + bank) always; the CPU clock
        (`cpu_decision_ms` + CPU bank, PROTOCOL.md "CPU time") too when the seat is measured.
        The CPU time of the decision is what the seat's meter moved between sending the request
        and receiving the answer; while waiting, the meter is polled so a bot that spins is cut
        once its CPU allowance is spent, not only at the wall deadline. The rulings themselves
        are `referee.server.rulings`; this applies them to the seat.
        """
        seat.issued.add(d.id)
        cpu_start = self._cpu_seconds(seat)  # before sending: the bot's reading of it counts
        self._send(seat, self._request(seat, d))
        loop = asyncio.get_running_loop()
        sent = loop.time()  # before the bookkeeping below: the bot's clock runs from the send
        self._record_step()  # the step before this decision, now that its request is out
        clock = DecisionClock(
            self.time.decision_ms,
            rulings.Banks(seat.bank_ms, seat.cpu_bank_ms),
            self.time.cpu_decision_ms,
            cpu_clock=self.time.cpu_clock,
            cpu_ruled=self._cpu_ruled(seat) and cpu_start is not None,
        )

        def cpu_used_ms() -> int | None:
            if cpu_start is None:
                return None
            now = self._cpu_seconds(seat)
            # a meter that went back (a replaced cgroup) charges nothing rather than negative
            return None if now is None else max(0, int((now - cpu_start) * 1000))

        cpu_ms: int | None = None
        while True:
            remaining = sent + clock.allowance_s - loop.time()
            if remaining <= 0:
                break
            if clock.cpu_ruled:
                cpu_ms = cpu_used_ms()
                if clock.cpu_spent(cpu_ms):
                    return self._timed_out(seat, d, clock, sent, StrikeKind.CPU_TIME, cpu_ms)
            inbox = seat.inbox
            if inbox.empty():
                wait = clock.poll_wait(remaining, cpu_ms, CPU_POLL_S, CPU_POLL_MIN_S, CPU_CORES)
                # a timer on the wait, not wait_for's task per decision (and its extra event-loop
                # turn); an answer that lands after the timer fired stays queued
                waited = await inbox.get_within(wait)
                if waited is None:
                    continue  # the loop's top rules on both clocks
                item = waited
            else:
                item = inbox.get_nowait()
            if isinstance(item, Lost):
                if self.cancel_reason:
                    return FORFEITED  # not applied: the loop ends the match first
                if seat.pending is None:
                    continue  # a stale marker from a stream already dealt with
                return FORFEITED
            elapsed_ms = int((loop.time() - sent) * 1000)
            ruling = rulings.rule_answer(
                d.id, len(d.actions), item.decision_id, item.index, seat.issued, seat.late_expected
            )
            if isinstance(ruling, rulings.Late):
                seat.late_expected.discard(ruling.decision_id)  # its one late answer, if expected
                bad = ruling.bad_message
                if bad is not None and self._bad_message(seat, bad):
                    return FORFEITED
                self._tell(seat, rulings.late_notice(ruling.decision_id))
                continue
            if isinstance(ruling, rulings.Rejected):
                if self._strike(seat, d.id, ruling):
                    return FORFEITED
                continue
            cpu_ms = cpu_used_ms()
            if clock.cpu_spent(cpu_ms):
                # spent between two readings: the answer came too late on the CPU clock
                return self._timed_out(seat, d, clock, sent, StrikeKind.CPU_TIME, cpu_ms)
            banks = clock.answered(elapsed_ms, cpu_ms)
            seat.bank_ms, seat.cpu_bank_ms = banks.wall_ms, banks.cpu_ms
            return _Answered(item.index, item.note[:NOTE_LIMIT], elapsed_ms, "", cpu_ms)
        return self._timed_out(seat, d, clock, sent, StrikeKind.TIMEOUT, cpu_used_ms())

    def _timed_out(
        self,
        seat: SeatState,
        d: Decision,
        clock: DecisionClock,
        sent: float,
        kind: StrikeKind,
        cpu_ms: int | None,
    ) -> _Answered:
        """Out of time on one clock (`kind`: TIMEOUT for the wall clock, CPU_TIME for the CPU
        clock): the game's default action is played and the seat gets a strike (a forfeit after
        the action if too many)."""
        elapsed_ms = int((asyncio.get_running_loop().time() - sent) * 1000)
        index = self.game.default_index(d)
        ruling = rulings.time_out(clock, kind, d.id, elapsed_ms, cpu_ms, index, d.actions[index].text)
        seat.bank_ms, seat.cpu_bank_ms = ruling.banks.wall_ms, ruling.banks.cpu_ms
        timeouts = metrics.CPU_TIMEOUTS if kind is StrikeKind.CPU_TIME else metrics.TIMEOUTS
        timeouts.labels(game=self.spec.game).inc()
        seat.late_expected.add(d.id)
        metrics.STRIKES.labels(game=self.spec.game, reason=kind.value).inc()
        seat.strikes += 1
        seat.record["strikes"] = seat.strikes
        seat.incident(kind.value, ruling.detail, d.id)
        self._emit(
            strike=admin_pb2.StrikeGiven(
                seat=seat.seat, decision_id=d.id, reason=kind.value, strikes=seat.strikes
            )
        )
        self._tell(seat, ruling.notice)
        return _Answered(index, "", elapsed_ms, kind.value, cpu_ms)

    def _strike(self, seat: SeatState, decision_id: int, rejected: rulings.Rejected) -> bool:
        """A rejected answer: strike, tell the bot; True if the seat is now forfeited."""
        kind = rejected.kind.value
        metrics.STRIKES.labels(game=self.spec.game, reason=kind).inc()
        seat.strikes += 1
        seat.record["strikes"] = seat.strikes
        seat.incident(kind, rejected.detail, decision_id)
        if self._bad_message(seat, f"a rejected answer ({kind})"):
            return True
        self._emit(
            strike=admin_pb2.StrikeGiven(
                seat=seat.seat, decision_id=decision_id, reason=kind, strikes=seat.strikes
            )
        )
        self._tell(seat, rulings.rejected_notice(rejected, decision_id, seat.strikes, self.time.max_strikes))
        forfeit = rulings.strikes_forfeit(seat.strikes, self.time.max_strikes, rejected.kind)
        if forfeit is not None:
            self._forfeit(seat, forfeit)
            return True
        return False

    def _forfeit(self, seat: SeatState, forfeit: Forfeit) -> None:
        """Take the seat out of the game (between two actions) and close its stream."""
        if seat.forfeited:
            return
        self._record_step()  # the records keep the order of the game
        seat.out(forfeit)
        reason = forfeit.reason
        metrics.FORFEITS.labels(game=self.spec.game, reason=forfeit.kind.value).inc()
        seat.record["forfeit"] = reason
        if not self.game.is_over():
            self.game.forfeit(seat.seat)
            self.recorder.forfeit(seat.seat, reason)
        self._emit(forfeit=admin_pb2.SeatForfeited(seat=seat.seat, reason=reason))
        if self.on_step is not None:
            self.on_step()
        if seat.connected:
            notice = rulings.Notice(rulings.NoticeKind.FORFEIT, None, forfeit.code, f"forfeited: {reason}")
            self._tell(seat, notice)
            self._send(seat, bot_pb2.RefereeMessage(game_end=bot_pb2.GameEnd(forfeited=True, reason=reason)))
            seat.outbox.put(Close(forfeit.code, f"seat {seat.seat} forfeited: {reason}"))

    async def _finish(self) -> None:
        self._record_step()
        game = self.game
        self.result = game.result() if game.is_over() else None
        self.recorder.seats = [s.record for s in self.seats]
        self.recorder.finish(self.ended_by, match_id=self.match_id, time_control=self.time.to_json())
        result_msg = result_to_proto(self.result) if self.result is not None else None
        # compressing a long replay takes a while: off the event loop. It is ready before any
        # bot hears the game is over, so a bot's exit can be followed by GetReplay at once.
        self.replay_bytes = await asyncio.to_thread(self.recorder.dumps)
        # the metrics are counted in the same step as the replay becomes visible, so whoever
        # fetched the replay reads them counted (the match no longer active, already finished)
        ended_kind = metrics.short_reason(self.ended_by)
        metrics.MATCHES_FINISHED.labels(game=self.spec.game, ended_by=ended_kind).inc()
        if self._started_at is not None:
            metrics.MATCH_SECONDS.labels(game=self.spec.game).observe(time.monotonic() - self._started_at)
            metrics.ACTIVE_MATCHES.dec()
        self.state = State.FINISHED
        for seat in self.seats:
            if seat.connected and not seat.forfeited:
                end = bot_pb2.GameEnd(reason=self.ended_by)
                if result_msg is not None:
                    end.result.CopyFrom(result_msg)
                self._send(seat, bot_pb2.RefereeMessage(game_end=end))
                seat.outbox.put(Close(grpc.StatusCode.OK, ""))
        for seat in self.seats:
            while not seat.inbox.empty():  # nothing reads them any more
                seat.inbox.get_nowait()
            seat.late_expected.clear()
            seat.issued.clear()
        ended = admin_pb2.MatchEnded(ended_by=self.ended_by)
        if result_msg is not None:
            ended.result.CopyFrom(result_msg)
        self._emit(ended=ended)
        self.done.set()
        log.info("match %s ended (%s) after %d decisions", self.match_id, self.ended_by, self.decisions)

    # --- views ---------------------------------------------------------------------------------

    def _game_start(self, seat: int) -> bot_pb2.GameStart:
        names = [s.name for s in self.seats]
        return messages.game_start(
            self.game, self.match_id, self.spec.game, seat, names, self.config, self.time
        )

    def status(self) -> admin_pb2.MatchStatus:
        """The admin view of this match."""
        msg = admin_pb2.MatchStatus(
            match_id=self.match_id,
            state=self.state.value,
            game=self.spec.game,
            decisions=self.decisions,
            ended_by=self.ended_by,
            seats=[
                admin_pb2.SeatStatus(
                    seat=s.seat,
                    name=s.name,
                    connected=s.connected,
                    forfeited=s.forfeited,
                    forfeit_reason=s.forfeit_reason,
                    strikes=s.strikes,
                    bank_ms=s.bank_ms,
                    cpu_bank_ms=s.cpu_bank_ms if self.time.cpu_clock else 0,
                    cpu_metered=s.cpu_meter is not None,
                )
                for s in self.seats
            ],
        )
        if self.result is not None:
            msg.result.CopyFrom(result_to_proto(self.result))
        return msg
