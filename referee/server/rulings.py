"""The referee's rulings as values (PROTOCOL.md, "Misbehaviour" and "Time control").

Pure functions: no asyncio, no streams, no metrics. They take a decision's clock and what a seat
did (or failed to do) and return what happens to it: an answer accepted, a decision timed out
with the default action played, an answer rejected with a strike, a late answer ignored, a seat
forfeited. `referee.server.session` applies these values (the seat's record, its notices, the
replay); `referee.server.messages` puts the notices on the wire.

A forfeit is a `Forfeit` value (its `ForfeitKind` carries the status code and the text the
replay records); a strike is a `StrikeKind` (its reason and the status code of its notice).
"""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass
from enum import Enum

import grpc

__all__ = [
    "Accepted",
    "AnswerRuling",
    "Banks",
    "DecisionClock",
    "Forfeit",
    "ForfeitKind",
    "Late",
    "Notice",
    "NoticeKind",
    "Rejected",
    "StrikeKind",
    "TimedOut",
    "bad_message_forfeit",
    "bad_message_notice",
    "late_notice",
    "rejected_notice",
    "rule_answer",
    "strikes_forfeit",
    "time_out",
]


class StrikeKind(Enum):
    """Why a seat got a strike; the value is the step's `reason`, the incident's `kind` and the
    metrics label."""

    #: no answer before the wall deadline (decision time + time bank)
    TIMEOUT = "timeout"
    #: the CPU allowance (CPU decision time + CPU bank) ran out
    CPU_TIME = "cpu_time"
    #: the answer names a decision that was never sent to the seat
    UNKNOWN_DECISION = "unknown_decision"
    #: the answer's index is not one of the legal actions
    INDEX_OUT_OF_RANGE = "index_out_of_range"

    @property
    def code(self) -> grpc.StatusCode:
        """The status code of the notice the strike comes with."""
        return _STRIKE_CODES[self]


_STRIKE_CODES = {
    StrikeKind.TIMEOUT: grpc.StatusCode.DEADLINE_EXCEEDED,
    StrikeKind.CPU_TIME: grpc.StatusCode.RESOURCE_EXHAUSTED,
    StrikeKind.UNKNOWN_DECISION: grpc.StatusCode.FAILED_PRECONDITION,
    StrikeKind.INDEX_OUT_OF_RANGE: grpc.StatusCode.INVALID_ARGUMENT,
}


class ForfeitKind(Enum):
    """Why a seat was forfeited; the value is the start of the forfeit's reason (before ": "),
    which is also the metrics label."""

    STRIKES = "strikes"
    FLOOD = "flood"
    NOT_READING = "not reading"
    TOO_LARGE = "message too large"
    DISCONNECTED = "disconnected"
    CRASHED = "crashed"
    EXITED = "exited before the game ended"
    NEVER_CONNECTED = "never connected"

    @property
    def code(self) -> grpc.StatusCode:
        """The status the seat's stream ends with (PROTOCOL.md, "Status codes")."""
        return _FORFEIT_CODES[self]

    @classmethod
    def of(cls, reason: str) -> ForfeitKind | None:
        """The kind a forfeit's reason text starts with ("flood: more than ..." -> FLOOD);
        None if it names none."""
        for kind in cls:
            if reason == kind.value or reason.startswith(kind.value + ": "):
                return kind
        return None


_FORFEIT_CODES = {
    ForfeitKind.STRIKES: grpc.StatusCode.RESOURCE_EXHAUSTED,
    ForfeitKind.FLOOD: grpc.StatusCode.RESOURCE_EXHAUSTED,
    ForfeitKind.NOT_READING: grpc.StatusCode.RESOURCE_EXHAUSTED,
    ForfeitKind.TOO_LARGE: grpc.StatusCode.RESOURCE_EXHAUSTED,
    ForfeitKind.DISCONNECTED: grpc.StatusCode.UNAVAILABLE,
    ForfeitKind.CRASHED: grpc.StatusCode.UNAVAILABLE,
    ForfeitKind.EXITED: grpc.StatusCode.UNAVAILABLE,
    ForfeitKind.NEVER_CONNECTED: grpc.StatusCode.UNAVAILABLE,
}


@dataclass(frozen=True, slots=True)
class Forfeit:
    """A seat taken out of the game: its kind and what happened (the detail after ": ")."""

    kind: ForfeitKind
    detail: str = ""

    @property
    def reason(self) -> str:
        """The text the replay, the admin status and the bot see ("flood: more than ...")."""
        return f"{self.kind.value}: {self.detail}" if self.detail else self.kind.value

    @property
    def code(self) -> grpc.StatusCode:
        """The status code of this forfeit (its kind's)."""
        return self.kind.code

    @classmethod
    def parse(cls, reason: str) -> Forfeit:
        """The forfeit a reason text names ("flood: more than ..."); ValueError if its start is
        no `ForfeitKind` (a caller's bug: reasons come from the referee, never from a bot)."""
        kind = ForfeitKind.of(reason)
        if kind is None:
            raise ValueError(f"not a forfeit reason: {reason!r}")
        return cls(kind, reason[len(kind.value) + 2 :])

    @classmethod
    def crashed(cls, exit_code: int) -> Forfeit:
        """A bot process that ended before the game did (exit code 0: it just left)."""
        return (
            cls(ForfeitKind.CRASHED, f"exit code {exit_code}") if exit_code != 0 else cls(ForfeitKind.EXITED)
        )


class NoticeKind(Enum):
    """The kinds of `Notice` the referee sends (the wire's `Notice.Kind`, by name)."""

    TIMEOUT = "TIMEOUT"
    REJECTED = "REJECTED"
    LATE = "LATE"
    FORFEIT = "FORFEIT"


@dataclass(frozen=True, slots=True)
class Notice:
    """What a seat is told about a ruling; `decision_id` None: about no decision (ids start at
    0, so it must not look like one about decision 0). The seat's strike count is added when it
    is sent (`messages.notice`)."""

    kind: NoticeKind
    decision_id: int | None
    code: grpc.StatusCode
    message: str
    #: the action played for it (TIMEOUT notices)
    default_index: int | None = None


# --- the clock -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Banks:
    """What is left of a seat's time bank and CPU bank, in milliseconds."""

    wall_ms: int
    cpu_ms: int


@dataclass(frozen=True, slots=True)
class DecisionClock:
    """The clocks of one decision: the wall allowance (decision time + time bank) always; the CPU
    allowance (CPU decision time + CPU bank) when `cpu_ruled` (the CPU clock is on, the seat's
    CPU time is measured and was read when the decision was sent)."""

    decision_ms: int
    banks: Banks
    cpu_decision_ms: int = 0
    #: the time control's CPU clock is on (`cpu_decision_ms` > 0)
    cpu_clock: bool = False
    #: this decision is ruled on the CPU clock too
    cpu_ruled: bool = False

    @property
    def allowance_s(self) -> float:
        """Wall seconds the seat has for the decision."""
        return (self.decision_ms + self.banks.wall_ms) / 1000

    @property
    def cpu_allowance_ms(self) -> int:
        """CPU milliseconds the seat has for the decision (when `cpu_ruled`)."""
        return self.cpu_decision_ms + self.banks.cpu_ms

    def cpu_spent(self, cpu_ms: int | None) -> bool:
        """Has the seat used more CPU than its allowance (on a CPU-ruled decision)?"""
        return self.cpu_ruled and cpu_ms is not None and cpu_ms > self.cpu_allowance_ms

    def poll_wait(
        self, remaining_s: float, cpu_ms: int | None, poll_s: float, poll_min_s: float, cores: int
    ) -> float:
        """How long to wait for the answer before reading the CPU meter again: at most `poll_s`,
        and sooner as the CPU allowance runs out (a bot spends it at most `cores` times as
        fast as the wall clock runs), never below `poll_min_s`; `remaining_s` without a
        CPU reading."""
        if not self.cpu_ruled or cpu_ms is None:
            return remaining_s
        left_s = (self.cpu_allowance_ms - cpu_ms) / 1000 / cores
        return min(remaining_s, poll_s, max(poll_min_s, left_s))

    def answered(self, elapsed_ms: int, cpu_ms: int | None) -> Banks:
        """The banks after an answer in `elapsed_ms` using `cpu_ms` of CPU: the time beyond each
        allowance per decision comes out of its bank (a bank never goes below 0)."""
        return Banks(self.wall_after(elapsed_ms), self.cpu_after(cpu_ms))

    def wall_after(self, elapsed_ms: int) -> int:
        """The time bank after `elapsed_ms` on the wall clock."""
        return max(0, self.banks.wall_ms - max(0, elapsed_ms - self.decision_ms))

    def cpu_after(self, cpu_ms: int | None) -> int:
        """The CPU bank after `cpu_ms` of CPU (None: not known, nothing charged)."""
        # CPU time is charged only when the clock is on and the decision's CPU time is known
        if cpu_ms is None or not self.cpu_clock:
            return self.banks.cpu_ms
        return max(0, self.banks.cpu_ms - max(0, cpu_ms - self.cpu_decision_ms))


@dataclass(frozen=True, slots=True)
class TimedOut:
    """A decision the clock ran out on: the default action is played and the seat gets a strike
    (a forfeit after the action, if that was its last)."""

    kind: StrikeKind
    index: int
    elapsed_ms: int
    cpu_ms: int | None
    #: the banks after it: the clock that ran out is emptied, the other charged as for an answer
    banks: Banks
    #: the incident's detail in the replay
    detail: str
    notice: Notice


def time_out(
    clock: DecisionClock,
    kind: StrikeKind,
    decision_id: int,
    elapsed_ms: int,
    cpu_ms: int | None,
    default_index: int,
    default_text: str,
) -> TimedOut:
    """The ruling on a decision whose wall clock (`StrikeKind.TIMEOUT`) or CPU clock
    (`StrikeKind.CPU_TIME`) ran out after `elapsed_ms`; the game's default action
    (`default_index`, described by `default_text`) is played."""
    if kind is StrikeKind.CPU_TIME:
        banks = Banks(clock.wall_after(elapsed_ms), 0)
        detail = f"{cpu_ms} ms of CPU in {elapsed_ms} ms"
        told = f"out of CPU time ({cpu_ms} ms used)"
    elif kind is StrikeKind.TIMEOUT:
        banks = Banks(0, clock.cpu_after(cpu_ms))
        detail = f"no answer in {elapsed_ms} ms"
        told = "no answer in time"
    else:
        raise ValueError(f"{kind} is not a clock running out")
    played = f"played index {default_index} ({default_text})"
    notice = Notice(NoticeKind.TIMEOUT, decision_id, kind.code, f"{told}; {played}", default_index)
    return TimedOut(
        kind, default_index, elapsed_ms, cpu_ms, banks, f"{detail}; played {default_text!r}", notice
    )


# --- answers ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Accepted:
    """The answer settles the pending decision."""


@dataclass(frozen=True, slots=True)
class Late:
    """An answer to a decision already settled: ignored (a `LATE` notice). The first late
    answer to a decision that timed out is `expected`; any other counts as a bad message."""

    decision_id: int
    expected: bool

    @property
    def bad_message(self) -> str | None:
        """What to count against the seat's budget of bad messages (None: nothing)."""
        return None if self.expected else f"a repeated answer to decision {self.decision_id}"


@dataclass(frozen=True, slots=True)
class Rejected:
    """An answer the referee cannot use: a strike; the decision stays open."""

    kind: StrikeKind
    detail: str


AnswerRuling = Accepted | Late | Rejected


def rule_answer(
    pending_id: int,
    num_actions: int,
    decision_id: int,
    index: int,
    issued: Set[int],
    late_expected: Set[int],
) -> AnswerRuling:
    """The ruling on an answer (`decision_id`, `index`) while decision `pending_id` with
    `num_actions` legal actions is open; `issued` are the decision ids sent to the seat,
    `late_expected` those that timed out and have not had their late answer yet."""
    if decision_id != pending_id:
        if decision_id in issued:
            return Late(decision_id, decision_id in late_expected)
        return Rejected(
            StrikeKind.UNKNOWN_DECISION,
            f"answer names decision {decision_id}, the pending one is {pending_id}",
        )
    if not 0 <= index < num_actions:
        return Rejected(StrikeKind.INDEX_OUT_OF_RANGE, f"index {index} is out of range 0..{num_actions - 1}")
    return Accepted()


def late_notice(decision_id: int) -> Notice:
    """What a seat is told about an answer to a decision already settled."""
    return Notice(
        NoticeKind.LATE,
        decision_id,
        grpc.StatusCode.FAILED_PRECONDITION,
        f"decision {decision_id} is already settled; answer ignored",
    )


def rejected_notice(rejected: Rejected, decision_id: int, strikes: int, max_strikes: int) -> Notice:
    """What a seat is told about its rejected answer (`strikes`: its count with this one)."""
    return Notice(
        NoticeKind.REJECTED,
        decision_id,
        rejected.kind.code,
        f"{rejected.detail}; strike {strikes} of {max_strikes}, the decision is still open",
    )


def bad_message_notice(detail: str) -> Notice:
    """What a seat is told about a message that is not an answer (about no decision: the open
    one, if any, is not touched)."""
    return Notice(
        NoticeKind.REJECTED,
        None,
        grpc.StatusCode.INVALID_ARGUMENT,
        f"expected an answer, got {detail}; ignored",
    )


# --- forfeits --------------------------------------------------------------------------------


def strikes_forfeit(strikes: int, max_strikes: int, last: StrikeKind | None = None) -> Forfeit | None:
    """The forfeit of a seat with `strikes` strikes, None while it has fewer than `max_strikes`.
    `last` names the rejected answer that was the last strike (a timeout's forfeit, applied
    after its default action, does not name it)."""
    if strikes < max_strikes:
        return None
    detail = f"{strikes} of {max_strikes}"
    if last is not None:
        detail += f" (last: {last.value})"
    return Forfeit(ForfeitKind.STRIKES, detail)


def bad_message_forfeit(count: int, limit: int, detail: str) -> Forfeit | None:
    """The forfeit of a seat that has sent `count` messages that were not answers to the open
    decision (the last one: `detail`); None within the budget of `limit`."""
    if count <= limit:
        return None
    return Forfeit(
        ForfeitKind.FLOOD,
        f"more than {limit} messages that were not answers to the open decision (last: {detail})",
    )
