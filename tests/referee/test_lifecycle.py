"""The session lifecycle (PROTOCOL.md, "A session"): keepalive, notices and their decision ids,
and what the SDKs do after a rejected answer.

Real parts: a referee on a real port, bots as real processes (the Python SDK and the JavaScript
kit), raw streams with the generated messages where a test must see every message.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import queue
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from arena_bot import wire
from arena_bot._proto.arena.v1 import admin_pb2, bot_pb2, common_pb2
from arena_bot.wire import bearer, channel_options, play_call

from referee.replay import load, verify
from referee.server.config import ServerLimits, TimeControl
from referee.server.lobby import RemoteIdentity

from .conftest import (
    BOTS,
    RANDOM_BOT,
    REPO,
    TIMEOUT_CLOCK,
    ThreadedReferee,
    play,
    python_bot,
    start_bot,
)

JS_KIT = REPO / "bots" / "javascript" / "arena_bot.js"
#: how long the lobby test stays idle: past the ~2.5 minutes after which a lobby bot used to be
#: cut off (GOAWAY ENHANCE_YOUR_CALM "too_many_pings": a server option gRPC did not know)
IDLE_S = 170.0
PINGS_WITHOUT_DATA = "grpc.http2.max_pings_without_data"


def _node() -> str:
    # no skip: Node.js is required to test the JavaScript kit (README: requirements)
    node = shutil.which("node")
    assert node is not None, "Node.js (`node`) is not on PATH: it is required to test the JavaScript kit"
    return node


def _js_channel_options() -> dict[str, Any]:
    out = subprocess.run(
        [_node(), "-e", f"console.log(JSON.stringify(require({str(JS_KIT)!r}).CHANNEL_OPTIONS))"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    options: dict[str, Any] = json.loads(out.stdout)
    return options


# --- keepalive ------------------------------------------------------------------------------------


def test_the_referee_sets_its_keepalive_policy_under_the_names_grpc_knows() -> None:
    limits = ServerLimits()
    options = dict(limits.grpc_options())
    # gRPC core ignores a channel argument it does not know: the policy must use its names
    assert options["grpc.http2.min_ping_interval_without_data_ms"] == limits.min_client_ping_interval_ms
    assert options["grpc.http2.max_ping_strikes"] == limits.max_ping_strikes
    assert options["grpc.keepalive_time_ms"] == limits.keepalive_time_ms
    assert options["grpc.keepalive_timeout_ms"] == limits.keepalive_timeout_ms
    assert options["grpc.keepalive_permit_without_calls"] == 1
    assert options["grpc.http2.max_pings_without_data"] == 0  # it keeps pinging an idle lobby
    cygrpc = importlib.import_module("grpc._cython.cygrpc")  # the gRPC core the referee runs on
    core = Path(str(cygrpc.__file__)).read_bytes()
    for name in options:
        if name.startswith(("grpc.http2.", "grpc.keepalive")):
            assert name.encode() + b"\0" in core, f"{name} is not a channel argument of gRPC core"


def test_both_sdks_keepalive_defaults_respect_the_referee_policy() -> None:
    policy = ServerLimits()
    python = dict(channel_options())
    js = _js_channel_options()
    for sdk, options in (("python", python), ("javascript", js)):
        ping = options["grpc.keepalive_time_ms"]
        assert ping >= policy.min_client_ping_interval_ms, f"{sdk} pings more often than allowed"
        # a ping every `ping` ms while the stream is open: never a strike, so never too_many_pings
        assert ping < policy.keepalive_time_ms + policy.keepalive_timeout_ms
        assert 0 < options["grpc.keepalive_timeout_ms"] < ping
        assert options["grpc.keepalive_permit_without_calls"] == 0
    assert python["grpc.keepalive_time_ms"] == wire.KEEPALIVE_TIME_MS == js["grpc.keepalive_time_ms"]
    assert python["grpc.keepalive_timeout_ms"] == wire.KEEPALIVE_TIMEOUT_MS == js["grpc.keepalive_timeout_ms"]
    # the Python SDK keeps pinging a stream with no data (gRPC core's default stops, then
    # throttles); grpc-js pings whenever a call is open
    assert python["grpc.http2.max_pings_without_data"] == 0


class _PingCounter:
    """A TCP relay between one client and the referee that counts the client's HTTP/2 PING
    frames (plaintext HTTP/2: a 24-byte preface, then frames of a 9-byte header: 3 bytes of
    length, the type (6: PING), the flags (1: ACK), the stream id)."""

    PREFACE = 24
    PING, ACK = 6, 1

    def __init__(self, upstream: str) -> None:
        host, port = upstream.rsplit(":", 1)
        self.upstream = (host, int(port))
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self.listener.getsockname()[1]}"
        self.pings = 0
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                client, _ = self.listener.accept()
                server = socket.create_connection(self.upstream)
                threading.Thread(target=self._pump, args=(server, client, False), daemon=True).start()
                threading.Thread(target=self._pump, args=(client, server, True), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, count: bool) -> None:
        pending = b""
        skip = self.PREFACE if count else 0
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
                if not count:
                    continue
                pending += data
                while True:
                    if skip:
                        taken = min(skip, len(pending))
                        pending, skip = pending[taken:], skip - taken
                        if skip:
                            break
                    if len(pending) < 9:
                        break
                    length = int.from_bytes(pending[:3], "big")
                    if pending[3] == self.PING and not pending[4] & self.ACK:
                        with self.lock:
                            self.pings += 1
                    skip = 9 + length
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)

    def close(self) -> None:
        self.listener.close()


class _LobbyStream:
    """A bot-token stream held open with nothing to say (a remote bot waiting in the lobby)."""

    def __init__(self, address: str, token: str, options: list[tuple[str, Any]]) -> None:
        self.channel = grpc.insecure_channel(address, options=options)
        self.outbox: queue.Queue[bot_pb2.BotMessage | None] = queue.Queue()
        self.outbox.put(bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name="idle", protocol=1)))
        self.call = play_call(self.channel)(self._requests(), metadata=bearer(token))
        self.ended: grpc.RpcError | None = None
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _requests(self) -> Iterator[bot_pb2.BotMessage]:
        while (message := self.outbox.get()) is not None:
            yield message

    def _read(self) -> None:
        try:
            for _ in self.call:
                pass
        except grpc.RpcError as exc:
            self.ended = exc

    def close(self) -> None:
        self.outbox.put(None)
        self.call.cancel()
        self.channel.close()
        self.reader.join(10)


def _lobby_referee(limits: ServerLimits | None = None) -> tuple[ThreadedReferee, str]:
    token = "bot_" + "k" * 24
    ref = ThreadedReferee(
        limits=limits, authenticator=lambda t: RemoteIdentity(7, "idle") if t == token else None
    )
    return ref, token


def _connection(ref: ThreadedReferee, bot_id: int = 7) -> str:
    listing = ref.admin("ListBots", admin_pb2.ListBotsRequest(bot_id=bot_id), admin_pb2.ListBotsResponse)
    return str(listing.bots[0].connection_id) if listing.bots else ""


def _wait_for(check: Any, what: str, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := check():
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_client_pinging_as_often_as_the_policy_allows_stays_connected_in_the_lobby() -> None:
    """The policy scaled down (a ping every second allowed, one every 1.5 s sent) so that a
    few seconds stand for minutes: the referee must apply its own minimum interval, not gRPC's
    default of 5 minutes (the unknown option name did exactly that: cut off after 7.5 s here)."""
    ref, token = _lobby_referee(ServerLimits(min_client_ping_interval_ms=1_000))
    fast = [o for o in channel_options() if o[0] not in ("grpc.keepalive_time_ms", PINGS_WITHOUT_DATA)]
    # every ping sent, however long the stream carries no data (the SDK's setting, stated here
    # so the test does not depend on it)
    options = [*fast, ("grpc.keepalive_time_ms", 1_500), (PINGS_WITHOUT_DATA, 0)]
    stream = _LobbyStream(ref.address, token, options)
    try:
        first = _wait_for(lambda: _connection(ref), "the bot in the lobby")
        stream.reader.join(12)  # eight pings: more than the strikes gRPC's default would allow
        assert stream.ended is None, f"the lobby stream ended: {stream.ended}"
        assert _connection(ref) == first
    finally:
        stream.close()
        ref.close()


def test_a_client_pinging_faster_than_the_policy_is_cut_off() -> None:
    """The other side of the policy: pings sooner than the minimum interval are strikes, and
    one more than `max_ping_strikes` closes the connection (too_many_pings)."""
    ref, token = _lobby_referee(ServerLimits(min_client_ping_interval_ms=5_000, max_ping_strikes=1))
    fast = [o for o in channel_options() if o[0] != "grpc.keepalive_time_ms"]
    stream = _LobbyStream(ref.address, token, [*fast, ("grpc.keepalive_time_ms", 500)])
    try:
        stream.reader.join(30)
        assert stream.ended is not None, "a client pinging every 0.5 s was never cut off"
        assert stream.ended.code() == grpc.StatusCode.UNAVAILABLE
        assert "ping" in (stream.ended.details() or "").lower()
    finally:
        stream.close()
        ref.close()


@pytest.mark.slow
@pytest.mark.idle
def test_a_remote_bot_idle_in_the_lobby_stays_connected_past_three_minutes(tmp_path: Path) -> None:
    """The real defaults on both sides: the SDK's example bot with its bot token waits in the
    lobby for IDLE_S seconds on one connection, pinging all along (through a relay that counts
    its pings), then plays the match it is seated in."""
    ref, token = _lobby_referee()
    relay = _PingCounter(ref.address)
    command = f"{RANDOM_BOT} --referee {relay.address} --bot-token {token} --games 1"
    bot = start_bot(ref, command, "", tmp_path / "idle.log")
    try:
        first = _wait_for(lambda: _connection(ref), "the bot in the lobby")
        deadline = time.monotonic() + IDLE_S
        while time.monotonic() < deadline:
            time.sleep(5)
            now = _connection(ref)
            assert now == first, f"the bot's connection changed ({first} -> {now!r}):\n{bot.log()}"
        assert "disconnected" not in bot.log(), bot.log()
        # a ping every 30 s: a dead connection is found while idle (gRPC's default stops after
        # two pings without data)
        assert relay.pings >= IDLE_S * 1000 // wire.KEEPALIVE_TIME_MS - 1, relay.pings
        created = ref.admin(
            "CreateMatch",
            admin_pb2.CreateMatchRequest(
                game="clank",
                seats=[admin_pb2.SeatSpec(name="idle", bot_id=7), admin_pb2.SeatSpec(name="random")],
                seed=3,
                time_control=TimeControl(decision_ms=2000, bank_ms=10_000, connect_ms=30_000).to_proto(),
            ),
            admin_pb2.CreateMatchResponse,
        )
        other = start_bot(ref, RANDOM_BOT, created.seat_tokens[1], tmp_path / "other.log")
        ref.wait_until_over(created.match_id)
        status = ref.admin(
            "GetMatch", admin_pb2.GetMatchRequest(match_id=created.match_id), admin_pb2.MatchStatus
        )
        assert status.ended_by == "game_over"
        assert not status.seats[0].forfeited and status.seats[0].strikes == 0
        assert bot.stop() == 0 and other.stop() == 0, bot.log()
    finally:
        bot.stop(0)
        relay.close()
        ref.close()


# --- notices and decision ids -----------------------------------------------------------------------


def test_a_forfeit_notice_names_no_decision_and_a_rejection_names_decision_zero() -> None:
    """Decision ids start at 0; a notice about no decision (FORFEIT, a message that is not an
    answer) leaves `decision_id` unset, so a bot can tell it from one about decision 0."""
    ref = ThreadedReferee()
    try:
        created = ref.admin(
            "CreateMatch",
            admin_pb2.CreateMatchRequest(
                game="clank",
                seats=[admin_pb2.SeatSpec(name="raw"), admin_pb2.SeatSpec(name="random")],
                seed=1,
                time_control=common_pb2.TimeControl(
                    decision_ms=5000, bank_ms=0, max_strikes=2, connect_ms=30_000
                ),
            ),
            admin_pb2.CreateMatchResponse,
        )
        other = start_bot(ref, RANDOM_BOT, created.seat_tokens[1], Path("/dev/null"))
        outbox: queue.Queue[bot_pb2.BotMessage | None] = queue.Queue()
        outbox.put(bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name="raw", protocol=1)))

        def requests() -> Iterator[bot_pb2.BotMessage]:
            while (message := outbox.get()) is not None:
                yield message

        seen: list[bot_pb2.RefereeMessage] = []
        with grpc.insecure_channel(ref.address) as channel:
            call = play_call(channel)(requests(), metadata=bearer(created.seat_tokens[0]), timeout=60)
            with pytest.raises(grpc.RpcError) as ended:
                for msg in call:
                    seen.append(msg)
                    if msg.HasField("game_start"):
                        outbox.put(bot_pb2.BotMessage())  # not an answer: REJECTED, no strike
                    elif msg.HasField("decision"):  # out of range twice: 2 strikes of 2
                        bad = bot_pb2.Answer(
                            decision_id=msg.decision.decision_id, index=len(msg.decision.legal_actions)
                        )
                        outbox.put(bot_pb2.BotMessage(answer=bad))
                        outbox.put(bot_pb2.BotMessage(answer=bad))
            outbox.put(None)
        assert ended.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        other.stop()
    finally:
        ref.close()
    kinds = [m.WhichOneof("message") for m in seen]
    assert kinds[0] == "game_start" and kinds[-1] == "game_end" and seen[-1].game_end.forfeited
    decisions = [m.decision for m in seen if m.HasField("decision")]
    assert decisions[0].decision_id == 0  # seat 0 decides first: the match's first decision
    assert all(d.legal_actions for d in decisions)
    notices = [(bot_pb2.Notice.Kind.Name(m.notice.kind), m.notice) for m in seen if m.HasField("notice")]
    assert [k for k, _ in notices] == ["REJECTED", "REJECTED", "REJECTED", "FORFEIT"]
    bad_message, first, second, forfeit = (n for _, n in notices)
    assert not bad_message.HasField("decision_id") and bad_message.code == "INVALID_ARGUMENT"
    for rejected in (first, second):
        assert rejected.HasField("decision_id") and rejected.decision_id == 0
        assert rejected.code == "INVALID_ARGUMENT"
    assert not forfeit.HasField("decision_id") and forfeit.code == "RESOURCE_EXHAUSTED"


# --- the SDKs after a rejected answer ---------------------------------------------------------------


@pytest.mark.parametrize("kit", ["python", "javascript"])
def test_the_sdk_asks_act_again_at_once_after_a_rejected_answer(kit: str, tmp_path: Path) -> None:
    """The bot's first answer is out of range: one strike, and the SDK asks `act` again for the
    same decision, which is answered in time (without the re-ask it waited out the allowance
    and the bank: a timeout, a second strike)."""
    command = (
        python_bot(BOTS / "reask_bot.py") if kit == "python" else f"{_node()} {BOTS / 'reask_bot.js'}"
    )
    played = play([command, RANDOM_BOT], tmp_path, seed=4, clock=TIMEOUT_CLOCK)
    verify(played.replay)
    seat = played.replay["seats"][0]
    assert played.replay["ended_by"] == "game_over"
    assert [i["kind"] for i in seat["incidents"]] == ["index_out_of_range"], seat
    assert seat["strikes"] == 1 and "forfeit" not in seat
    asked = [line.split() for line in played.log(0).splitlines() if line.startswith("asked ")]
    assert asked[0][1:] == [asked[0][1], "1"] and asked[1][1:] == [asked[0][1], "2"], asked
    first = next(s for s in played.replay["steps"] if s.get("seat") == 0)
    assert not first.get("reason"), first  # answered by the bot, not played for it on a timeout
    assert played.launched.bots[0].exit_code == 0


# --- the clock ----------------------------------------------------------------------------------------


def test_arena_match_bank_ms_zero_plays_with_no_bank(tmp_path: Path) -> None:
    """`--bank-ms 0` is no bank all the way through (flag, CreateMatch, the session's clock, the
    replay), not the 30 s default; tests/referee/test_cpu_clock.py checks the parsing and the
    wire's optional field."""
    replay = tmp_path / "m.json"
    subprocess.run(
        [
            sys.executable, "-m", "referee.cli", "match", "clank", "--bot", RANDOM_BOT, "--bot", RANDOM_BOT,
            "--bank-ms", "0", "--decision-ms", "5000", "--replay", str(replay),
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    doc = load(replay)
    verify(doc)
    assert doc["time_control"]["bank_ms"] == 0 and doc["time_control"]["decision_ms"] == 5000
