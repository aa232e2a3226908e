"""The outbox and its stream writer: a write starts inside `Outbox.put` when the writer is idle,
the rest queue (bounded), and an abort ends the stream even while a write is stuck. The gRPC
context is faked at its one seam (`write`); the real stream is covered by test_flood and
test_misbehaviour."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from referee.server.seat import Close, Outbox, Outgoing
from referee.server.service import _pump

OK = Close(grpc.StatusCode.OK, "")


class FakeContext:
    """`write` records the message at once (as gRPC starts its batch) and then waits for the
    test to release it (`release`), or fails (`fail`)."""

    def __init__(self) -> None:
        self.started: list[object] = []
        self.finished: list[object] = []
        self.cancelled: list[object] = []
        self.gates: list[asyncio.Future[None]] = []
        self.fail: Exception | None = None

    async def write(self, message: object) -> None:
        self.started.append(message)
        if self.fail is not None:
            raise self.fail
        gate: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.gates.append(gate)
        try:
            await gate
        except asyncio.CancelledError:
            self.cancelled.append(message)
            raise
        self.finished.append(message)

    def release(self) -> None:
        self.gates.pop(0).set_result(None)


def test_an_idle_sink_takes_the_item_inside_put_and_the_rest_queue() -> None:
    taken: list[Outgoing] = []
    outbox = Outbox(limit=2)
    outbox.attach(taken.append)
    assert outbox.put(b"a") and taken == [b"a"] and len(outbox) == 0
    assert outbox.put(b"b") and outbox.put(b"c")  # busy: queued
    assert not outbox.put(b"d")  # full: the bot does not read
    assert outbox.put(OK)  # a Close always fits
    assert taken == [b"a"] and len(outbox) == 3
    assert [outbox.written(), outbox.written(), outbox.written()] == [b"b", b"c", OK]
    assert outbox.written() is None  # idle again: the next put goes straight to the sink
    assert outbox.put(b"e") and taken == [b"a", b"e"]


def test_attach_hands_over_what_was_queued_and_abort_drops_the_rest() -> None:
    taken: list[Outgoing] = []
    outbox = Outbox(limit=4)
    outbox.put(b"a")
    outbox.put(b"b")
    outbox.attach(taken.append)
    assert taken == [b"a"] and len(outbox) == 1
    outbox.abort(Close(grpc.StatusCode.RESOURCE_EXHAUSTED, "flood"))
    assert outbox.written() is None and len(outbox) == 0
    outbox.detach()
    assert outbox.put(b"c") and taken == [b"a"]  # after an abort nothing is written


def test_pump_writes_in_order_starting_inside_put() -> None:
    asyncio.run(_pump_writes_in_order_starting_inside_put())


async def _pump_writes_in_order_starting_inside_put() -> None:
    context = FakeContext()
    outbox = Outbox(limit=8)
    pump = asyncio.create_task(_pump(context, outbox))  # type: ignore[arg-type]
    await asyncio.sleep(0)  # the pump attaches
    outbox.put(b"1")
    assert context.started == [b"1"]  # started on put's stack, before any event-loop turn
    outbox.put(b"2")
    outbox.put(OK)
    assert context.started == [b"1"]  # one write at a time
    context.release()
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert context.started == [b"1", b"2"]
    context.release()
    assert await asyncio.wait_for(pump, 5) is OK
    assert context.finished == [b"1", b"2"]


def test_an_abort_ends_the_pump_while_a_write_is_stuck() -> None:
    asyncio.run(_an_abort_ends_the_pump_while_a_write_is_stuck())


async def _an_abort_ends_the_pump_while_a_write_is_stuck() -> None:
    context = FakeContext()
    outbox = Outbox(limit=8)
    pump = asyncio.create_task(_pump(context, outbox))  # type: ignore[arg-type]
    await asyncio.sleep(0)
    outbox.put(b"stuck")  # never released: the bot does not read
    outbox.put(b"queued")
    abort = Close(grpc.StatusCode.RESOURCE_EXHAUSTED, "not reading")
    outbox.abort(abort)
    assert await asyncio.wait_for(pump, 5) is abort
    await asyncio.sleep(0)
    assert context.cancelled == [b"stuck"] and context.started == [b"stuck"]


def test_a_failed_write_raises_from_the_pump() -> None:
    asyncio.run(_a_failed_write_raises_from_the_pump())


async def _a_failed_write_raises_from_the_pump() -> None:
    context = FakeContext()
    context.fail = ConnectionResetError("gone")
    outbox = Outbox(limit=8)
    pump = asyncio.create_task(_pump(context, outbox))  # type: ignore[arg-type]
    await asyncio.sleep(0)
    outbox.put(b"x")
    with pytest.raises(ConnectionResetError):
        await asyncio.wait_for(pump, 5)


def test_a_close_the_owner_keeps_open_goes_on_writing() -> None:
    asyncio.run(_a_close_the_owner_keeps_open_goes_on_writing())


async def _a_close_the_owner_keeps_open_goes_on_writing() -> None:
    context = FakeContext()
    outbox = Outbox(limit=8)
    seen: list[Close] = []

    def on_close(close: Close) -> bool:
        seen.append(close)
        return len(seen) > 1  # a lobby stream: the first game over keeps it open

    pump = asyncio.create_task(_pump(context, outbox, on_close))  # type: ignore[arg-type]
    await asyncio.sleep(0)
    outbox.put(OK)
    outbox.put(b"next game")
    assert context.started == [b"next game"]
    context.release()
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    outbox.put(OK)
    assert await asyncio.wait_for(pump, 5) is OK
    assert context.finished == [b"next game"] and len(seen) == 2


def test_a_finished_write_nobody_waits_on_is_settled_by_the_next_put() -> None:
    asyncio.run(_a_finished_write_nobody_waits_on_is_settled_by_the_next_put())


async def _a_finished_write_nobody_waits_on_is_settled_by_the_next_put() -> None:
    context = FakeContext()
    outbox = Outbox(limit=8)
    pump = asyncio.create_task(_pump(context, outbox))  # type: ignore[arg-type]
    await asyncio.sleep(0)
    outbox.put(b"1")
    context.release()  # gRPC is done with it; nothing waits behind it
    for _ in range(3):
        await asyncio.sleep(0)
    assert context.finished == []  # not resumed: no event-loop turn spent on it
    outbox.put(b"2")  # finishes it and starts the next write, both on put's stack
    assert context.finished == [b"1"] and context.started == [b"1", b"2"] and len(outbox) == 0
    context.release()
    outbox.put(OK)
    assert await asyncio.wait_for(pump, 5) is OK
    assert context.finished == [b"1", b"2"]
