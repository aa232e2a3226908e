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
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import grpc

from referee.core.game import Action, Decision, Game, Result, canonical_json
from referee.games import game_class
from referee.games.static_content import wire_content
from referee.replay import NOTE_LIMIT, ReplayRecorder, dumps
from referee.server import metrics
from referee.server.codecs import codec_for, encode_actions, encode_json
from referee.server.config import MatchSpec, ServerLimits
from referee.server.cpu_clock import CpuMeter
from referee.wire._proto.arena.v1 import admin_pb2, bot_pb2, common_pb2

__all__ = [
    "CPU_TIME",
    "TIMEOUT",
    "Close",
    "MatchSession",
    "Outbox",
    "SeatState",
    "default_index",
    "result_to_proto",
]

log = logging.getLogger("arena.referee")

#: bot names are cut to this length in replays
NAME_LIMIT = 64
#: how long a lost stream waits for the launcher to report the process's exit code
EXIT_GRACE_S = 0.5
#: the reasons of a decision the clock ran out on (step `reason`, strike and incident kind)
TIMEOUT = "timeout"
CPU_TIME = "cpu_time"
#: while a CPU-metered seat thinks, its meter is read at least this often (and more often as
#: its CPU allowance runs out), so a bot spinning on the CPU is cut soon after it is spent
CPU_POLL_S = 0.015
#: the shortest wait between two readings
CPU_POLL_MIN_S = 0.002
#: cores a bot can spin on at once: its CPU allowance cannot run out faster than this many
#: seconds of CPU per second of wall time
CPU_CORES = max(1, os.cpu_count() or 1)


def default_index(actions: Sequence[Action]) -> int:
    """The action played for a seat that did not answer in time (or is out of the game).

    The most passive legal action: "end_turn" if legal, else "skip", else "pass" (Alien's
    Coordinate: lend nothing), else the first action.
    """
    for kind in ("end_turn", "skip", "pass"):
        for i, a in enumerate(actions):
            if a.kind == kind:
                return i
    return 0


def result_to_proto(result: Result) -> common_pb2.GameResult:
    """The engine's Result on the wire."""
    msg = common_pb2.GameResult(
        scores=result.scores,
        places=result.places,
        outcomes=result.outcomes,
        details_json=canonical_json(dict(result.details)),
    )
    if result.team_won is not None:
        msg.team_won = result.team_won
    return msg


@dataclass(frozen=True, slots=True)
class Close:
    """Outbox item: end the seat's stream with this status."""

    code: grpc.StatusCode
    message: str


class State(Enum):
    """Where a match is in its life."""

    WAITING = admin_pb2.MatchStatus.WAITING
    RUNNING = admin_pb2.MatchStatus.RUNNING
    FINISHED = admin_pb2.MatchStatus.FINISHED


class _Lost:
    """Inbox item: the seat's stream is gone."""


LOST = _Lost()
Outgoing = bot_pb2.RefereeMessage | Close


class Outbox:
    """What is waiting to be written to one stream: at most `limit` messages (a `Close` always
    fits). `abort` drops them and ends the stream at once, even while a write is stuck because
    the bot does not read (the writer races every write against it)."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = ServerLimits().max_outbox if limit is None else limit
        self._items: deque[Outgoing] = deque()
        self._ready = asyncio.Event()
        self._aborted: asyncio.Future[None] | None = None
        #: set by `abort`: the status the stream ends with
        self.abort_close: Close | None = None

    def __len__(self) -> int:
        return len(self._items)

    def put(self, item: Outgoing) -> bool:
        """Queue `item`; False if the outbox is full (the bot is not reading its stream).
        After `abort` everything is dropped (the stream is ending)."""
        if self.abort_close is not None:
            return True
        if len(self._items) >= self.limit and not isinstance(item, Close):
            return False
        self._items.append(item)
        self._ready.set()
        return True

    def abort(self, close: Close) -> None:
        """Drop what is queued and end the stream with `close` now."""
        if self.abort_close is not None:
            return
        self.abort_close = close
        self._items.clear()
        self._ready.set()
        if self._aborted is not None and not self._aborted.done():
            self._aborted.set_result(None)

    def clear(self) -> None:
        """Drop what is queued (the stream is gone)."""
        self._items.clear()

    async def get(self) -> Outgoing:
        """The next message to write (the abort's Close first, once aborted)."""
        while True:
            if self.abort_close is not None:
                return self.abort_close
            if self._items:
                return self._items.popleft()
            self._ready.clear()
            await self._ready.wait()

    def aborted(self) -> asyncio.Future[None]:
        """A future done once `abort` has been called (call it inside the event loop)."""
        if self._aborted is None:
            self._aborted = asyncio.get_running_loop().create_future()
            if self.abort_close is not None:
                self._aborted.set_result(None)
        return self._aborted


@dataclass(eq=False)
class SeatState:
    """One seat: its token, its connection, its clock and its record."""

    seat: int
    name: str
    token: str
    bank_ms: int
    record: dict[str, Any]
    used: bool = False
    connected: bool = False
    forfeited: bool = False
    forfeit_reason: str = ""
    #: set when the stream went away; the loop turns it into a forfeit between two actions
    lost_reason: str = ""
    exit_code: int | None = None
    strikes: int = 0
    #: what is left of the seat's CPU bank (PROTOCOL.md, "CPU time")
    cpu_bank_ms: int = 0
    #: reads the CPU seconds its bot has used (set by its launcher); None: wall clock only
    cpu_meter: CpuMeter | None = None
    #: the ladder bot bound to this seat (a remote bot, seated through the lobby), if any
    bot_id: int | None = None
    #: decision ids sent to this seat: a second or late answer to one of them is ignored
    issued: set[int] = field(default_factory=set)
    #: decisions that timed out: the first late answer to each is expected (not a bad message)
    late_expected: set[int] = field(default_factory=set)
    #: messages that were not answers to the open decision (`ServerLimits.max_bad_messages`)
    bad_messages: int = 0
    #: the seat broke a limit (flood, not reading, message too large): `lost_reason` says which;
    #: a process exit does not rename it
    faulted: bool = False
    #: incidents kept in the replay record (later ones are counted in `incidents_omitted`)
    max_incidents: int = field(default_factory=lambda: ServerLimits().max_incidents)
    exited: asyncio.Event = field(default_factory=asyncio.Event)
    outbox: Outbox = field(default_factory=Outbox)
    #: answers (bounded by `ServerLimits.max_inbox` in `MatchSession.receive`) and LOST markers
    inbox: asyncio.Queue[bot_pb2.Answer | _Lost] = field(default_factory=asyncio.Queue)

    def incident(self, kind: str, detail: str, decision_id: int | None = None) -> None:
        """Note a protocol fault in the replay's seat record (the first `max_incidents` of them;
        the rest are counted)."""
        incidents: list[dict[str, Any]] = self.record["incidents"]
        if len(incidents) >= self.max_incidents:
            self.record["incidents_omitted"] = self.record.get("incidents_omitted", 0) + 1
            return
        entry: dict[str, Any] = {"kind": kind, "detail": detail}
        if decision_id is not None:
            entry["decision"] = decision_id
        incidents.append(entry)


class _Forfeited:
    """Outcome of asking a seat that was forfeited while being asked."""


FORFEITED = _Forfeited()


@dataclass(frozen=True, slots=True)
class _Answered:
    index: int
    note: str
    millis: int
    reason: str
    #: CPU time the bot used on the decision, when its seat is measured
    cpu_millis: int | None = None


class MatchSession:
    """A match in progress (or finished) inside one referee process."""

    def __init__(self, spec: MatchSpec, limits: ServerLimits) -> None:
        cls: type[Game] = game_class(spec.game)  # KeyError: unknown game
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
        self.recorder = ReplayRecorder(self.game, spec.seed, config, [s.record for s in self.seats])
        self.state = State.WAITING
        self.decisions = 0
        self.ended_by = ""
        self.result: Result | None = None
        self.replay_bytes: bytes | None = None
        self.events: list[admin_pb2.MatchEvent] = []
        self._changed = asyncio.Event()
        self._all_connected = asyncio.Event()
        self._wake = asyncio.Event()
        self.done = asyncio.Event()
        #: set by a launcher that reports its bot processes' exits (crash vs disconnect)
        self.processes_watched = False
        #: set by the referee: is this remote bot connected (waiting for a seat or playing)?
        self.bot_present: Callable[[int], bool] = lambda _bot_id: False
        #: set by cancel(): the match ends between two actions with ended_by "cancelled: ..."
        self.cancel_reason = ""
        self._codec_warned = False

    @property
    def finished(self) -> bool:
        """True once the match has ended (its replay is ready)."""
        return self.state is State.FINISHED

    # --- events (WatchMatch) ---------------------------------------------------------------

    def _emit(self, **event: Any) -> None:
        self.events.append(admin_pb2.MatchEvent(sequence=len(self.events) + 1, **event))
        self._changed.set()
        self._changed = asyncio.Event()

    async def watch(self) -> AsyncIterator[admin_pb2.MatchEvent]:
        """Every event from the start, then live ones until the match ends."""
        sent = 0
        while True:
            changed = self._changed
            while sent < len(self.events):
                yield self.events[sent]
                sent += 1
            if self.state is State.FINISHED:
                return
            await changed.wait()

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
        if all(s.used for s in self.seats):
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
        seat.lost_reason = seat.lost_reason or f"disconnected: {reason}"
        seat.inbox.put_nowait(LOST)
        self._wake.set()

    def process_exited(self, seat_index: int, code: int) -> None:
        """The launcher saw the bot's process end (a crash if it ends before the match)."""
        seat = self.seats[seat_index]
        seat.exit_code = code
        seat.record["exit_code"] = code
        seat.exited.set()
        if self.state is State.FINISHED or seat.forfeited or seat.faulted:
            return
        seat.lost_reason = f"crashed: exit code {code}" if code != 0 else "exited before the game ended"
        seat.connected = False
        seat.inbox.put_nowait(LOST)
        if all(s.used or s.lost_reason for s in self.seats):
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

    def receive(self, seat: SeatState, message: bot_pb2.BotMessage | None) -> None:
        """A message arrived on the seat's stream (None: one that does not parse)."""
        if not seat.connected or seat.forfeited or seat.faulted or self.state is State.FINISHED:
            return  # its stream is ending: nothing more is ruled on (or kept)
        which = message.WhichOneof("message") if message is not None else None
        if message is not None and which == "answer":
            if seat.inbox.qsize() >= self.limits.max_inbox:
                self.fault(seat, f"flood: more than {self.limits.max_inbox} answers waiting to be read")
                return
            seat.inbox.put_nowait(message.answer)
            return
        if message is None:
            detail = "a message that does not parse"
        else:
            detail = "a second hello" if which == "hello" else "an empty message"
        seat.incident("bad_message", detail)
        if self._bad_message(seat, detail):
            return
        self._send(
            seat,
            self._notice(
                seat,
                bot_pb2.Notice.REJECTED,
                None,  # about no decision: the open one (if any) is not touched
                "INVALID_ARGUMENT",
                f"expected an answer, got {detail}; ignored",
            ),
        )

    def _bad_message(self, seat: SeatState, detail: str) -> bool:
        """Count a message that was not an answer to the open decision; past the budget the
        seat is faulted for flooding. True if it was."""
        seat.bad_messages += 1
        if seat.bad_messages <= self.limits.max_bad_messages:
            return False
        self.fault(
            seat,
            f"flood: more than {self.limits.max_bad_messages} messages that were not answers "
            f"to the open decision (last: {detail})",
        )
        return True

    def fault(self, seat: SeatState, reason: str) -> None:
        """The seat broke a limit (`reason`: "flood: ...", "not reading: ...", "message too
        large: ..."): its stream ends now with RESOURCE_EXHAUSTED and the loop forfeits it
        between two actions, with this reason."""
        if seat.faulted or seat.forfeited or not seat.connected or self.state is State.FINISHED:
            return
        log.warning("match %s: seat %d %s", self.match_id, seat.seat, reason)
        seat.faulted = True
        seat.connected = False
        seat.lost_reason = reason
        seat.outbox.abort(Close(grpc.StatusCode.RESOURCE_EXHAUSTED, f"seat {seat.seat} forfeited: {reason}"))
        while not seat.inbox.empty():  # its unread answers go (they are not ruled on)
            seat.inbox.get_nowait()
        seat.inbox.put_nowait(LOST)
        self._wake.set()
        if all(s.used or s.lost_reason for s in self.seats):
            self._all_connected.set()

    def _send(self, seat: SeatState, message: Outgoing) -> None:
        """Queue a message for the seat's stream; a full outbox faults the seat (not reading)."""
        if not seat.outbox.put(message):
            self.fault(
                seat,
                f"not reading: more than {seat.outbox.limit} messages waiting to be written to its stream",
            )

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
            and not seat.lost_reason
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
                reason = seat.lost_reason or "never connected"
                if not seat.lost_reason and seat.bot_id is not None and self.bot_present(seat.bot_id):
                    reason = f"never connected: bot {seat.bot_id} stayed busy in other matches"
                self._forfeit(seat, reason, grpc.StatusCode.UNAVAILABLE)

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
                if seat.lost_reason and not seat.forfeited:
                    if self.processes_watched and seat.exit_code is None and not seat.faulted:
                        # the launcher may be about to report a crash: name it rather than
                        # "disconnected" if it comes soon
                        with contextlib.suppress(TimeoutError):
                            await asyncio.wait_for(seat.exited.wait(), EXIT_GRACE_S)
                    self._forfeit(seat, seat.lost_reason, grpc.StatusCode.UNAVAILABLE)
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
                outcome: _Answered | _Forfeited = _Answered(default_index(d.actions), "", 0, "forfeited")
            else:
                outcome = await self._ask(seat, d)
            if isinstance(outcome, _Forfeited):
                continue
            action = game.apply_index(outcome.index)
            self.decisions += 1
            if outcome.reason != "forfeited":
                metrics.DECISION_SECONDS.labels(game=self.spec.game).observe(outcome.millis / 1000)
                if outcome.cpu_millis is not None:
                    metrics.DECISION_CPU_SECONDS.labels(game=self.spec.game).observe(
                        outcome.cpu_millis / 1000
                    )
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
            played = admin_pb2.ActionPlayed(
                decision_id=d.id,
                seat=d.seat,
                index=outcome.index,
                text=action.text,
                millis=outcome.millis,
                reason=outcome.reason,
            )
            if outcome.cpu_millis is not None:
                played.cpu_ms = outcome.cpu_millis
            self._emit(action=played)
            if outcome.reason in (TIMEOUT, CPU_TIME) and seat.strikes >= self.time.max_strikes:
                self._forfeit(seat, f"strikes: {seat.strikes} of {self.time.max_strikes}")
            if self.decisions % 64 == 0:
                await asyncio.sleep(0)  # let other matches run when a seat answers at once

    def _request(self, seat: SeatState, d: Decision) -> bot_pb2.RefereeMessage:
        obs = self.game.observe(d.seat)
        active = obs.get("current", d.seat)
        context = bot_pb2.DecisionContext(active_seat=active, out_of_turn=active != d.seat)
        group = obs.get("group")
        if isinstance(group, dict):
            context.group.CopyFrom(
                common_pb2.GroupChoice(
                    group_id=str(group.get("group_id", "")),
                    members=group.get("members", []),
                    votes=[
                        common_pb2.GroupVote(seat=v["seat"], action_text=v["text"])
                        for v in group.get("votes", [])
                    ],
                    tie_break=str(group.get("tie_break", "")),
                )
            )
        request = bot_pb2.DecisionRequest(
            decision_id=d.id,
            seat=d.seat,
            kind=d.kind,
            prompt=d.prompt,
            observation=self._encode(obs),
            legal_actions=encode_actions(d.actions, self.game.name, obs),
            context=context,
            deadline_ms=self.time.decision_ms,
            time_bank_ms=seat.bank_ms,
            strikes=seat.strikes,
        )
        if self._cpu_ruled(seat):
            request.cpu_deadline_ms = self.time.cpu_decision_ms
            request.cpu_bank_ms = seat.cpu_bank_ms
        return bot_pb2.RefereeMessage(decision=request)

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
            # the engine's observation grew a field the typed codec does not know yet: the bot
            # still gets everything, as JSON (tests/referee/test_codecs.py catches the drift)
            if not self._codec_warned:
                log.exception("match %s: typed observation codec failed; sending JSON", self.match_id)
                self._codec_warned = True
            return encode_json(obs)

    async def _ask(self, seat: SeatState, d: Decision) -> _Answered | _Forfeited:
        """Send the decision and rule on what comes back (or does not).

        Two clocks: the wall clock (`decision_ms` + bank) always; the CPU clock
        (`cpu_decision_ms` + CPU bank, PROTOCOL.md "CPU time") too when the seat is measured.
        The CPU time of the decision is what the seat's meter moved between sending the request
        and receiving the answer; while waiting, the meter is polled so a bot that spins is cut
        once its CPU allowance is spent, not only at the wall deadline.
        """
        seat.issued.add(d.id)
        cpu_start = self._cpu_seconds(seat)  # before sending: the bot's reading of it counts
        self._send(seat, self._request(seat, d))
        loop = asyncio.get_running_loop()
        sent = loop.time()
        allowance = (self.time.decision_ms + seat.bank_ms) / 1000
        cpu_ruled = self._cpu_ruled(seat) and cpu_start is not None
        cpu_allowance_ms = self.time.cpu_decision_ms + seat.cpu_bank_ms

        def cpu_used_ms() -> int | None:
            if cpu_start is None:
                return None
            now = self._cpu_seconds(seat)
            # a meter that went back (a replaced cgroup) charges nothing rather than negative
            return None if now is None else max(0, int((now - cpu_start) * 1000))

        cpu_ms: int | None = None
        while True:
            remaining = sent + allowance - loop.time()
            if remaining <= 0:
                break
            wait = remaining
            if cpu_ruled:
                cpu_ms = cpu_used_ms()
                if cpu_ms is not None:
                    if cpu_ms > cpu_allowance_ms:
                        return self._timed_out(seat, d, sent, CPU_TIME, cpu_ms)
                    # the bot cannot spend what is left faster than on all cores at once
                    left_s = (cpu_allowance_ms - cpu_ms) / 1000 / CPU_CORES
                    wait = min(remaining, CPU_POLL_S, max(CPU_POLL_MIN_S, left_s))
            try:
                item = await asyncio.wait_for(seat.inbox.get(), wait)
            except TimeoutError:
                continue  # the loop's top rules on both clocks
            if isinstance(item, _Lost):
                if self.cancel_reason:
                    return FORFEITED  # not applied: the loop ends the match first
                if not seat.lost_reason:
                    continue  # a stale marker from a stream already dealt with
                return FORFEITED
            elapsed_ms = int((loop.time() - sent) * 1000)
            if item.decision_id != d.id:
                if item.decision_id in seat.issued:
                    if item.decision_id in seat.late_expected:
                        seat.late_expected.discard(item.decision_id)  # its one late answer
                    elif self._bad_message(seat, f"a repeated answer to decision {item.decision_id}"):
                        return FORFEITED
                    self._send(
                        seat,
                        self._notice(
                            seat,
                            bot_pb2.Notice.LATE,
                            item.decision_id,
                            "FAILED_PRECONDITION",
                            f"decision {item.decision_id} is already settled; answer ignored",
                        ),
                    )
                    continue
                if self._strike(
                    seat,
                    d.id,
                    "unknown_decision",
                    "FAILED_PRECONDITION",
                    f"answer names decision {item.decision_id}, the pending one is {d.id}",
                ):
                    return FORFEITED
                continue
            if not 0 <= item.index < len(d.actions):
                if self._strike(
                    seat,
                    d.id,
                    "index_out_of_range",
                    "INVALID_ARGUMENT",
                    f"index {item.index} is out of range 0..{len(d.actions) - 1}",
                ):
                    return FORFEITED
                continue
            cpu_ms = cpu_used_ms()
            if cpu_ruled and cpu_ms is not None and cpu_ms > cpu_allowance_ms:
                # spent between two readings: the answer came too late on the CPU clock
                return self._timed_out(seat, d, sent, CPU_TIME, cpu_ms)
            seat.bank_ms = max(0, seat.bank_ms - max(0, elapsed_ms - self.time.decision_ms))
            self._charge_cpu(seat, cpu_ms)
            return _Answered(item.index, item.note[:NOTE_LIMIT], elapsed_ms, "", cpu_ms)
        return self._timed_out(seat, d, sent, TIMEOUT, cpu_used_ms())

    def _charge_cpu(self, seat: SeatState, cpu_ms: int | None) -> None:
        """Take the CPU time beyond the allowance from the seat's CPU bank."""
        if cpu_ms is not None and self._cpu_ruled(seat):
            seat.cpu_bank_ms = max(0, seat.cpu_bank_ms - max(0, cpu_ms - self.time.cpu_decision_ms))

    def _timed_out(
        self, seat: SeatState, d: Decision, sent: float, reason: str, cpu_ms: int | None
    ) -> _Answered:
        """Out of time on one clock (`reason`: TIMEOUT for the wall clock, CPU_TIME for the CPU
        clock): that clock's bank is emptied, the other is charged as for an answer; the default
        action is played and the seat gets a strike (a forfeit after the action if too many)."""
        elapsed_ms = int((asyncio.get_running_loop().time() - sent) * 1000)
        if reason == CPU_TIME:
            seat.cpu_bank_ms = 0
            seat.bank_ms = max(0, seat.bank_ms - max(0, elapsed_ms - self.time.decision_ms))
            metrics.CPU_TIMEOUTS.labels(game=self.spec.game).inc()
            detail = f"{cpu_ms} ms of CPU in {elapsed_ms} ms"
            code, told = "RESOURCE_EXHAUSTED", f"out of CPU time ({cpu_ms} ms used)"
        else:
            seat.bank_ms = 0
            self._charge_cpu(seat, cpu_ms)
            metrics.TIMEOUTS.labels(game=self.spec.game).inc()
            detail = f"no answer in {elapsed_ms} ms"
            code, told = "DEADLINE_EXCEEDED", "no answer in time"
        seat.late_expected.add(d.id)
        index = default_index(d.actions)
        metrics.STRIKES.labels(game=self.spec.game, reason=reason).inc()
        seat.strikes += 1
        seat.record["strikes"] = seat.strikes
        seat.incident(reason, f"{detail}; played {d.actions[index].text!r}", d.id)
        self._emit(
            strike=admin_pb2.StrikeGiven(
                seat=seat.seat, decision_id=d.id, reason=reason, strikes=seat.strikes
            )
        )
        notice = self._notice(
            seat,
            bot_pb2.Notice.TIMEOUT,
            d.id,
            code,
            f"{told}; played index {index} ({d.actions[index].text})",
        )
        notice.notice.default_index = index
        self._send(seat, notice)
        return _Answered(index, "", elapsed_ms, reason, cpu_ms)

    def _strike(self, seat: SeatState, decision_id: int, kind: str, code: str, detail: str) -> bool:
        """A rejected answer: strike, tell the bot; True if the seat is now forfeited."""
        metrics.STRIKES.labels(game=self.spec.game, reason=kind).inc()
        seat.strikes += 1
        seat.record["strikes"] = seat.strikes
        seat.incident(kind, detail, decision_id)
        if self._bad_message(seat, f"a rejected answer ({kind})"):
            return True
        self._emit(
            strike=admin_pb2.StrikeGiven(
                seat=seat.seat, decision_id=decision_id, reason=kind, strikes=seat.strikes
            )
        )
        self._send(
            seat,
            self._notice(
                seat,
                bot_pb2.Notice.REJECTED,
                decision_id,
                code,
                f"{detail}; strike {seat.strikes} of {self.time.max_strikes}, the decision is still open",
            ),
        )
        if seat.strikes >= self.time.max_strikes:
            self._forfeit(seat, f"strikes: {seat.strikes} of {self.time.max_strikes} (last: {kind})")
            return True
        return False

    def _notice(
        self,
        seat: SeatState,
        kind: bot_pb2.Notice.Kind,
        decision_id: int | None,
        code: str,
        message: str,
    ) -> bot_pb2.RefereeMessage:
        """A Notice; `decision_id` None leaves the field unset (ids start at 0, so a notice
        about no decision must not look like one about decision 0)."""
        notice = bot_pb2.Notice(
            kind=kind,
            code=code,
            message=message,
            strikes=seat.strikes,
            max_strikes=self.time.max_strikes,
        )
        if decision_id is not None:
            notice.decision_id = decision_id
        return bot_pb2.RefereeMessage(notice=notice)

    def _forfeit(
        self, seat: SeatState, reason: str, code: grpc.StatusCode = grpc.StatusCode.RESOURCE_EXHAUSTED
    ) -> None:
        """Take the seat out of the game (between two actions) and close its stream."""
        if seat.forfeited:
            return
        seat.forfeited = True
        seat.forfeit_reason = reason
        metrics.FORFEITS.labels(game=self.spec.game, reason=metrics.short_reason(reason)).inc()
        seat.record["forfeit"] = reason
        if not self.game.is_over():
            self.game.forfeit(seat.seat)
            self.recorder.forfeit(seat.seat, reason)
        self._emit(forfeit=admin_pb2.SeatForfeited(seat=seat.seat, reason=reason))
        if seat.connected:
            forfeit = self._notice(seat, bot_pb2.Notice.FORFEIT, None, code.name, f"forfeited: {reason}")
            self._send(seat, forfeit)
            self._send(seat, bot_pb2.RefereeMessage(game_end=bot_pb2.GameEnd(forfeited=True, reason=reason)))
            seat.outbox.put(Close(code, f"seat {seat.seat} forfeited: {reason}"))

    async def _finish(self) -> None:
        game = self.game
        self.result = game.result() if game.is_over() else None
        self.recorder.seats = [s.record for s in self.seats]
        doc = self.recorder.finish(self.ended_by)
        doc["match_id"] = self.match_id
        doc["time_control"] = self.time.to_json()
        result_msg = result_to_proto(self.result) if self.result is not None else None
        # compressing a long replay takes a while: off the event loop. It is ready before any
        # bot hears the game is over, so a bot's exit can be followed by GetReplay at once.
        self.replay_bytes = await asyncio.to_thread(dumps, doc)
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
        ended_kind = metrics.short_reason(self.ended_by)
        metrics.MATCHES_FINISHED.labels(game=self.spec.game, ended_by=ended_kind).inc()
        if self._started_at is not None:
            metrics.MATCH_SECONDS.labels(game=self.spec.game).observe(time.monotonic() - self._started_at)
            metrics.ACTIVE_MATCHES.dec()
        self.done.set()
        log.info("match %s ended (%s) after %d decisions", self.match_id, self.ended_by, self.decisions)

    # --- views ---------------------------------------------------------------------------------

    def _game_start(self, seat: int) -> bot_pb2.GameStart:
        from referee.wire import PROTOCOL

        # the static content (PROTOCOL.md "Static content"): built once per game and board
        content = wire_content(self.game)
        return bot_pb2.GameStart(
            match_id=self.match_id,
            game=self.spec.game,
            seat=seat,
            num_seats=len(self.seats),
            seat_names=[s.name for s in self.seats],
            config_json=canonical_json(self.config),
            time_control=self.time.to_proto(),
            engine_version=self.game.engine_version,
            content_version=self.game.content_version,
            protocol=PROTOCOL,
            content_json=content.json,
            content_digest=content.digest,
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
