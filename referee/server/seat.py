"""One seat of a match: its phase, its clock, its record and its bounded queues.

The seat's place in the game is one `SeatPhase`: in the game, lost (its stream or its process
went away), faulted (it broke a limit: PROTOCOL.md "Flooding and not reading") or forfeited.
A lost or faulted seat is forfeited by the session's loop between two actions, with the
`Forfeit` it holds. Whether a bot ever used the seat's token (`used`) and whether its stream is
open now (`connected`) are facts about the stream, not the game: a seat forfeited for strikes
is still connected until its bot has read the forfeit.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Iterator, Set
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import grpc

from referee.server.config import ServerLimits
from referee.server.cpu_clock import CpuMeter
from referee.server.rulings import Forfeit, ForfeitKind
from referee.wire._proto.arena.v1 import bot_pb2

__all__ = ["LOST", "Close", "DecisionIds", "Inbox", "Lost", "Outbox", "Outgoing", "SeatPhase", "SeatState"]


@dataclass(frozen=True, slots=True)
class Close:
    """Outbox item: end the seat's stream with this status."""

    code: grpc.StatusCode
    message: str


class Lost:
    """Inbox item: the seat's stream is gone (or the match is cancelled): wakes a pending ask."""


LOST = Lost()
#: a message for the stream: a RefereeMessage, or one already encoded (decision requests are
#: built as bytes: `messages.decision_request_bytes`)
Outgoing = bot_pb2.RefereeMessage | bytes | Close


class Outbox:
    """What is waiting to be written to one stream: at most `limit` messages (a `Close` always
    fits). `abort` drops them and ends the stream at once, even while a write is stuck because
    the bot does not read (the writer races every write against it). The stream's writer either
    `attach`es (an idle writer is handed each item inside `put`) or awaits `get`."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = ServerLimits().max_outbox if limit is None else limit
        self._items: deque[Outgoing] = deque()
        self._ready = asyncio.Event()
        self._aborted: asyncio.Future[None] | None = None
        #: set by `abort`: the status the stream ends with
        self.abort_close: Close | None = None
        #: the stream's writer (`attach`): handed the next item directly when it is idle
        self._sink: Callable[[Outgoing], None] | None = None
        self._settle: Callable[[], None] | None = None
        #: the sink holds an item (a write in flight): what comes now is queued
        self._writing = False

    def __len__(self) -> int:
        return len(self._items)

    def put(self, item: Outgoing) -> bool:
        """Queue `item`; False if the outbox is full (the bot is not reading its stream).
        After `abort` everything is dropped (the stream is ending)."""
        if self.abort_close is not None:
            return True
        if self._sink is not None:
            if self._writing and self._settle is not None:
                self._settle()  # a write gRPC has finished frees the writer now
            if not self._writing:
                # an idle writer starts the write now, inside this call: no task to wake, no
                # event-loop turn between building a request and handing it to gRPC
                self._writing = True
                self._sink(item)
                return True
        if len(self._items) >= self.limit and not isinstance(item, Close):
            return False
        self._items.append(item)
        self._ready.set()
        return True

    def attach(
        self, sink: Callable[[Outgoing], None], settle: Callable[[], None] | None = None
    ) -> None:
        """Hand every item to `sink` from now on, one at a time: `sink` takes an item and calls
        `written` once it is done with it (a write finished), which gives it the next one.
        `settle`, called by `put` while the sink is busy, lets it finish a write that is done
        (and so take the item at once) or else see to it that the write's end wakes it."""
        self._sink = sink
        self._settle = settle
        if self._items and not self._writing and self.abort_close is None:
            self._writing = True
            sink(self._items.popleft())

    def written(self) -> Outgoing | None:
        """The attached sink is done with its item: the next one (it stays busy), or None
        (it is idle: the next `put` goes straight to it)."""
        if self._items and self.abort_close is None:
            return self._items.popleft()
        self._writing = False
        return None

    def detach(self) -> None:
        """No sink any more (the stream's writer ended): items are queued for `get`."""
        self._sink = None
        self._settle = None
        self._writing = False

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


#: the result a wait's timer gives its future (`Inbox.get_within`)
_TIMED_OUT: Any = object()


def _time_out(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(_TIMED_OUT)


class Inbox:
    """A seat's answers (and LOST markers) waiting for the session's loop, its one reader.

    What `asyncio.Queue` did here, at a fraction of its fixed cost per seat (three deques and
    an Event, ~3 KiB): a list (it holds 0 or 1 item nearly always; `MatchSession.receive`
    bounds it) and a future made only while the reader waits. An item put as the reader's
    wait is cancelled (its timer fired) stays queued for the next `get_within`."""

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: list[bot_pb2.Answer | Lost] = []
        self._waiter: asyncio.Future[None] | None = None

    def qsize(self) -> int:
        """How many items are waiting."""
        return len(self._items)

    def empty(self) -> bool:
        """True if nothing is waiting."""
        return not self._items

    def put_nowait(self, item: bot_pb2.Answer | Lost) -> bool:
        """Queue `item` and wake the reader; True if it was waiting (it runs at the next turn)."""
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)
            return True
        return False

    def get_nowait(self) -> bot_pb2.Answer | Lost:
        """The oldest item (IndexError if there is none)."""
        return self._items.pop(0)

    async def get_within(self, seconds: float) -> bot_pb2.Answer | Lost | None:
        """The oldest item, or None once `seconds` have passed first: an item put after the
        timer fired stays queued for the next get (as one put after the waiting task was cancelled). A
        timer on the wait's future, not `asyncio.timeout`: no Timeout object, and no exception
        thrown into the caller when the time runs out (a CPU-metered seat's wait runs out at
        every poll of its meter)."""
        if self._items:
            return self._items.pop(0)
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()
        timer = loop.call_later(seconds, _time_out, waiter)
        self._waiter = waiter
        try:
            await waiter
        finally:
            self._waiter = None
            timer.cancel()
        if waiter.result() is _TIMED_OUT or not self._items:
            return None
        return self._items.pop(0)


class DecisionIds(Set[int]):
    """A set of decision ids (non-negative, from 0 up) as one bit each: a seat's issued
    decisions are kept for the whole match, and a set of ints costs ~60 bytes per id."""

    __slots__ = ("_bits", "_count")

    def __init__(self) -> None:
        self._bits = bytearray()
        self._count = 0

    def add(self, decision_id: int) -> None:
        """Put `decision_id` (>= 0) in the set."""
        byte, bit = divmod(decision_id, 8)
        if byte >= len(self._bits):
            self._bits.extend(bytes(byte + 1 - len(self._bits) + len(self._bits) // 2))
        if not self._bits[byte] >> bit & 1:
            self._bits[byte] |= 1 << bit
            self._count += 1

    def clear(self) -> None:
        """Empty the set (and free its bits)."""
        self._bits = bytearray()
        self._count = 0

    def __contains__(self, decision_id: object) -> bool:
        if not isinstance(decision_id, int) or decision_id < 0:
            return False
        byte, bit = divmod(decision_id, 8)
        return byte < len(self._bits) and bool(self._bits[byte] >> bit & 1)

    def __iter__(self) -> Iterator[int]:
        return (i for i in range(len(self._bits) * 8) if i in self)

    def __len__(self) -> int:
        return self._count


class SeatPhase(Enum):
    """Where a seat is in the game."""

    #: in the game (waiting for its bot, or playing)
    IN_GAME = "in_game"
    #: its stream closed or broke, or its process ended: forfeited at the next step
    LOST = "lost"
    #: it broke a limit (flood, not reading, message too large): its stream was ended at once;
    #: forfeited at the next step. A process exit does not rename it.
    FAULTED = "faulted"
    #: out of the game
    FORFEITED = "forfeited"


#: the forfeits of a seat that broke a limit (`MatchSession.fault`)
LIMIT_KINDS = frozenset({ForfeitKind.FLOOD, ForfeitKind.NOT_READING, ForfeitKind.TOO_LARGE})


@dataclass(eq=False, slots=True)
class SeatState:
    """One seat: its token, its connection, its phase, its clock and its record."""

    seat: int
    name: str
    token: str
    bank_ms: int
    record: dict[str, Any]
    #: a bot has opened its session with the token (tokens are one-time)
    used: bool = False
    #: the bot's stream is open
    connected: bool = False
    phase: SeatPhase = SeatPhase.IN_GAME
    #: the forfeit a lost or faulted seat is waiting for, or the one a forfeited seat got
    forfeit: Forfeit | None = None
    exit_code: int | None = None
    strikes: int = 0
    #: what is left of the seat's CPU bank (PROTOCOL.md, "CPU time")
    cpu_bank_ms: int = 0
    #: reads the CPU seconds its bot has used (set by its launcher); None: wall clock only
    cpu_meter: CpuMeter | None = None
    #: the ladder bot bound to this seat (a remote bot, seated through the lobby), if any
    bot_id: int | None = None
    #: decision ids sent to this seat: a second or late answer to one of them is ignored
    issued: DecisionIds = field(default_factory=DecisionIds)
    #: decisions that timed out: the first late answer to each is expected (not a bad message)
    late_expected: set[int] = field(default_factory=set)
    #: messages that were not answers to the open decision (`ServerLimits.max_bad_messages`)
    bad_messages: int = 0
    #: incidents kept in the replay record (later ones are counted in `incidents_omitted`)
    max_incidents: int = field(default_factory=lambda: ServerLimits().max_incidents)
    outbox: Outbox = field(default_factory=Outbox)
    #: answers (bounded by `ServerLimits.max_inbox` in `MatchSession.receive`) and LOST markers
    inbox: Inbox = field(default_factory=Inbox)
    #: `exited`, made when first asked for (only a launcher that watches processes uses it)
    _exited: asyncio.Event | None = field(default=None, repr=False)

    @property
    def exited(self) -> asyncio.Event:
        """Set once the launcher reported the bot's process ended (`MatchSession.process_exited`)."""
        if self._exited is None:
            self._exited = asyncio.Event()
        return self._exited

    @property
    def forfeited(self) -> bool:
        """The seat is out of the game."""
        return self.phase is SeatPhase.FORFEITED

    @property
    def forfeit_reason(self) -> str:
        """Why the seat was forfeited ("" while it is not)."""
        return self.forfeit.reason if self.forfeited and self.forfeit is not None else ""

    @property
    def pending(self) -> Forfeit | None:
        """The forfeit a lost or faulted seat gets at the next step (None otherwise)."""
        return self.forfeit if self.phase in (SeatPhase.LOST, SeatPhase.FAULTED) else None

    @property
    def faulted(self) -> bool:
        """The seat broke a limit (it is faulted, or was forfeited for it): nothing more it
        sends is read."""
        return (
            self.forfeit is not None
            and self.forfeit.kind in LIMIT_KINDS
            and self.phase is not SeatPhase.IN_GAME
        )

    def lose(self, forfeit: Forfeit) -> None:
        """Its stream or process went away: forfeited at the next step with `forfeit`."""
        self.phase = SeatPhase.LOST
        self.forfeit = forfeit

    def fault(self, forfeit: Forfeit) -> None:
        """It broke a limit: forfeited at the next step with `forfeit`."""
        self.phase = SeatPhase.FAULTED
        self.forfeit = forfeit

    def out(self, forfeit: Forfeit) -> None:
        """It is out of the game, for `forfeit`."""
        self.phase = SeatPhase.FORFEITED
        self.forfeit = forfeit

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
