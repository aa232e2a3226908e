"""Benchmark of the gRPC referee (`make bench-referee`; figures beside their goals, not pass/fail).

1. Decision round trip. A bot that answers at once measures, for every decision, the time from
   sending its answer to receiving the next decision request of its match: the referee reads
   the answer, applies it, observes, encodes and sends. Against it, in the same run and
   interleaved (rounds): a bare grpc.aio bidirectional echo (a separate server process, no
   referee logic) with the same message sizes, measured the same way. Goal: <= 1.5x the echo at
   p50 and p99.
2. Capacity. Bots that take 50 ms per decision play N two-seat Clank! matches at once; the
   referee's added time per decision is the same gap as in 1 (answer sent -> next request of that
   match received), so it also counts the transport and the bot side's own scheduling: a
   conservative figure. Every seat has its own connection (as every bot is its own process),
   and the bots are driven from separate client processes (at most `MATCHES_PER_CLIENT` matches
   each), never from the referee's process or this one. Per level it prints the added p50/p99,
   decisions/s, the referee's CPU time per decision (its process CPU time over the window /
   the decisions the bots made in it), its memory per match (RSS delta since the level's referee
   started / N: each level has a new referee, so what earlier levels' ended matches left with
   the allocator is not counted; beside a bare echo stream's, one connection each), the bot
   side's CPU (cores) and the machine's idle share, and every failure by its status code (a
   refused stream or match is counted and printed, never swallowed). The result is the
   largest N whose p99 stays within 5 ms, for one referee process and for `arena serve referee
   --processes 2` (matches placed round-robin on its two ports). Goals: >= 250 matches per
   core, <= 100 us CPU per decision, <= 100 KiB per match, N processes scale with cores.

   Same-run reference (speed is a ratio: the machine is shared and noisy). For each level N, right
   after the first referee level of that size, a fresh bare echo server process runs under load of
   the same shape: N pairs of echo streams, each stream its own connection (2N, as the N matches'
   seats), from `--echo-client` processes split as the bots' are. A pair has one message in flight
   and its two streams take turns, as a match asks one seat at a time; its messages start N / D
   seconds apart, D the decisions/s the referee just made at that level (about N / (0.05 s + the
   referee's round trip)), so the echo serves the same rate over the same connection count (with
   the bots' 50 ms think instead, the faster echo would serve more messages/s). A message is one
   read (answer-sized) and one write (the round trip's median request size) for the echo server,
   as a decision is for the referee. The echo's CPU per message (its process CPU over the window
   / the messages echoed in it) stands beside the referee's CPU per decision as a ratio; the
   referee's KiB per match beside two bare echo streams (part 1's figure) and beside the echo's
   own RSS growth per pair at that level. The echo has no per-match set-up: the bench prints how
   many decisions a match lasts (its bots pick pseudo-random moves; the round trip's matches
   end, the 50 ms ones rarely inside a window) and how many matches were made and ended inside
   each window, i.e. how much set-up the CPU figure holds.

On a 2-core machine the bots' processes and the referee share the cores: when the machine has
no idle time left the figure is bounded by the host, not by the referee; the output says so.

Usage: python -m bench.referee_server [--quick] [--json] [--levels 25,50,...] [--processes 1,2]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import re
import resource
import secrets
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final

import grpc

from referee.server.bot_check import percentile
from referee.server.config import MatchSpec, ServerLimits
from referee.server.session import MatchSession, _Answered
from referee.wire import BOT_SERVICE, admin_calls, bearer
from referee.wire._proto.arena.v1 import admin_pb2, bot_pb2

ECHO_METHOD: Final = "/arena.bench.Echo/Stream"
#: a BotMessage with an Answer (decision id, index) is about this size on the wire
ANSWER_BYTES: Final = 8
#: each connection its own: without this, channels to one address share one connection
OWN_CONNECTION: Final = [("grpc.use_local_subchannel_pool", 1)]
#: bot-side processes hold at most this many matches each (and at most MAX_CLIENTS processes)
MATCHES_PER_CLIENT: Final = 50
MAX_CLIENTS: Final = 4
#: the added time per decision a level may have at p99
ADDED_P99_MS: Final = 5.0
#: above this p99 a level is saturated; after two such levels in a row larger ones are not run
SATURATED_P99_MS: Final = 20.0
THINK_S: Final = 0.05
#: goals (issue 14)
GOAL_ECHO_RATIO: Final = 1.5
GOAL_CPU_US: Final = 100.0
GOAL_MATCHES_PER_CORE: Final = 250
GOAL_KIB_PER_MATCH: Final = 100.0

_CLK_TCK: Final = os.sysconf("SC_CLK_TCK")


# --- /proc readings ---------------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process `pid` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _CLK_TCK  # utime, stime


def rss_bytes(pid: int) -> int:
    """Resident memory of process `pid`."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def machine_times() -> tuple[float, float]:
    """(idle, total) jiffies of the whole machine so far."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    return float(values[3] + values[4]), float(sum(values[:8]))


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


@dataclass
class Spawned:
    """A server process of the bench, its stderr kept in a file to show when it fails."""

    proc: subprocess.Popen[str]
    stderr_path: Path
    #: what its first line matched
    found: str
    #: the lines after it (`--processes N`: each child's pid)
    more: list[str] = field(default_factory=list)

    def stderr_tail(self, lines: int = 30) -> str:
        text = self.stderr_path.read_text(errors="replace") if self.stderr_path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> None:
        self.proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(15)
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self.stderr_path.unlink(missing_ok=True)


def spawn(
    args: Sequence[str], pattern: str, env: dict[str, str] | None = None, extra_lines: int = 0
) -> Spawned:
    """Start `python ARGS` and wait for its first stdout line to match `pattern`; RuntimeError
    with its status and the end of its stderr when it does not."""
    fd, name = tempfile.mkstemp(prefix="arena-bench-", suffix=".stderr")
    with os.fdopen(fd, "w") as stderr:
        proc = subprocess.Popen(
            [sys.executable, *args], stdout=subprocess.PIPE, stderr=stderr, stdin=subprocess.DEVNULL,
            text=True, env={**os.environ, **(env or {})},
        )
    spawned = Spawned(proc, Path(name), "")
    assert proc.stdout is not None
    line = proc.stdout.readline()
    found = re.search(pattern, line)
    if not found:
        proc.kill()
        code = proc.wait()
        proc.stdout.close()
        tail = spawned.stderr_tail()
        spawned.stderr_path.unlink(missing_ok=True)
        raise RuntimeError(
            f"server did not start ({' '.join(args)}): exit status {code}, first line {line!r}; "
            f"its stderr:\n{tail or '(empty)'}"
        )
    spawned.found = found.group(1)
    spawned.more = [proc.stdout.readline() for _ in range(extra_lines)]
    return spawned


# --- 0. the referee's own work per decision, without any transport ----------------------------


def game_work(in_flight: int, decisions: int, first_seed: int = 1) -> dict[str, Any]:
    """CPU per decision of what the referee does for a decision besides moving bytes: the
    engine's next decision and apply, the seat's observation and the request's bytes, and the
    step's records (replay columns, WatchMatch's log, metrics), driven through `MatchSession`'s
    own methods (the code its loop runs) with no stream, no event loop and no bot.

    `in_flight` 2-seat Clank! matches take one decision each in turn, as a referee holding that
    many interleaves them (a match that ends is replaced by the next seed's), until `decisions`
    were taken; each answer is picked as the capacity bench's bots pick it. One match in flight
    is the work alone, its data hot in the CPU's caches; hundreds in flight pay for reaching each
    match's data again. The capacity rows split the referee's CPU per decision into the work at
    their match count, the bare echo's transport, and the rest.
    """
    seeds = iter(range(first_seed, first_seed + decisions + in_flight))

    def new_match() -> MatchSession:
        return MatchSession(MatchSpec("clank", ("a", "b"), next(seeds)), ServerLimits())

    live = [new_match() for _ in range(in_flight)]
    made, finished, taken = in_flight, 0, 0
    started = time.process_time()
    while taken < decisions:
        for slot, session in enumerate(live):
            game = session.game
            if game.is_over():
                session._record_step()
                finished += 1
                live[slot] = session = new_match()
                game = session.game
                made += 1
            d = game.decision()
            assert d is not None
            session._request(session.seats[d.seat], d)  # the request's bytes, as `_ask` builds them
            session._record_step()  # the previous step, recorded once the request is out
            index = (d.id * 7) % len(d.actions)
            action = game.apply_index(index)
            session.decisions += 1
            session._unrecorded = (d, _Answered(index, "", 0, ""), action)
            taken += 1
            if taken == decisions:
                break
    cpu = time.process_time() - started
    for session in live:
        if session.game.is_over():
            finished += 1
    return {
        "in_flight": in_flight,
        "decisions": taken,
        "matches_made": made,
        "matches_finished": finished,
        #: the decisions taken by each match still in flight at the end
        "in_flight_decisions": [s.decisions for s in live if not s.game.is_over()],
        "us_per_decision": round(cpu / taken * 1e6, 1) if taken else None,
    }


# --- 1. round trip, in this process ---------------------------------------------------------


async def _echo_client(address: str, sizes: Sequence[tuple[int, int]]) -> list[float]:
    """For each (request, answer) size pair: send `answer` bytes, wait for `request` bytes back."""
    gaps: list[float] = []
    async with grpc.aio.insecure_channel(address, options=OWN_CONNECTION) as channel:
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


async def _echo_memory(address: str, pid: int, streams: int) -> float:
    """The echo server's RSS growth per open stream (each on its own connection, one message
    echoed), in bytes."""
    before = rss_bytes(pid)
    channels = [grpc.aio.insecure_channel(address, options=OWN_CONNECTION) for _ in range(streams)]
    try:
        calls: list[Any] = [ch.stream_stream(ECHO_METHOD)() for ch in channels]
        for call in calls:
            await call.write(struct.pack("<I", 64))
        for call in calls:
            await call.read()
        await asyncio.sleep(0.3)
        grown = rss_bytes(pid) - before
        for call in calls:
            call.cancel()
    finally:
        await asyncio.gather(*(ch.close() for ch in channels))
    return grown / streams


@dataclass(kw_only=True)
class _Load:
    """What a load generator counts (a `--client` or `--echo-client` process reports it the same
    way: `_serve_commands`)."""

    #: the gaps measured (answer sent -> next request received), while `measuring`
    gaps: list[float] = field(default_factory=list)
    measuring: bool = False
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    #: decisions answered (echoed messages for the echo)
    decisions: int = 0
    #: matches made (CreateMatch answered); always 0 for the echo, whose streams stay open
    created: int = 0
    #: matches played to their end
    finished: int = 0
    #: the decisions of the finished matches (their mean length: per-match set-up is spread over it)
    finished_decisions: int = 0
    #: status code (or exception type) -> how many matches (or echo pairs) ended with it
    failures: Counter[str] = field(default_factory=Counter)


@dataclass
class _Farm(_Load):
    """Bots of many matches in one event loop: the round trip here, capacity in `--client`
    processes. Every seat has its own connection; the matches are created through `admin`."""

    addresses: list[str]
    admin_token: str
    think_s: float
    sizes: list[int] = field(default_factory=list)
    admins: list[dict[str, Any]] = field(default_factory=list)
    admin_channels: list[grpc.aio.Channel] = field(default_factory=list)

    async def match(self, address_index: int, seed: int) -> int:
        """Play one match to its end; the number of decisions its bots answered."""
        admin = self.admins[address_index]
        made = await admin["CreateMatch"](
            admin_pb2.CreateMatchRequest(game="clank", seed=seed, seats=[admin_pb2.SeatSpec(name="b")] * 2),
            metadata=bearer(self.admin_token),
            timeout=30,
        )
        self.created += 1
        last_answer: list[float | None] = [None]
        answered = [0]

        async def seat(token: str) -> None:
            async with grpc.aio.insecure_channel(self.addresses[address_index], options=OWN_CONNECTION) as ch:
                call: Any = ch.stream_stream(
                    f"/{BOT_SERVICE}/Play",
                    request_serializer=bot_pb2.BotMessage.SerializeToString,
                    response_deserializer=bot_pb2.RefereeMessage.FromString,
                )(metadata=bearer(token))
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
                    answered[0] += 1
                    await call.write(answer)

        await asyncio.gather(*(seat(t) for t in made.seat_tokens))
        return answered[0]

    async def _guarded(self, address_index: int, seed: int) -> None:
        """One match; a failure is counted by its status code (never swallowed), then a pause so
        a refusing referee is not hammered."""
        try:
            decisions = await self.match(address_index, seed)
            if not self.stop.is_set():  # a match cut short by the end of the level is not finished
                self.finished += 1
                self.finished_decisions += decisions
        except asyncio.CancelledError:
            raise
        except grpc.aio.AioRpcError as exc:
            if not self.stop.is_set():
                self.failures[exc.code().name] += 1
                await asyncio.sleep(0.1)
        except Exception as exc:  # counted and printed by kind: a bench must not hide a failure
            if not self.stop.is_set():
                self.failures[type(exc).__name__] += 1
                await asyncio.sleep(0.1)

    async def start(self, matches: int, first_seed: int) -> set[asyncio.Task[None]]:
        """Open the admin channels and keep `matches` matches in flight (a finished one is
        replaced) until `stop` is set; returns the running tasks."""
        self.admin_channels = [grpc.aio.insecure_channel(a, options=OWN_CONNECTION) for a in self.addresses]
        self.admins = [admin_calls(ch) for ch in self.admin_channels]
        running: set[asyncio.Task[None]] = set()
        seed = first_seed

        def launch(slot: int) -> None:
            nonlocal seed
            seed += 1
            task = asyncio.create_task(self._guarded(slot % len(self.addresses), seed))
            running.add(task)
            task.add_done_callback(running.discard)
            task.add_done_callback(lambda _t: None if self.stop.is_set() else launch(slot))

        for slot in range(matches):
            launch(first_seed + slot)  # round-robin over the referee processes
        return running

    async def finish(self, running: set[asyncio.Task[None]]) -> None:
        self.measuring = False
        self.stop.set()
        for task in list(running):
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
        await asyncio.gather(*(ch.close() for ch in self.admin_channels))


async def _round_trip(
    address: str, token: str, echo_address: str, measure_s: float
) -> tuple[list[float], list[float], list[int], tuple[int, int]]:
    """One round: the referee's gaps, the echo's for the same sizes, the request sizes, and
    (matches finished, their decisions)."""
    farm = _Farm([address], token, think_s=0.0)
    running = await farm.start(1, 0)
    await asyncio.sleep(0.5)
    farm.measuring = True
    await asyncio.sleep(measure_s)
    await farm.finish(running)
    sizes = [(request, ANSWER_BYTES) for request in farm.sizes]
    echo_gaps = await _echo_client(echo_address, sizes)
    return farm.gaps, echo_gaps, farm.sizes, (farm.finished, farm.finished_decisions)


# --- 2. capacity: bot-side client processes ---------------------------------------------------


@dataclass
class _EchoPairs(_Load):
    """The capacity reference, in `--echo-client` processes: `pairs` pairs of bare echo streams,
    each stream on its own connection, shaped like a match of `_Farm`: a pair has one message in
    flight at a time, its two streams take turns, and a pair's messages start `interval_s` apart
    (the referee's pace: its decisions/s over the level's matches). Each message is one read and one
    write for the echo server (answer-sized in, request-sized out), as each decision is for the
    referee. No set-up between messages: the streams stay open for the whole level."""

    address: str
    request_bytes: int
    interval_s: float

    async def pair(self, index: int) -> None:
        payload = struct.pack("<I", self.request_bytes) + b"a" * max(0, ANSWER_BYTES - 4)
        channels = [grpc.aio.insecure_channel(self.address, options=OWN_CONNECTION) for _ in range(2)]
        try:
            calls: list[Any] = [ch.stream_stream(ECHO_METHOD)() for ch in channels]
            # spread the pairs' turns over the interval, as matches drift apart
            await asyncio.sleep((index * 0.618) % 1 * self.interval_s)
            turn = 0
            while not self.stop.is_set():
                call = calls[turn % 2]
                started = time.perf_counter()
                await call.write(payload)
                reply = await call.read()
                if reply is grpc.aio.EOF:
                    raise RuntimeError("echo stream ended")
                if self.measuring:
                    self.gaps.append(time.perf_counter() - started)
                self.decisions += 1
                turn += 1
                await asyncio.sleep(max(0.0, self.interval_s - (time.perf_counter() - started)))
        except asyncio.CancelledError:
            raise
        except grpc.aio.AioRpcError as exc:
            if not self.stop.is_set():
                self.failures[exc.code().name] += 1
        except Exception as exc:  # counted and printed by kind, like _Farm's
            if not self.stop.is_set():
                self.failures[type(exc).__name__] += 1
        finally:
            await asyncio.gather(*(ch.close() for ch in channels))

    async def start(self, pairs: int) -> set[asyncio.Task[None]]:
        """Start `pairs` pairs; returns their tasks (they run until `stop` is set)."""
        return {asyncio.create_task(self.pair(i)) for i in range(pairs)}

    async def finish(self, running: set[asyncio.Task[None]]) -> None:
        self.measuring = False
        self.stop.set()
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)


async def _client_main(addresses: list[str], matches: int, first_seed: int, think_s: float) -> None:
    """`--client`: the admin token is stdin's first line; then `start` / `stop` commands on stdin,
    answered on stdout (`started D CPU`, then one JSON line)."""
    loop = asyncio.get_running_loop()
    token = (await loop.run_in_executor(None, sys.stdin.readline)).strip()
    farm = _Farm(addresses, token, think_s)
    await _serve_commands(farm, await farm.start(matches, first_seed))


async def _echo_client_main(address: str, pairs: int, request_bytes: int, interval_s: float) -> None:
    """`--echo-client`: `_client_main`'s protocol (the token line is read and ignored) over
    `_EchoPairs`."""
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.readline)
    load = _EchoPairs(address, request_bytes, interval_s)
    await _serve_commands(load, await load.start(pairs))


async def _serve_commands(farm: _Farm | _EchoPairs, running: set[asyncio.Task[None]]) -> None:
    """Print `running`, then answer `start` / `stop` on stdin until `stop` (or stdin's end)."""
    loop = asyncio.get_running_loop()
    print("running", flush=True)

    def cpu() -> float:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime

    created0 = finished0 = 0
    while True:
        command = (await loop.run_in_executor(None, sys.stdin.readline)).strip()
        if command == "start":
            farm.gaps.clear()
            farm.measuring = True
            created0, finished0 = farm.created, farm.finished
            print(f"started {farm.decisions} {cpu():.6f}", flush=True)
        elif command == "stop" or not command:
            farm.measuring = False
            report = {
                "gaps": [round(g, 6) for g in farm.gaps],
                "decisions": farm.decisions,
                "cpu_s": cpu(),
                "failures": dict(farm.failures),
                "finished": farm.finished,
                "finished_decisions": farm.finished_decisions,
                "window_created": farm.created - created0,
                "window_finished": farm.finished - finished0,
            }
            print(json.dumps(report), flush=True)
            await farm.finish(running)
            return


@dataclass
class _Client:
    proc: subprocess.Popen[str]
    stderr: IO[str]

    def line(self) -> str:
        assert self.proc.stdout is not None
        text = self.proc.stdout.readline()
        if not text:
            self.stderr.seek(0)
            raise RuntimeError(f"bench client exited ({self.proc.wait()}): {self.stderr.read()[-2000:]}")
        return text

    def send(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()


def _capacity_level(
    client_args: Callable[[int, int], list[str]], pids: list[int], token: str, matches: int,
    warmup_s: float, measure_s: float, baseline_rss: int,
) -> dict[str, Any]:
    """Run one level: `matches` matches (or echo pairs) over client processes, the i-th started
    as `python -m bench.referee_server CLIENT_ARGS(i, its share)`; the figures of its window, with
    `pids` the measured server processes."""
    n_clients = min(MAX_CLIENTS, max(1, math.ceil(matches / MATCHES_PER_CLIENT)))
    shares = [matches // n_clients + (1 if i < matches % n_clients else 0) for i in range(n_clients)]
    clients: list[_Client] = []
    try:
        for i, share in enumerate(shares):
            err = tempfile.TemporaryFile("w+")  # noqa: SIM115 - closed with its client below
            proc = subprocess.Popen(
                [sys.executable, "-m", "bench.referee_server", *client_args(i, share)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True,
            )
            client = _Client(proc, err)
            client.send(token)
            clients.append(client)
        for client in clients:
            if client.line().strip() != "running":
                raise RuntimeError("bench client: unexpected first line")
        time.sleep(warmup_s)
        ref_cpu0 = sum(cpu_seconds(p) for p in pids)
        idle0, total0 = machine_times()
        started_at = time.perf_counter()
        decisions0 = 0
        client_cpu0 = 0.0
        for client in clients:
            client.send("start")
        for client in clients:
            _, d, c = client.line().split()
            decisions0 += int(d)
            client_cpu0 += float(c)
        rss = sum(rss_bytes(p) for p in pids)
        time.sleep(measure_s)
        for client in clients:
            client.send("stop")
        reports = [json.loads(client.line()) for client in clients]
        window = time.perf_counter() - started_at
        ref_cpu = sum(cpu_seconds(p) for p in pids) - ref_cpu0
        idle1, total1 = machine_times()
        rss = max(rss, sum(rss_bytes(p) for p in pids))
    finally:
        for client in clients:
            with contextlib.suppress(subprocess.TimeoutExpired):
                client.proc.wait(10)
            if client.proc.poll() is None:
                client.proc.kill()
                client.proc.wait()
            for pipe in (client.proc.stdin, client.proc.stdout, client.stderr):
                if pipe is not None:
                    pipe.close()
    idle_share = (idle1 - idle0) / (total1 - total0) if total1 > total0 else 0.0
    gaps = [g for r in reports for g in r["gaps"]]
    decisions = sum(r["decisions"] for r in reports) - decisions0
    client_cpu = sum(r["cpu_s"] for r in reports) - client_cpu0
    failures: Counter[str] = Counter()
    for r in reports:
        failures.update(r["failures"])
    finished = sum(r["finished"] for r in reports)
    return {
        "matches": matches,
        **_ms(gaps),
        "window_decisions": decisions,
        "decisions_per_s": round(decisions / window, 1),
        "referee_cpu_us_per_decision": round(ref_cpu / decisions * 1e6, 1) if decisions else None,
        "referee_cores": round(ref_cpu / window, 2),
        "kib_per_match": round((rss - baseline_rss) / matches / 1024, 1),
        "bot_processes": n_clients,
        "bot_cores": round(client_cpu / window, 2),
        "machine_idle": round(idle_share, 3),
        # what else ran meanwhile (other users of a shared machine): busy cores minus ours
        "other_cores": round(
            max(0.0, (1 - idle_share) * (os.cpu_count() or 1) - (ref_cpu + client_cpu) / window), 2
        ),
        "failures": dict(failures),
        "matches_finished": finished,
        # matches made and ended inside the window: their set-up and end are in its CPU figure
        "matches_created_in_window": sum(r["window_created"] for r in reports),
        "matches_finished_in_window": sum(r["window_finished"] for r in reports),
        # a match's set-up and end (CreateMatch, two connections, GameStart; GameEnd, the replay's
        # compression) are spread over this many decisions
        "decisions_per_match": (
            round(sum(r["finished_decisions"] for r in reports) / finished, 1) if finished else None
        ),
    }


def _ms(values: Sequence[float]) -> dict[str, float]:
    ms = [v * 1000 for v in values]
    return {
        "n": len(ms),
        "median_ms": round(statistics.median(ms), 3) if ms else 0.0,
        "p99_ms": round(percentile(ms, 99), 3),
    }


#: `--max-matches` of the bench's referees (the bench's own option: a small one shows refusals)
_MAX_MATCHES: list[int] = [1024]


def _referee(processes: int, token: str) -> tuple[Spawned, list[str], list[int]]:
    """`arena serve referee --port 0 --processes N`: the process, its addresses, the referee pids."""
    spawned = spawn(  # the admin token through the environment, never argv
        [
            "-m", "referee.cli", "serve", "referee", "--port", "0", "--processes", str(processes),
            "--max-matches", str(_MAX_MATCHES[0]),
        ],
        r"listening on (\S+)",
        {"ARENA_ADMIN_TOKEN": token},
        extra_lines=processes + 1 if processes > 1 else 0,  # the shared port's line, each child's
    )
    addresses = spawned.found.split(",")
    if processes == 1:
        return spawned, addresses, [spawned.proc.pid]
    pids = [int(m.group(1)) for line in spawned.more if (m := re.search(r"\(pid (\d+)\)", line))]
    return spawned, addresses, pids


@dataclass
class _EchoReference:
    """The capacity levels' same-run reference: a bare echo server process (its own, fresh)
    under `_EchoPairs` load of N pairs (2N connections) for a level of N matches at the rate the
    referee made, driven from `--echo-client` processes split as the bots' are. Measured once per
    N, right after the first referee level of that size (the same machine load), and shared by
    the process counts."""

    server: Spawned
    baseline_rss: int
    request_bytes: int
    warmup_s: float
    measure_s: float
    #: the round trip's bare echo memory: two streams, one connection each (KiB)
    pair_kib: float
    rows: dict[int, dict[str, Any]] = field(default_factory=dict)

    def level(self, pairs: int, token: str, rate: float) -> dict[str, Any]:
        """The echo's figures under `pairs` pairs sending `rate` messages/s in all (measured now
        unless a level of that size already was)."""
        if pairs not in self.rows:
            interval_ms = pairs / rate * 1000 if rate > 0 else THINK_S * 1000
            row = _capacity_level(
                lambda i, share: [
                    "--echo-client", self.server.found, "--matches", str(share),
                    "--request-bytes", str(self.request_bytes), "--interval-ms", f"{interval_ms:.3f}",
                ],
                [self.server.proc.pid], token, pairs, self.warmup_s, self.measure_s, self.baseline_rss,
            )
            self.rows[pairs] = {
                "pairs": pairs,
                "connections": 2 * pairs,
                "interval_ms": round(interval_ms, 2),
                "n": row["n"],
                "median_ms": row["median_ms"],
                "p99_ms": row["p99_ms"],
                "messages_per_s": row["decisions_per_s"],
                "cpu_us_per_message": row["referee_cpu_us_per_decision"],
                "cores": row["referee_cores"],
                "kib_per_pair": row["kib_per_match"],
                "client_processes": row["bot_processes"],
                "machine_idle": row["machine_idle"],
                "failures": row["failures"],
            }
        return self.rows[pairs]


def _ratio_or_none(a: float | None, b: float | None) -> float | None:
    return round(a / b, 2) if a and b else None


def _capacity(
    processes: int, token: str, levels: Sequence[int], warmup_s: float, measure_s: float,
    echo: _EchoReference,
) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    best = 0
    over = 0
    for n in levels:
        # a new referee per level: its memory per match is then this level's own, not what the
        # levels before left in the process (an ended match's memory stays with the allocator)
        referee, addresses, pids = _referee(processes, token)
        try:
            time.sleep(0.5)
            baseline = sum(rss_bytes(p) for p in pids)

            def bots(i: int, share: int, n: int = n, addresses: list[str] = addresses) -> list[str]:
                return [
                    "--client", ",".join(addresses), "--matches", str(share),
                    "--first-seed", str(1 + i * 100_000 + n * 1000),
                ]

            row = _capacity_level(bots, pids, token, n, warmup_s, measure_s, baseline)
            row["echo"] = e = echo.level(n, token, row["decisions_per_s"])
            row["cpu_vs_echo"] = _ratio_or_none(row["referee_cpu_us_per_decision"], e["cpu_us_per_message"])
            row["kib_vs_echo_pair"] = _ratio_or_none(row["kib_per_match"], echo.pair_kib)
            row["kib_vs_echo_level"] = _ratio_or_none(row["kib_per_match"], e["kib_per_pair"])
            rows.append(row)
            failed = sum(row["failures"].values())
            print(
                f"  {processes} process(es), {n:4d} matches: added p50 {row['median_ms']:.2f} ms, "
                f"p99 {row['p99_ms']:.2f} ms; {row['decisions_per_s']:.0f} decisions/s; referee "
                f"{row['referee_cpu_us_per_decision']} us CPU/decision, {row['referee_cores']} cores; "
                f"{row['kib_per_match']} KiB/match; matches made/ended in the window "
                f"{row['matches_created_in_window']}/{row['matches_finished_in_window']}; "
                f"bots {row['bot_processes']} processes "
                f"{row['bot_cores']} cores; other processes {row['other_cores']} cores; machine idle "
                f"{row['machine_idle']:.0%}; failures {row['failures'] or 0}\n"
                f"    bare echo, {e['pairs']} pairs: p50 {e['median_ms']:.2f} ms, p99 {e['p99_ms']:.2f} ms; "
                f"{e['messages_per_s']:.0f} messages/s; {e['cpu_us_per_message']} us CPU/message "
                f"(referee {row['cpu_vs_echo']}x); {e['kib_per_pair']} KiB/pair; "
                f"failures {e['failures'] or 0}",
                file=sys.stderr,
                flush=True,
            )
            if row["p99_ms"] <= ADDED_P99_MS and not failed:
                best = n
            over = over + 1 if row["p99_ms"] > SATURATED_P99_MS else 0
        except Exception:
            print(f"referee stderr (end):\n{referee.stderr_tail()}", file=sys.stderr)
            raise
        finally:
            referee.stop()
        if over == 2:  # saturated twice running (once may be other load): larger levels only get worse
            break
    return {
        "processes": processes,
        "levels": rows,
        "max_matches_p99_within_5ms": best,
        **_memory_slopes(rows),
    }


def _memory_slopes(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Memory per match added, from the smallest level to the largest (each level had a new
    referee): what one more match costs, without the process's one-time growth (caches warmed,
    gRPC's and the allocator's first arenas) that a level's per-match figure spreads over its
    matches; the echo's per pair the same way. None with fewer than two levels."""
    if len(rows) < 2 or rows[-1]["matches"] == rows[0]["matches"]:
        return {"kib_per_added_match": None, "echo_kib_per_added_pair": None, "slope_levels": None}
    first, last = rows[0], rows[-1]
    added = last["matches"] - first["matches"]
    referee = (last["kib_per_match"] * last["matches"] - first["kib_per_match"] * first["matches"]) / added
    e0, e1 = first["echo"], last["echo"]
    echo = (e1["kib_per_pair"] * e1["pairs"] - e0["kib_per_pair"] * e0["pairs"]) / (e1["pairs"] - e0["pairs"])
    return {
        "kib_per_added_match": round(referee, 1),
        "echo_kib_per_added_pair": round(echo, 1),
        "slope_levels": [first["matches"], last["matches"]],
    }


async def _bench_round_trip(token: str, quick: bool) -> dict[str, Any]:
    referee, addresses, _ = _referee(1, token)
    echo = spawn(["-m", "bench.referee_server", "--echo-server"], r"listening on (\S+)")
    try:
        rounds = 1 if quick else 3
        ref_gaps: list[float] = []
        echo_gaps: list[float] = []
        sizes: list[int] = []
        finished = finished_decisions = 0
        for _ in range(rounds):  # interleaved: both see the same machine load
            r, e, s, (f, d) = await _round_trip(addresses[0], token, echo.found, 2.0 if quick else 4.0)
            ref_gaps += r
            echo_gaps += e
            sizes += s
            finished += f
            finished_decisions += d
        streams = 50 if quick else 200
        echo_kib = await _echo_memory(echo.found, echo.proc.pid, streams) / 1024
    except Exception:
        print(f"referee stderr (end):\n{referee.stderr_tail()}", file=sys.stderr)
        raise
    finally:
        referee.stop()
        echo.stop()
    return {
        "referee": _ms(ref_gaps),
        "bare_echo": _ms(echo_gaps),
        "request_bytes_median": statistics.median(sizes) if sizes else 0,
        "answer_bytes": ANSWER_BYTES,
        "rounds": rounds,
        "echo_kib_per_stream": round(echo_kib, 1),
        "echo_streams": streams,
        # the bots of this bench pick pseudo-random moves; their matches here end, unlike (most of)
        # the capacity levels' 50 ms ones inside a window
        "matches_finished": finished,
        "decisions_per_match": round(finished_decisions / finished, 1) if finished else None,
    }


def run(quick: bool, levels: Sequence[int], processes: Sequence[int]) -> dict[str, Any]:
    """The whole bench; its report as a dict."""
    token = secrets.token_urlsafe(24)
    report: dict[str, Any] = {
        "cpus": os.cpu_count(),
        "think_ms": THINK_S * 1000,
        "setup": (
            f"referee: `arena serve referee --processes N` (its own processes); bots: client "
            f"processes of <= {MATCHES_PER_CLIENT} matches each (<= {MAX_CLIENTS}), every seat its "
            f"own connection, {THINK_S * 1000:.0f} ms think time; echo: a bare grpc.aio server process "
            f"(capacity: N pairs of streams, 2N connections, each pair one message in flight, paced "
            f"to the referee's decisions/s, from client processes split as the bots')"
        ),
    }
    work_decisions = 2_000 if quick else 20_000
    game_work(1, 500)  # caches and first imports out of the figures
    report["game_work"] = game_work(1, work_decisions)
    rt = report["round_trip"] = asyncio.run(_bench_round_trip(token, quick))
    warmup_s, measure_s = (1.0, 1.5) if quick else (2.0, 5.0)
    server = spawn(["-m", "bench.referee_server", "--echo-server"], r"listening on (\S+)")
    try:
        time.sleep(0.5)
        echo = _EchoReference(
            server, rss_bytes(server.proc.pid), int(rt["request_bytes_median"]) or 64,
            *((0.5, 1.5) if quick else (1.0, 3.0)), pair_kib=2 * rt["echo_kib_per_stream"],
        )
        report["capacity"] = [
            _capacity(n, token, levels, warmup_s, measure_s, echo) for n in processes
        ]
    finally:
        server.stop()
    works: dict[int, float] = {}
    for cap in report["capacity"]:
        for row in cap["levels"]:
            n = row["matches"]
            if n not in works:
                works[n] = game_work(n, max(work_decisions, 4 * n))["us_per_decision"]
            row["game_work_us_per_decision"] = own = works[n]
            # what neither the transport (the echo at this level) nor the game's own work explains
            cpu, per_message = row["referee_cpu_us_per_decision"], row["echo"]["cpu_us_per_message"]
            row["rest_us_per_decision"] = (
                round(cpu - per_message - own, 1) if cpu and per_message and own else None
            )
    return report


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b else "n/a"


def render(report: dict[str, Any]) -> list[str]:
    """The report in words, each figure beside its goal."""
    rt = report["round_trip"]
    ref, echo = rt["referee"], rt["bare_echo"]
    think_ms = report["think_ms"]
    lines = [
        f"set-up ({report['cpus']} CPUs): {report['setup']}",
        "referee decision round trip (bot answers at once; answer sent -> next request received), "
        f"{rt['rounds']} interleaved round(s)",
        f"  through the referee: p50 {ref['median_ms']:.3f} ms  p99 {ref['p99_ms']:.3f} ms  "
        f"({ref['n']} decisions, request median {rt['request_bytes_median']} bytes)",
        f"  bare grpc.aio echo:  p50 {echo['median_ms']:.3f} ms  p99 {echo['p99_ms']:.3f} ms  (same sizes)",
        f"  ratio: p50 {_ratio(ref['median_ms'], echo['median_ms'])}, "
        f"p99 {_ratio(ref['p99_ms'], echo['p99_ms'])}  (goal <= {GOAL_ECHO_RATIO}x)",
        f"  a match of these bots (pseudo-random moves) lasts {_whole(rt['decisions_per_match'])} decisions "
        f"on average ({rt['matches_finished']} finished here)",
    ]
    work = report["game_work"]
    lines.append(
        f"the referee's own work per decision, no transport (engine, observation and request bytes, "
        f"step records; one match at a time, {work['decisions']} decisions of {work['matches_made']} "
        f"matches, in this process): {_whole(work['us_per_decision'])} us CPU (goal for the whole "
        f"referee <= {GOAL_CPU_US:.0f}); at each capacity level below, with that many matches in flight"
    )
    best_by_processes: dict[int, int] = {}
    for cap in report["capacity"]:
        n = cap["processes"]
        best = cap["max_matches_p99_within_5ms"]
        best_by_processes[n] = best
        lines.append(
            f"capacity, {n} referee process(es), 2-seat Clank! matches of {think_ms:.0f} ms bots "
            "(beside each: the bare echo, N pairs of streams, 2N connections, at the referee's rate):"
        )
        for row in cap["levels"]:
            e = row["echo"]
            each = row["decisions_per_match"]
            lines.append(
                f"  {row['matches']:4d} matches: added p99 {row['p99_ms']:.2f} ms "
                f"(p50 {row['median_ms']:.2f}); "
                f"{row['decisions_per_s']:.0f} decisions/s; matches made/ended in the window "
                f"{row['matches_created_in_window']}/{row['matches_finished_in_window']}"
                + (f" ({each:.0f} decisions per finished match)" if each else "")
                + f"; failures {row['failures'] or 'none'}; "
                f"referee {row['referee_cores']} cores, bots ({row['bot_processes']} processes) "
                f"{row['bot_cores']}, other processes {row['other_cores']}; "
                f"machine idle {row['machine_idle']:.0%}"
            )
            lines.append(
                f"        bare echo: added p99 {e['p99_ms']:.2f} ms (p50 {e['median_ms']:.2f}); "
                f"{e['messages_per_s']:.0f} messages/s over {e['connections']} connections; "
                f"{_whole(e['cpu_us_per_message'])} us CPU/message ({e['cores']} cores); "
                f"{e['kib_per_pair']} KiB/pair; failures {e['failures'] or 'none'}"
            )
        lines.append(
            f"  largest count with <= {ADDED_P99_MS:.0f} ms added at p99: {best} "
            f"= {best / n:.0f} per process (goal >= {GOAL_MATCHES_PER_CORE} per core: "
            f"{best / n / GOAL_MATCHES_PER_CORE:.2f}x of it)"
        )
        fitting = [r for r in cap["levels"] if r["matches"] <= max(best, cap["levels"][0]["matches"])]
        row = fitting[-1] if fitting else cap["levels"][-1]
        cpu = row["referee_cpu_us_per_decision"] or 0.0
        e = row["echo"]
        echo_pair = 2 * rt["echo_kib_per_stream"]
        # the echo is paced to the first process count's level of this size: another count's
        # referee may have made another rate
        same_rate = e["messages_per_s"] and abs(row["decisions_per_s"] / e["messages_per_s"] - 1) <= 0.1
        lines.append(
            f"  at {row['matches']} matches: referee CPU per decision = {cpu:.0f} us = "
            f"{_times(row['cpu_vs_echo'])} the bare echo's {_whole(e['cpu_us_per_message'])} us per message "
            + ("at the same rate" if same_rate else "at another rate (paced to the first process count's)")
            + f" ({row['decisions_per_s']:.0f} decisions/s vs {e['messages_per_s']:.0f} "
            f"messages/s, {2 * row['matches']} vs {e['connections']} connections); "
            f"goal <= {GOAL_CPU_US:.0f}: {cpu / GOAL_CPU_US:.2f}x of it"
        )
        if row.get("rest_us_per_decision") is not None:
            lines.append(
                f"    of it: the bare echo's transport {_whole(e['cpu_us_per_message'])} us + the referee's "
                f"own work {row['game_work_us_per_decision']:.0f} us (no transport, {row['matches']} "
                "matches in flight) + "
                f"the rest {row['rest_us_per_decision']:.0f} us "
                "(hand-offs between gRPC's threads and the event loop, asyncio's turns, the seats' reading)"
            )
        lines.append(
            f"  at {row['matches']} matches: referee memory per match = {row['kib_per_match']:.0f} KiB = "
            f"{_times(row['kib_vs_echo_pair'])} two bare echo streams' {echo_pair:.0f} KiB (one connection "
            f"each), {_times(row['kib_vs_echo_level'])} the echo's growth under this level's load "
            f"({e['kib_per_pair']} KiB/pair); "
            f"goal <= {GOAL_KIB_PER_MATCH:.0f}: {row['kib_per_match'] / GOAL_KIB_PER_MATCH:.2f}x of it"
        )
        if cap["kib_per_added_match"] is not None:
            low, high = cap["slope_levels"]
            slope = cap["kib_per_added_match"]
            lines.append(
                f"  memory per added match, {low} -> {high} matches (each level a new referee): "
                f"{slope:.0f} KiB (the bare echo: {cap['echo_kib_per_added_pair']:.0f} KiB per added "
                f"pair); goal <= {GOAL_KIB_PER_MATCH:.0f}: {slope / GOAL_KIB_PER_MATCH:.2f}x of it"
            )
        made, ended = row["matches_created_in_window"], row["matches_finished_in_window"]
        in_window = (
            f"in this window {made} matches were made and {ended} ended, one such event per "
            f"{row['window_decisions'] / (made + ended):.0f} decisions"
            if made + ended
            else "no match was made or ended in this window: its CPU per decision holds none of it"
        )
        lines.append(
            f"  at {row['matches']} matches: {_whole(row['decisions_per_match'])} decisions per finished "
            f"match ({row['matches_finished']} finished; {_whole(rt['decisions_per_match'])} in the round "
            "trip): a match's set-up and end (CreateMatch, two new connections, GameStart; GameEnd, "
            f"the replay's compression) are spread over that many decisions (the echo has none); {in_window}"
        )
        rate = row["decisions_per_s"] / row["matches"] if row["matches"] else 0.0
        if cpu and rate:
            ceiling = 1e6 / cpu / rate
            lines.append(
                f"  CPU-bound ceiling: one core at {cpu:.0f} us/decision holds {ceiling:.0f} such matches "
                f"({rate:.1f} decisions/s each; {ceiling / GOAL_MATCHES_PER_CORE:.2f}x the goal)"
            )
        if row["machine_idle"] < 0.05:
            lines.append(
                "  (the machine had no idle time left: the referee shares its cores with the bots' "
                "processes and any other load, so this count is bounded by the host, not by the referee)"
            )
    if 1 in best_by_processes and len(best_by_processes) > 1:
        for n, best in sorted(best_by_processes.items()):
            if n > 1:
                lines.append(
                    f"processes: {n} vs 1 -> {best} vs {best_by_processes[1]} matches within "
                    f"{ADDED_P99_MS:.0f} ms ({_ratio(best, best_by_processes[1])}; goal: scales with "
                    f"cores, {n}x with {n} free cores; this machine has {report['cpus']} for the "
                    "referee and the bots together)"
                )
    failures = sum(sum(r["failures"].values()) for cap in report["capacity"] for r in cap["levels"])
    if failures:
        lines.append(f"FAILURES: {failures} matches failed (see each level's failures by status code)")
    echo_failures = sum(
        sum(r["echo"]["failures"].values()) for cap in report["capacity"] for r in cap["levels"]
    )
    if echo_failures:
        lines.append(
            f"FAILURES: {echo_failures} bare echo pairs failed (the reference is off; see each level)"
        )
    return lines


def _whole(value: float | None) -> str:
    return f"{value:.0f}" if value else "n/a"


def _times(value: float | None) -> str:
    return f"{value:.2f}x" if value else "n/a x"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="benchmark the gRPC referee")
    parser.add_argument("--quick", action="store_true", help="short runs, two small levels (for tests)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--levels", help="concurrent matches to try, comma-separated (default 25,50,100,200,300,400)"
    )
    parser.add_argument("--processes", default="1,2", help="referee process counts to compare (default 1,2)")
    parser.add_argument(
        "--max-matches", type=int, default=1024, help="the referees' --max-matches (default 1024)"
    )
    parser.add_argument("--echo-server", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--client", metavar="ADDRESSES", help=argparse.SUPPRESS)
    parser.add_argument("--echo-client", metavar="ADDRESS", help=argparse.SUPPRESS)
    parser.add_argument("--request-bytes", type=int, default=64, help=argparse.SUPPRESS)
    parser.add_argument("--interval-ms", type=float, default=THINK_S * 1000, help=argparse.SUPPRESS)
    parser.add_argument("--matches", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--first-seed", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.echo_server:
        asyncio.run(_echo_server(0))
        return 0
    if args.client:
        asyncio.run(_client_main(args.client.split(","), args.matches, args.first_seed, THINK_S))
        return 0
    if args.echo_client:
        interval_s = args.interval_ms / 1000
        asyncio.run(_echo_client_main(args.echo_client, args.matches, args.request_bytes, interval_s))
        return 0
    default_levels = "10,25" if args.quick else "25,50,100,200,300,400"
    try:
        levels = [int(v) for v in (args.levels or default_levels).split(",")]
        processes = [int(v) for v in args.processes.split(",")]
    except ValueError:
        parser.error("--levels and --processes take whole numbers, comma-separated")
    _MAX_MATCHES[0] = args.max_matches
    try:
        report = run(args.quick, levels, processes)
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print("\n".join(render(report)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
