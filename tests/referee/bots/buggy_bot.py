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
"""

from __future__ import annotations

import argparse
import os
import queue
import random
import sys
import time
from collections.abc import Iterator

import grpc

from bots.python.arena_bot._proto.arena.v1 import bot_pb2
from bots.python.arena_bot.wire import bearer, channel_options, play_call


def say(*parts: object) -> None:
    print(*parts, flush=True)


def open_stream(address: str, token: str, first: bot_pb2.BotMessage | None):
    channel = grpc.insecure_channel(address, options=channel_options())
    outbox: queue.Queue[bot_pb2.BotMessage | None] = queue.Queue()
    if first is not None:
        outbox.put(first)

    def requests() -> Iterator[bot_pb2.BotMessage]:
        while (m := outbox.get()) is not None:
            yield m

    call = play_call(channel)(requests(), metadata=bearer(token))
    return channel, outbox, call


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
    first = answer(0, 0) if mode == "no-hello" else hello()
    channel, outbox, call = open_stream(address, token, first)
    asked = 0
    out_of_turn = 0
    try:
        for msg in call:
            which = msg.WhichOneof("message")
            if which == "game_start":
                if mode == "second-connection":
                    try_stream(address, token)
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
                time.sleep((d.deadline_ms + d.time_bank_ms) / 1000 + 0.15)
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
                time.sleep((d.deadline_ms + d.time_bank_ms) / 1000 + 0.15)
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
