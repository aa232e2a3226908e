"""A bot that misbehaves on purpose, one way per --mode (the referee's rulings are under test).

It speaks the protocol with the raw generated messages (not the SDK), so it can do what the SDK
never would. It prints what the referee told it, one line per event, for the tests to read.

modes:
  ok                 play random legal actions (the control)
  slow-once          sleep past the deadline and bank on its first decision only
  slow               sleep past the deadline on every decision (strikes -> forfeit)
  crash              exit with code 3 at its 5th decision
  disconnect         close the stream at its 5th decision, then stay alive
  unknown-id         answer its 3rd decision with an id that was never issued, then correctly
  out-of-range       answer its 3rd decision with an index past the end, then correctly
  bad-token          connect with a token the referee never issued
  second-connection  once playing, open a second stream with the same token, then play on
  reuse-token        play the game, then connect again with the used token
  no-hello           send an answer as the first message
  late               on its 2nd decision: sleep past the allowance, then answer the old id
  flood              once the game starts, send thousands of empty and unparseable messages as
                     fast as it can while answering every decision correctly
  flood-no-read      after its hello, send empty messages as fast as it can and never read
                     (20,000 of them; then it reads, to print how the stream ended)
  oversize           answer its 3rd decision with a message of about 100 kB (over the limit)

"Past the allowance" is always far past it (a second or more), so a loaded machine cannot turn
a timeout into an answer in time.
"""

from __future__ import annotations

import argparse
import os
import queue
import random
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import grpc
from arena_bot._proto.arena.v1 import bot_pb2
from arena_bot.wire import bearer, channel_options, play_call

#: how far past the allowance a slow answer comes
WAY_PAST_S = 1.0
#: messages sent by the flood modes (the referee's budget is 100 in a match)
FLOOD = 5_000
#: messages sent by flood-no-read before it reads (gRPC takes them even once the stream is over)
FLOOD_NO_READ = 20_000
#: not a BotMessage: a field tag with a truncated value
GARBAGE = b"\x0a\xff\xff\xff"


def say(*parts: object) -> None:
    print(*parts, flush=True)


def _serialize(message: Any) -> bytes:
    return message if isinstance(message, bytes) else message.SerializeToString()


def raw_play_call(channel: grpc.Channel) -> Any:
    """BotService.Play that also sends raw bytes as they are (garbage on purpose)."""
    return channel.stream_stream(
        "/arena.v1.BotService/Play",
        request_serializer=_serialize,
        response_deserializer=bot_pb2.RefereeMessage.FromString,
    )


def open_stream(address: str, token: str, first: bot_pb2.BotMessage | None, *, uncapped: bool = False):
    options = channel_options()
    if uncapped:  # no client-side send limit: the referee sees the oversize message
        options = [o for o in options if o[0] != "grpc.max_send_message_length"]
    channel = grpc.insecure_channel(address, options=options)
    outbox: queue.Queue[bot_pb2.BotMessage | bytes | None] = queue.Queue()
    if first is not None:
        outbox.put(first)

    def requests() -> Iterator[bot_pb2.BotMessage | bytes]:
        while (m := outbox.get()) is not None:
            yield m

    call = raw_play_call(channel)(requests(), metadata=bearer(token))
    return channel, outbox, call


def flood_without_reading(address: str, token: str) -> int:
    """Hello, then FLOOD_NO_READ empty messages as fast as gRPC takes them, without reading a
    reply (its receive window stays at 64 KiB: no BDP probing), then read what is left to print
    how the stream ended (a status comes after the messages queued before it)."""
    options = [*channel_options(), ("grpc.http2.bdp_probe", 0)]
    channel = grpc.insecure_channel(address, options=options)
    sent, done = threading.Event(), threading.Event()

    def requests() -> Iterator[bot_pb2.BotMessage]:
        yield hello()
        for _ in range(FLOOD_NO_READ):
            yield bot_pb2.BotMessage()
        sent.set()
        done.wait()  # keep the stream open: no half-close, the referee must rule

    call = play_call(channel)(requests(), metadata=bearer(token))
    sent.wait()
    say("sent", FLOOD_NO_READ, "messages; reading now")
    try:
        for _ in call:
            pass
        say("stream status", call.code().name, call.details())
    except grpc.RpcError as exc:
        say("stream status", exc.code().name, exc.details())
    done.set()
    channel.close()
    return 0


def flood(outbox: queue.Queue[bot_pb2.BotMessage | bytes | None]) -> None:
    for i in range(FLOOD):
        outbox.put(GARBAGE if i % 2 else bot_pb2.BotMessage())


def hello() -> bot_pb2.BotMessage:
    return bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name="buggy", protocol=1))


def answer(decision_id: int, index: int) -> bot_pb2.BotMessage:
    return bot_pb2.BotMessage(answer=bot_pb2.Answer(decision_id=decision_id, index=index))


def try_stream(address: str, token: str) -> None:
    """Open a stream, read one message, print how it went."""
    channel, outbox, call = open_stream(address, token, hello())
    try:
        for msg in call:
            say("extra stream got", msg.WhichOneof("message"))
            break
    except grpc.RpcError as exc:
        say("extra stream status", exc.code().name, exc.details())
    finally:
        outbox.put(None)
        call.cancel()
        channel.close()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="ok")
    args = parser.parse_args()
    address, token = os.environ["ARENA_REFEREE"], os.environ["ARENA_TOKEN"]
    mode = args.mode
    rnd = random.Random(7)

    if mode == "bad-token":
        try_stream(address, token + "-forged")
        return 1
    if mode == "flood-no-read":
        return flood_without_reading(address, token)
    first = answer(0, 0) if mode == "no-hello" else hello()
    channel, outbox, call = open_stream(address, token, first, uncapped=mode == "oversize")
    asked = 0
    out_of_turn = 0
    try:
        for msg in call:
            which = msg.WhichOneof("message")
            if which == "game_start":
                if mode == "second-connection":
                    try_stream(address, token)
                if mode == "flood":
                    threading.Thread(target=flood, args=(outbox,), daemon=True).start()
                continue
            if which == "notice":
                n = msg.notice
                say("notice", bot_pb2.Notice.Kind.Name(n.kind), n.code, n.message)
                continue
            if which == "game_end":
                say("game_end", msg.game_end.reason, "forfeited" if msg.game_end.forfeited else "")
                say("asked", asked, "out_of_turn", out_of_turn)
                continue
            d = msg.decision
            asked += 1
            out_of_turn += d.context.out_of_turn
            n_actions = len(d.legal_actions)
            if mode == "slow" or (mode == "slow-once" and asked == 1):
                time.sleep((d.deadline_ms + d.time_bank_ms) / 1000 + WAY_PAST_S)
            if mode == "crash" and asked == 5:
                say("crashing")
                os._exit(3)
            if mode == "disconnect" and asked == 5:
                say("disconnecting")
                call.cancel()
                channel.close()
                time.sleep(30)
                return 0
            if mode == "unknown-id" and asked == 3:
                outbox.put(answer(d.decision_id + 100_000, 0))
            if mode == "out-of-range" and asked == 3:
                outbox.put(answer(d.decision_id, n_actions + 5))
            if mode == "late" and asked == 2:
                time.sleep((d.deadline_ms + d.time_bank_ms) / 1000 + WAY_PAST_S)
            if mode == "oversize" and asked == 3:
                say("sending an oversize answer")
                big = answer(d.decision_id, 0)
                big.answer.note = "x" * 100_000
                outbox.put(big)
            outbox.put(answer(d.decision_id, rnd.randrange(n_actions)))
    except grpc.RpcError as exc:
        say("stream status", exc.code().name, exc.details())
    finally:
        outbox.put(None)
        channel.close()
    if mode == "reuse-token":
        try_stream(address, token)
    return 0


if __name__ == "__main__":
    sys.exit(main())
