"""The answer's path through the referee: when an answer wakes the loop that waits for it, the
loop rules on it, applies it and sends the next request before the seat's reader asks gRPC for
the next message (that call into gRPC's core is off the path between an answer and the next
request). The gRPC context is faked at its one seam (`read`); the real streams are covered by
the wire tests."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from referee.server.config import MatchSpec, ServerLimits
from referee.server.seat import LOST, Inbox, Outgoing
from referee.server.service import BotService
from referee.server.session import MatchSession
from referee.wire._proto.arena.v1 import bot_pb2

#: per decision request sent: (actions applied, steps recorded) at that moment
recorded: list[tuple[int, int]] = []
#: per read of a stream: (actions applied, steps recorded) at that moment
rearmed: list[tuple[int, int]] = []


class FakeStream:
    """A seat's stream: `read` returns the bot's messages as gRPC would (bytes), and logs when
    it is called and when it returns."""

    def __init__(self, seat: int, log: list[tuple[str, int]]) -> None:
        self.seat = seat
        self.log = log
        self.messages: asyncio.Queue[bytes] = asyncio.Queue()
        self.session: MatchSession | None = None

    async def read(self) -> bytes:
        self.log.append(("read", self.seat))
        if self.session is not None:  # the reader reads again once the loop sent and recorded
            rearmed.append((self.session.decisions, len(self.session.recorder)))
        message = await self.messages.get()
        self.log.append(("got", self.seat))
        return message


async def _play(decisions: int) -> list[tuple[str, int]]:
    log: list[tuple[str, int]] = []
    recorded.clear()
    rearmed.clear()
    session = MatchSession(MatchSpec("clank", ("a", "b"), 4), ServerLimits(max_decisions=decisions))
    streams = [FakeStream(seat.seat, log) for seat in session.seats]
    for stream in streams:
        stream.session = session

    def sink(seat: int) -> object:
        def take(item: Outgoing) -> None:
            outbox = session.seats[seat].outbox
            while item is not None:
                if isinstance(item, bytes):
                    message = bot_pb2.RefereeMessage.FromString(item)
                    if message.WhichOneof("message") == "decision":
                        log.append(("request", seat))
                        recorded.append((session.decisions, len(session.recorder)))
                        answer = bot_pb2.Answer(decision_id=message.decision.decision_id, index=0)
                        streams[seat].messages.put_nowait(bot_pb2.BotMessage(answer=answer).SerializeToString())
                item = outbox.written()

        return take

    for seat in session.seats:
        seat.outbox.attach(sink(seat.seat))  # type: ignore[arg-type]
        session.attach(seat, bot_pb2.Hello(bot_name="b"))
    readers = [
        asyncio.create_task(BotService._read(streams[s.seat], session, s))  # type: ignore[arg-type]
        for s in session.seats
    ]
    await asyncio.wait_for(session.run(), 30)
    for reader in readers:
        reader.cancel()
    await asyncio.gather(*readers, return_exceptions=True)
    assert session.decisions == decisions
    assert len(session.recorder) == decisions  # the last step too, once the match ended
    assert session.replay_bytes is not None
    return log


def test_the_next_request_is_sent_before_the_reader_reads_again() -> None:
    log = asyncio.run(_play(40))
    answered = 0
    for i, (what, seat) in enumerate(log):
        if what != "got":
            continue
        rest = log[i + 1 :]
        next_read = rest.index(("read", seat)) if ("read", seat) in rest else len(rest)
        if any(w == "request" for w, _ in rest):
            answered += 1
            assert any(w == "request" for w, _ in rest[:next_read]), log[i : i + 6]
    assert answered >= 39


def test_the_last_step_is_recorded_once_the_next_request_is_out() -> None:
    asyncio.run(_play(30))
    assert recorded[0] == (0, 0)
    # when a request goes out, the action before it is applied but not yet recorded ...
    assert all(steps == applied - 1 for applied, steps in recorded[1:]), recorded[:5]
    assert len(recorded) >= 30
    # ... and recorded by the time the bot could answer (the reader reads again after the loop
    # sent the request): WatchMatch and the replay never lag a whole decision behind
    assert len(rearmed) >= 30
    assert all(steps == applied for applied, steps in rearmed), rearmed[:5]


def test_a_wait_within_a_time_gives_the_answer_or_none_and_keeps_what_came_late() -> None:
    async def run() -> list[object]:
        loop = asyncio.get_running_loop()
        inbox = Inbox()
        got: list[object] = []
        answer = bot_pb2.Answer(decision_id=3, index=1)
        # an answer that comes in time is returned, and the timer is gone with the wait
        loop.call_later(0.01, inbox.put_nowait, answer)
        got.append(await inbox.get_within(5))
        got.append(len([h for h in loop._scheduled if not h.cancelled()]))  # type: ignore[attr-defined]
        # none in time: None, no exception; what lands afterwards waits for the next get
        got.append(await inbox.get_within(0.02))
        got.append(inbox.empty())
        inbox.put_nowait(answer)
        got.append(await inbox.get_within(5))
        # the waiting task cancelled: the answer put meanwhile stays queued
        waiting = asyncio.create_task(inbox.get_within(5))
        await asyncio.sleep(0)
        waiting.cancel()
        inbox.put_nowait(LOST)
        with contextlib.suppress(asyncio.CancelledError):
            await waiting
        got.append(inbox.get_nowait())
        return got

    got = asyncio.run(run())
    assert got[0] == bot_pb2.Answer(decision_id=3, index=1)
    assert got[1] == 0
    assert got[2] is None and got[3] is True
    assert got[4] == bot_pb2.Answer(decision_id=3, index=1)
    assert got[5] is LOST


def test_a_forfeited_seats_default_actions_are_each_recorded_in_order() -> None:
    """A seat out of the game whose engine still gives it decisions (the Game API allows it; the
    shipped engines skip such a seat) gets the default action without a request: each step must
    still be recorded before the next one is applied (nothing is asked between them)."""

    async def run() -> tuple[list[int], list[int], int, int]:
        session = MatchSession(MatchSpec("clank", ("a", "b"), 4), ServerLimits(max_decisions=80))
        game = session.game
        applied: list[int] = []
        apply_index = game.apply_index

        def applying(index: int) -> Any:
            applied.append(index)
            return apply_index(index)

        game.apply_index = applying  # type: ignore[method-assign]
        game.forfeit = lambda seat: None  # type: ignore[method-assign]  # the seat keeps its turns
        log: list[tuple[str, int]] = []
        stream = FakeStream(0, log)
        asked: list[int] = []

        def take(item: Outgoing) -> None:
            while item is not None:
                if isinstance(item, bytes):
                    message = bot_pb2.RefereeMessage.FromString(item)
                    if message.WhichOneof("message") == "decision":
                        asked.append(message.decision.decision_id)
                        answer = bot_pb2.Answer(decision_id=message.decision.decision_id, index=0)
                        stream.messages.put_nowait(bot_pb2.BotMessage(answer=answer).SerializeToString())
                item = session.seats[0].outbox.written()

        session.seats[0].outbox.attach(take)
        session.seats[1].outbox.attach(lambda item: None)
        for seat in session.seats:
            session.attach(seat, bot_pb2.Hello(bot_name="b"))
        session.lost(session.seats[1], "the bot closed its stream")  # forfeited before the first step
        reader = asyncio.create_task(BotService._read(stream, session, session.seats[0]))  # type: ignore[arg-type]
        await asyncio.wait_for(session.run(), 30)
        reader.cancel()
        await asyncio.gather(reader, return_exceptions=True)
        # the recorder's index column (a test seam): -1 marks the forfeit
        steps = list(session.recorder._indexes)
        return applied, steps, session.decisions, len(asked)

    applied, steps, decisions, asked = asyncio.run(run())
    assert decisions == 80 and len(applied) == 80
    assert 0 < asked < 60  # the forfeited seat's turns were played by default, several in a row
    assert steps.count(-1) == 1
    assert [i for i in steps if i != -1] == applied
