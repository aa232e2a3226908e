"""The answer's path through the referee: when an answer wakes the loop that waits for it, the
loop rules on it, applies it and sends the next request before the seat's reader asks gRPC for
the next message (that call into gRPC's core is off the path between an answer and the next
request). The gRPC context is faked at its one seam (`read`); the real streams are covered by
the wire tests."""

from __future__ import annotations

import asyncio

from referee.server.config import MatchSpec, ServerLimits
from referee.server.seat import Outgoing
from referee.server.service import BotService
from referee.server.session import MatchSession
from referee.wire._proto.arena.v1 import bot_pb2


class FakeStream:
    """A seat's stream: `read` returns the bot's messages as gRPC would (bytes), and logs when
    it is called and when it returns."""

    def __init__(self, seat: int, log: list[tuple[str, int]]) -> None:
        self.seat = seat
        self.log = log
        self.messages: asyncio.Queue[bytes] = asyncio.Queue()

    async def read(self) -> bytes:
        self.log.append(("read", self.seat))
        message = await self.messages.get()
        self.log.append(("got", self.seat))
        return message


async def _play(decisions: int) -> list[tuple[str, int]]:
    log: list[tuple[str, int]] = []
    session = MatchSession(MatchSpec("clank", ("a", "b"), 4), ServerLimits(max_decisions=decisions))
    streams = [FakeStream(seat.seat, log) for seat in session.seats]

    def sink(seat: int) -> object:
        def take(item: Outgoing) -> None:
            outbox = session.seats[seat].outbox
            while item is not None:
                if isinstance(item, bytes):
                    message = bot_pb2.RefereeMessage.FromString(item)
                    if message.WhichOneof("message") == "decision":
                        log.append(("request", seat))
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
