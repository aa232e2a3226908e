"""Benchmark of the gRPC referee (`make bench`; figures, not pass/fail).

1. Decision round trip. A bot that answers at once measures, for every decision, the time from
   sending its answer to receiving the next decision request of its match: the referee reads
   the answer, applies it, observes, encodes and sends. Against it, in the same run: a bare
   grpcio bidirectional echo (a separate server process, no referee logic) with the same message
   sizes, measured the same way. Both servers are separate processes; the clients run here.
2. Capacity. Bots that take 50 ms per decision play N matches at once on one referee process;
   the referee's added time per decision is the same gap as in 1 (answer sent -> next request
   received), so it also counts the transport and this client's own scheduling: a conservative
   figure. The result is the largest N whose p99 stays within 5 ms (every level is reported:
   on a shared 2-core machine single levels are noisy).

Usage: python -m referee.server.bench [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import secrets
import statistics
import struct
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

import grpc

from referee.server.bot_check import percentile
from referee.wire import BOT_SERVICE, admin_calls, bearer
from referee.wire._proto.arena.v1 import admin_pb2, bot_pb2

ECHO_METHOD = "/arena.bench.Echo/Stream"
#: a BotMessage with an Answer (decision id, index) is about this size on the wire
ANSWER_BYTES = 8


# --- the bare echo server (its own process) ---------------------------------------------------


async def _echo_server(port: int) -> None:
    async def stream(request_iterator: Any, context: grpc.aio.ServicerContext[bytes, bytes]) -> None:
        while True:
            message: object = await context.read()
            if message is grpc.aio.EOF:
                return
            assert isinstance(message, bytes)
            (size,) = struct.unpack_from("<I", message.ljust(4, b"\0"))
            await context.write(b"x" * size)

    server = grpc.aio.server()
    server.add_generic_rpc_handlers(
        [
            grpc.method_handlers_generic_handler(
                "arena.bench.Echo", {"Stream": grpc.stream_stream_rpc_method_handler(stream)}
            )
        ]
    )
    bound = server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    print(f"echo listening on 127.0.0.1:{bound}", flush=True)
    await server.wait_for_termination()


def _spawn(
    args: Sequence[str], pattern: str, env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env={**os.environ, **(env or {})},
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    found = re.search(pattern, line)
    if not found:
        proc.kill()
        raise RuntimeError(f"server did not start: {line!r}")
    return proc, found.group(1)


# --- clients ----------------------------------------------------------------------------------


async def _echo_client(address: str, sizes: Sequence[tuple[int, int]]) -> list[float]:
    """For each (request, answer) size pair: send `answer` bytes, wait for `request` bytes back."""
    gaps: list[float] = []
    async with grpc.aio.insecure_channel(address) as channel:
        call: Any = channel.stream_stream(ECHO_METHOD)()
        for request_size, answer_size in sizes:
            payload = struct.pack("<I", request_size) + b"a" * max(0, answer_size - 4)
            started = time.perf_counter()
            await call.write(payload)
            reply = await call.read()
            gaps.append(time.perf_counter() - started)
            assert reply is not grpc.aio.EOF and len(reply) == request_size
        await call.done_writing()
    return gaps


class _Farm:
    """Bots for many matches in this process's event loop."""

    def __init__(self, address: str, admin_token: str, think_s: float) -> None:
        self.address = address
        self.admin_token = admin_token
        self.think_s = think_s
        self.gaps: list[float] = []
        self.sizes: list[int] = []
        self.measuring = False
        self.stop = asyncio.Event()
        self.decisions = 0

    async def match(self, channel: grpc.aio.Channel, seed: int) -> None:
        admin = admin_calls(channel)
        made = await admin["CreateMatch"](
            admin_pb2.CreateMatchRequest(game="clank", seed=seed, seats=[admin_pb2.SeatSpec(name="b")] * 2),
            metadata=bearer(self.admin_token),
        )
        last_answer: list[float | None] = [None]
        play = channel.stream_stream(
            f"/{BOT_SERVICE}/Play",
            request_serializer=bot_pb2.BotMessage.SerializeToString,
            response_deserializer=bot_pb2.RefereeMessage.FromString,
        )

        async def seat(token: str) -> None:
            call = play(metadata=bearer(token))
            await call.write(bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name="bench", protocol=1)))
            while True:
                msg = await call.read()
                if msg is grpc.aio.EOF or self.stop.is_set():
                    call.cancel()
                    return
                assert isinstance(msg, bot_pb2.RefereeMessage)
                if msg.WhichOneof("message") != "decision":
                    continue
                now = time.perf_counter()
                if last_answer[0] is not None and self.measuring:
                    self.gaps.append(now - last_answer[0])
                    self.sizes.append(msg.ByteSize())
                last_answer[0] = None
                if self.think_s:
                    await asyncio.sleep(self.think_s)
                d = msg.decision
                answer = bot_pb2.BotMessage(
                    answer=bot_pb2.Answer(
                        decision_id=d.decision_id, index=(d.decision_id * 7) % len(d.legal_actions)
                    )
                )
                last_answer[0] = time.perf_counter()
                self.decisions += 1
                await call.write(answer)

        await asyncio.gather(*(seat(t) for t in made.seat_tokens))

    async def run(self, matches: int, warmup_s: float, measure_s: float, max_decisions: int = 0) -> None:
        async with grpc.aio.insecure_channel(self.address) as channel:
            running: set[asyncio.Task[None]] = set()
            seed = 0

            def launch() -> None:
                nonlocal seed
                seed += 1
                task = asyncio.create_task(self.match(channel, seed))
                running.add(task)
                task.add_done_callback(running.discard)
                task.add_done_callback(lambda _t: None if self.stop.is_set() else launch())

            for _ in range(matches):
                launch()
            await asyncio.sleep(warmup_s)
            self.measuring = True
            started = time.perf_counter()
            while time.perf_counter() - started < measure_s and not (
                max_decisions and len(self.gaps) >= max_decisions
            ):
                await asyncio.sleep(0.05)
            self.measuring = False
            self.stop.set()
            for task in list(running):
                task.cancel()
            await asyncio.gather(*running, return_exceptions=True)


def _ms(values: Sequence[float]) -> dict[str, float]:
    ms = [v * 1000 for v in values]
    return {
        "n": len(ms),
        "median_ms": round(statistics.median(ms), 3) if ms else 0.0,
        "p99_ms": round(percentile(ms, 99), 3),
    }


async def _bench(quick: bool) -> dict[str, Any]:
    token = secrets.token_urlsafe(24)
    referee, address = _spawn(  # the admin token through the environment, never argv
        ["-m", "referee.cli", "serve", "referee", "--port", "0"],
        r"listening on (\S+)",
        {"ARENA_ADMIN_TOKEN": token},
    )
    echo, echo_address = _spawn(["-m", "referee.server.bench", "--echo-server"], r"listening on (\S+)")
    report: dict[str, Any] = {"cpus": os.cpu_count()}
    try:
        # 1. round trip through the referee vs a bare echo with the same sizes
        farm = _Farm(address, token, think_s=0.0)
        await farm.run(1, warmup_s=0.5, measure_s=3 if quick else 8)
        sizes = [(request, ANSWER_BYTES) for request in farm.sizes]
        echo_gaps = await _echo_client(echo_address, sizes)
        request_sizes = [s for s, _ in sizes]
        report["round_trip"] = {
            "referee": _ms(farm.gaps),
            "bare_echo": _ms(echo_gaps),
            "request_bytes_median": statistics.median(request_sizes) if request_sizes else 0,
            "answer_bytes": ANSWER_BYTES,
        }
        # 2. capacity with 50 ms bots
        levels = [1, 10, 25, 50, 75, 100, 150, 200] if not quick else [1, 10, 50]
        measure_s = 2.0 if quick else 5.0
        capacity: list[dict[str, Any]] = []
        best = 0
        for n in levels:
            farm = _Farm(address, token, think_s=0.05)
            await farm.run(n, warmup_s=1.0, measure_s=measure_s)
            row = {
                "matches": n,
                **_ms(farm.gaps),
                "decisions_per_s": round(len(farm.gaps) / measure_s, 1),
            }
            capacity.append(row)
            print(
                f"  {n:4d} matches with 50 ms bots: added p99 {row['p99_ms']:.2f} ms "
                f"(median {row['median_ms']:.2f} ms)",
                file=sys.stderr,
                flush=True,
            )
            if row["p99_ms"] <= 5.0:
                best = n
            elif row["p99_ms"] > 20.0:
                break  # saturated: larger levels only get worse
            await asyncio.sleep(0.5)
        report["capacity"] = {"levels": capacity, "max_matches_p99_within_5ms": best}
    finally:
        for proc in (referee, echo):
            proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(5)
            if proc.poll() is None:
                proc.kill()
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="benchmark the gRPC referee")
    parser.add_argument("--quick", action="store_true", help="shorter runs, fewer levels")
    parser.add_argument("--echo-server", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.echo_server:
        asyncio.run(_echo_server(0))
        return 0
    report = asyncio.run(_bench(args.quick))
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    rt, cap = report["round_trip"], report["capacity"]
    ref, echo = rt["referee"], rt["bare_echo"]
    print("referee decision round trip (bot answers at once; answer sent -> next request received)")
    print(
        f"  through the referee: median {ref['median_ms']:.3f} ms  p99 {ref['p99_ms']:.3f} ms"
        f"  ({ref['n']} decisions, request median {rt['request_bytes_median']} bytes)"
    )
    echo_line = f"median {echo['median_ms']:.3f} ms  p99 {echo['p99_ms']:.3f} ms"
    print(f"  bare grpcio echo:    {echo_line}  (same sizes)")
    levels = ", ".join(f"{r['matches']}: p99 {r['p99_ms']:.2f} ms" for r in cap["levels"])
    best = cap["max_matches_p99_within_5ms"]
    print(f"concurrent matches with 50 ms bots, referee adds <= 5 ms at p99: {best}")
    print(f"  (added time per decision by level: {levels})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
