"""A bot that uses CPU time (or none) on purpose, one way per --mode (the CPU clock is under test).

It speaks the protocol with the raw generated messages, reading its stream on a thread so it can
think "until the referee says stop". It prints one line per event for the tests to read:
`decision N cpu_deadline_ms B cpu_bank_ms K wall_deadline_ms W`, notices, and how the game ended.

modes:
  plain         answer every decision at once
  spin          on its 1st decision: spin on the CPU until a notice comes (the referee must cut
                it on the CPU clock), then answer that decision late and play on at once
  fork-spin     on every decision: fork a child that spins on the CPU (the "thinking", moved
                out of the process the referee talks to) and wait, sleeping, with no CPU of its
                own, until a notice comes; then kill the child and answer late
  burn-sleep    1st decision: use --burn-ms of its own CPU time, then answer; 2nd decision: sleep
                --sleep-ms (no CPU), then answer; the rest at once
  throttled     once the game starts, move itself into the CPU-throttled cgroup --throttle (a
                cgroup the test shares with a process that loads it); on its first --loaded
                decisions use --burn-ms of CPU each, slowed in wall time by the throttle and the
                load; then move itself back to --unthrottle and answer the rest at once
"""

from __future__ import annotations

import argparse
import os
import queue
import random
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
from arena_bot._proto.arena.v1 import bot_pb2
from arena_bot.wire import bearer, channel_options, play_call


def say(*parts: object) -> None:
    print(*parts, flush=True)


def burn(seconds: float) -> None:
    """Use this much CPU time of this process (however long that takes in wall time)."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        for _ in range(1000):
            pass


def spin_until(inbox: queue.Queue[bot_pb2.RefereeMessage | None]) -> None:
    """Spin on the CPU until a message is waiting."""
    while inbox.empty():
        for _ in range(10_000):
            pass


def move_to(cgroup: str) -> None:
    """Move this process (every thread of it) into a cgroup v1 directory."""
    Path(cgroup, "cgroup.procs").write_text(str(os.getpid()))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", required=True)
    parser.add_argument("--burn-ms", type=int, default=0)
    parser.add_argument("--sleep-ms", type=int, default=0)
    parser.add_argument("--throttle", default="")
    parser.add_argument("--unthrottle", default="")
    parser.add_argument("--loaded", type=int, default=3)
    args = parser.parse_args()
    mode = args.mode
    rnd = random.Random(11)

    outbox: queue.Queue[bot_pb2.BotMessage | None] = queue.Queue()
    outbox.put(bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name=f"cpu-{mode}", protocol=1)))

    def requests() -> Iterator[bot_pb2.BotMessage]:
        while (m := outbox.get()) is not None:
            yield m

    channel = grpc.insecure_channel(os.environ["ARENA_REFEREE"], options=channel_options())
    call = play_call(channel)(requests(), metadata=bearer(os.environ["ARENA_TOKEN"]))
    inbox: queue.Queue[bot_pb2.RefereeMessage | None] = queue.Queue()

    def read() -> None:
        try:
            for message in call:
                inbox.put(message)
        except grpc.RpcError as exc:
            say("stream status", exc.code().name)
        inbox.put(None)

    threading.Thread(target=read, daemon=True).start()

    def answer(decision: bot_pb2.DecisionRequest) -> None:
        index = rnd.randrange(len(decision.legal_actions))
        outbox.put(bot_pb2.BotMessage(answer=bot_pb2.Answer(decision_id=decision.decision_id, index=index)))

    asked = 0
    while (msg := inbox.get()) is not None:
        which = msg.WhichOneof("message")
        if which == "game_start":
            tc = msg.game_start.time_control
            say("time_control", tc.cpu_decision_ms, tc.cpu_bank_ms, tc.bank_ms)
            if mode == "throttled":
                move_to(args.throttle)
            continue
        if which == "notice":
            n = msg.notice
            say("notice", bot_pb2.Notice.Kind.Name(n.kind), n.code, n.message)
            continue
        if which == "game_end":
            say("game_end", msg.game_end.reason, "forfeited" if msg.game_end.forfeited else "")
            break
        d = msg.decision
        asked += 1
        say(
            "decision",
            asked,
            "cpu_deadline_ms",
            d.cpu_deadline_ms,
            "cpu_bank_ms",
            d.cpu_bank_ms,
            "wall_deadline_ms",
            d.deadline_ms,
        )
        if mode == "spin" and asked == 1:
            spin_until(inbox)  # the notice that cuts it is the next message
        elif mode == "fork-spin":
            child = os.fork()
            if child == 0:
                while True:  # the child: spin until killed
                    pass
            while inbox.empty():
                time.sleep(0.01)
            os.kill(child, signal.SIGKILL)
            os.waitpid(child, 0)
        elif mode == "burn-sleep" and asked == 1:
            burn(args.burn_ms / 1000)
        elif mode == "burn-sleep" and asked == 2:
            time.sleep(args.sleep_ms / 1000)
        elif mode == "throttled" and asked <= args.loaded:
            burn(args.burn_ms / 1000)
            if asked == args.loaded:
                move_to(args.unthrottle)
        answer(d)
    outbox.put(None)
    channel.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
