"""Failed authentications are limited per peer address: an attacker guessing admin, seat and bot
tokens at a real `arena serve referee` process is cut off after 20 failures a minute, while a
credential that verifies from the same address is still accepted and another address is
unaffected."""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import grpc
import pytest
from arena_bot._proto.arena.v1 import admin_pb2, bot_pb2
from arena_bot.wire import ADMIN_SERVICE, bearer, channel_options, play_call

from ladder.db import upgrade
from referee.server.auth import (
    FAILED_AUTH_LIMIT,
    CredentialError,
    FailedAuthLimiter,
    peer_address,
    read_admin_token,
)

from .test_security import serve_referee

pytestmark = pytest.mark.integration


def _attempt(address: str, kind: str, token: str) -> tuple[grpc.StatusCode, str]:
    """One authentication attempt of `kind` (admin, seat, bot) with `token`: status and details."""
    with grpc.insecure_channel(address, options=channel_options()) as ch:
        try:
            if kind == "admin":
                ch.unary_unary(
                    f"/{ADMIN_SERVICE}/ListBots",
                    request_serializer=admin_pb2.ListBotsRequest.SerializeToString,
                    response_deserializer=admin_pb2.ListBotsResponse.FromString,
                )(admin_pb2.ListBotsRequest(), metadata=bearer(token), timeout=10)
            else:
                hello = bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name="guesser", protocol=1))
                list(play_call(ch)(iter([hello]), metadata=bearer(token), timeout=10))
        except grpc.RpcError as exc:
            return exc.code(), str(exc.details())
    return grpc.StatusCode.OK, ""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _code(address: str, kind: str, token: str) -> grpc.StatusCode:
    return _attempt(address, kind, token)[0]


def test_a_token_guesser_is_cut_off_after_20_failures(tmp_path: Path) -> None:
    from ladder.bots import register_bot
    from ladder.db import create_engine

    db_url = f"sqlite:///{tmp_path / 'ladder.db'}"
    upgrade(db_url)  # bot tokens are checked against it
    engine = create_engine(db_url)
    bot_token = register_bot(engine, "real-bot", "alice").token
    engine.dispose()
    token = secrets.token_urlsafe(24)
    metrics_port = _free_port()
    ref = serve_referee(
        tmp_path / "ref", "--host", "localhost", "--db", db_url, "--metrics-port", str(metrics_port),
        env={"ARENA_ADMIN_TOKEN": token},
    )
    port = ref.address.rsplit(":", 1)[1]
    attacker, other = f"127.0.0.1:{port}", f"[::1]:{port}"
    try:
        assert _code(attacker, "admin", token) is grpc.StatusCode.OK
        kinds = ["admin", "seat", "bot"]
        failures = 0
        codes: list[grpc.StatusCode] = []
        details = ""
        while len(codes) < 40:
            kind = kinds[len(codes) % 3]
            guess = ("arena_" if kind == "bot" else "") + secrets.token_urlsafe(16)
            code, details = _attempt(attacker, kind, guess)
            codes.append(code)
            if code is grpc.StatusCode.UNAUTHENTICATED:
                failures += 1
            else:
                break
        assert failures == FAILED_AUTH_LIMIT == 20, codes
        assert codes[-1] is grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "too many failed authentications from your address (20 in 60 s)" in details
        # credentials that verify are accepted from that address whatever its count (the
        # referee refused them too: someone else's guesses locked the operator and bots out):
        # the admin token, a live seat token, a bot token (told why the ladder cannot seat it)
        assert _code(attacker, "admin", token) is grpc.StatusCode.OK
        made = _create(attacker, token)
        hello = bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name="seated", protocol=1))
        with grpc.insecure_channel(attacker, options=channel_options()) as ch:
            call = play_call(ch)(iter([hello]), metadata=bearer(made.seat_tokens[0]), timeout=30)
            assert next(iter(call)).WhichOneof("message") == "game_start"
            call.cancel()
        code, details = _attempt(attacker, "bot", bot_token)
        assert code is grpc.StatusCode.FAILED_PRECONDITION, details
        # while guesses stay slowed and are told nothing: an unknown seat token, bot token
        guesses = (("seat", secrets.token_urlsafe(16)), ("bot", "arena_" + secrets.token_urlsafe(16)))
        for kind, guess in guesses:
            assert _code(attacker, kind, guess) is grpc.StatusCode.RESOURCE_EXHAUSTED, kind
        # another address is not affected, and has its own count
        assert _code(other, "admin", token) is grpc.StatusCode.OK
        assert _code(other, "admin", "wrong-" + token) is grpc.StatusCode.UNAUTHENTICATED
        assert _code(other, "admin", token) is grpc.StatusCode.OK
        # and the operator sees it: failures by kind, refusals
        with urllib.request.urlopen(f"http://localhost:{metrics_port}/metrics", timeout=10) as page:
            text = page.read().decode()
        counts = {
            line.split(" ")[0]: float(line.split(" ")[1])
            for line in text.splitlines()
            if line.startswith(("arena_referee_auth_failures_total", "arena_referee_auth_refused_total"))
        }
        # (with --db an unknown seat token may be a bot token: both count as "token")
        assert counts['arena_referee_auth_failures_total{kind="admin"}'] == 7 + 1  # 7 guesses + ::1
        assert counts['arena_referee_auth_failures_total{kind="token"}'] == 13
        assert counts["arena_referee_auth_refused_total"] == 3
    finally:
        ref.stop()
    assert "failed authentication from 127.0.0.1" in ref.log.read_text()


def test_the_limit_is_a_sliding_window_per_address() -> None:
    now = [1000.0]
    limiter = FailedAuthLimiter(3, 60.0, max_peers=2, clock=lambda: now[0])
    for _ in range(3):
        assert limiter.retry_after("a") is None
        limiter.failed("a")
        now[0] += 10
    wait = limiter.retry_after("a")
    assert wait is not None and wait == pytest.approx(30.0)  # the first failure leaves at 1060
    assert limiter.retry_after("b") is None
    now[0] = 1060.0
    assert limiter.retry_after("a") is None  # one failure slid out of the window
    limiter.failed("a")
    assert limiter.retry_after("a") is not None
    # memory is bounded: a third address pushes out the least recently failing one
    limiter.failed("b")
    limiter.failed("c")
    assert set(limiter._failures) == {"b", "c"}


@pytest.mark.parametrize(
    ("peer", "address"),
    [
        ("ipv4:127.0.0.1:5555", "127.0.0.1"),
        ("ipv6:[::1]:5555", "::1"),
        ("ipv6:[fe80::1%eth0]:80", "fe80::1"),
        ("unix:/tmp/referee.sock", "unix:/tmp/referee.sock"),
        ("", "unknown"),
    ],
)
def test_peer_addresses_drop_the_port(peer: str, address: str) -> None:
    assert peer_address(peer) == address


def test_admin_token_sources(tmp_path: Path) -> None:
    good = secrets.token_urlsafe(24)
    path = tmp_path / "token"
    path.write_text(f"  {good}  \nsecond line ignored\n")
    assert read_admin_token(str(path), {}) == good
    assert read_admin_token(None, {"ARENA_ADMIN_TOKEN": good}) == good
    assert read_admin_token(str(path), {"ARENA_ADMIN_TOKEN": "other" * 5}) == good  # the file wins
    assert read_admin_token(None, {}) is None
    path.write_text("\n")
    with pytest.raises(CredentialError, match="0 characters"):
        read_admin_token(str(path), {})
    with pytest.raises(CredentialError, match="at least 16"):
        read_admin_token(None, {"ARENA_ADMIN_TOKEN": "short"})


def test_exempt_networks_are_never_limited(tmp_path: Path) -> None:
    """`--auth-limit-exempt 127.0.0.0/8`: 127.0.0.1 fails as often as it likes (still refused
    each time), while ::1 is cut off after 20."""
    token = secrets.token_urlsafe(24)
    ref = serve_referee(
        tmp_path / "ref", "--host", "localhost", "--auth-limit-exempt", "127.0.0.0/8",
        env={"ARENA_ADMIN_TOKEN": token},
    )
    port = ref.address.rsplit(":", 1)[1]
    try:
        denied = grpc.StatusCode.UNAUTHENTICATED
        for _ in range(FAILED_AUTH_LIMIT + 5):
            assert _code(f"127.0.0.1:{port}", "seat", secrets.token_urlsafe(16)) is denied
        assert _code(f"127.0.0.1:{port}", "admin", token) is grpc.StatusCode.OK
        codes = [
            _code(f"[::1]:{port}", "seat", secrets.token_urlsafe(16)) for _ in range(FAILED_AUTH_LIMIT + 1)
        ]
        assert codes[-1] is grpc.StatusCode.RESOURCE_EXHAUSTED
        assert set(codes[:-1]) == {grpc.StatusCode.UNAUTHENTICATED}
    finally:
        ref.stop()
    bad = subprocess.run(
        [sys.executable, "-m", "referee.cli", "serve", "referee", "--port", "0",
         "--auth-limit-exempt", "nonsense"],
        capture_output=True, text=True, timeout=60, env={**os.environ, "ARENA_ADMIN_TOKEN": token},
    )
    assert bad.returncode == 2 and "--auth-limit-exempt" in bad.stderr


def test_unix_socket_clients_are_exempt_so_a_bot_cannot_lock_its_opponents_out(tmp_path: Path) -> None:
    """A match's own referee on a Unix socket (how sandboxed bots reach it): a hostile bot that
    burns through bad tokens does not get the socket's other clients refused."""
    import asyncio
    import threading

    from referee.server.server import start

    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    socket_path = tmp_path / "referee.sock"
    token = secrets.token_urlsafe(24)
    running = asyncio.run_coroutine_threadsafe(
        start(admin_token=token, unix_socket=str(socket_path)), loop
    ).result(30)
    try:
        made = _create(f"unix:{socket_path}", token)
        for _ in range(FAILED_AUTH_LIMIT * 2):  # the hostile bot
            guess = secrets.token_urlsafe(16)
            assert _code(f"unix:{socket_path}", "seat", guess) is grpc.StatusCode.UNAUTHENTICATED
        # its opponent still gets in with its seat token
        hello = bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name="opponent", protocol=1))
        with grpc.insecure_channel(f"unix:{socket_path}", options=channel_options()) as ch:
            call = play_call(ch)(iter([hello]), metadata=bearer(made.seat_tokens[1]), timeout=30)
            first = next(iter(call))
            assert first.WhichOneof("message") == "game_start"
            call.cancel()
        # over TCP the same failures would have been limited
        limiter = FailedAuthLimiter()
        for _ in range(FAILED_AUTH_LIMIT):
            limiter.failed("127.0.0.1")
            limiter.failed("unix:")
        assert limiter.retry_after("127.0.0.1") is not None and limiter.retry_after("unix:") is None
    finally:
        asyncio.run_coroutine_threadsafe(running.stop(grace=0.1), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


def _create(address: str, token: str) -> admin_pb2.CreateMatchResponse:
    with grpc.insecure_channel(address, options=channel_options()) as ch:
        made: admin_pb2.CreateMatchResponse = ch.unary_unary(
            f"/{ADMIN_SERVICE}/CreateMatch",
            request_serializer=admin_pb2.CreateMatchRequest.SerializeToString,
            response_deserializer=admin_pb2.CreateMatchResponse.FromString,
        )(
            admin_pb2.CreateMatchRequest(
                game="clank", seats=[admin_pb2.SeatSpec(name="hostile"), admin_pb2.SeatSpec(name="opponent")]
            ),
            metadata=bearer(token),
            timeout=10,
        )
    return made


def test_exemptions_parse_networks_and_unix() -> None:
    limiter = FailedAuthLimiter(1, 60.0, exempt=["10.0.0.0/8", "fd00::/8"])
    assert limiter.exempted("10.1.2.3") and limiter.exempted("fd00::2")
    assert not limiter.exempted("192.0.2.2") and not limiter.exempted("unix:/x")
    limiter.failed("10.1.2.3")
    assert limiter.retry_after("10.1.2.3") is None
    with pytest.raises(ValueError):
        FailedAuthLimiter(exempt=["not-a-network"])


# --- connections that sit idle, and streams per address ---------------------------------------------


def test_idle_connections_are_dropped(tmp_path: Path) -> None:
    """300 raw TCP connections that never say a word and 50 that send the HTTP/2 preface and
    nothing more: every one is closed by the referee (0 of 300 were, before), raw ones after the
    handshake timeout, the others after the idle timeout (1 s and 2 s here)."""
    import time

    from referee.server.config import ServerLimits

    from .conftest import ThreadedReferee

    ref = ThreadedReferee(limits=ServerLimits(handshake_timeout_ms=1000, max_connection_idle_ms=2000))
    host, port = ref.address.rsplit(":", 1)
    preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes.fromhex("000000040000000000")  # + SETTINGS
    sockets = []
    try:
        for i in range(350):
            sock = socket.create_connection((host, int(port)), timeout=10)
            if i >= 300:
                sock.sendall(preface)
            sock.setblocking(False)
            sockets.append(sock)
        open_ones = set(range(len(sockets)))
        deadline = time.monotonic() + 30  # a wait for the referee, not a measured time
        while open_ones and time.monotonic() < deadline:
            time.sleep(0.2)
            for i in list(open_ones):
                try:
                    while sockets[i].recv(65536):  # the server's SETTINGS, GOAWAY: read on
                        pass
                except BlockingIOError:
                    continue
                except OSError:
                    pass
                open_ones.discard(i)  # EOF or reset: closed by the referee
        assert sorted(open_ones) == []
    finally:
        for sock in sockets:
            sock.close()
        ref.close()


def test_play_streams_per_address_are_capped() -> None:
    """Two Play streams held open from 127.0.0.1 (a seat token, no hello yet) with the cap at 2:
    a third from there is RESOURCE_EXHAUSTED before its token is looked at; once they end, the
    address may open streams again."""
    import threading
    import time
    from collections.abc import Iterator

    from referee.server.config import ServerLimits

    from .conftest import ThreadedReferee

    ref = ThreadedReferee(
        limits=ServerLimits(max_streams_per_address=2),
        auth_limiter=FailedAuthLimiter(max_failures=10**6),
    )
    release = threading.Event()

    def silent() -> Iterator[bot_pb2.BotMessage]:
        release.wait(30)
        return
        yield

    def probe() -> tuple[grpc.StatusCode, str]:
        return _attempt(ref.address, "seat", secrets.token_urlsafe(16))

    try:
        made = _create(ref.address, ref.admin_token)
        channels = [grpc.insecure_channel(ref.address, options=channel_options()) for _ in range(2)]
        held = [play_call(ch)(silent(), metadata=bearer(made.seat_tokens[i]), timeout=30)
                for i, ch in enumerate(channels)]
        deadline = time.monotonic() + 20  # waits for the referee to count them; asserts nothing
        code, details = probe()
        while "too many streams" not in details and time.monotonic() < deadline:
            time.sleep(0.1)
            code, details = probe()
        assert code is grpc.StatusCode.RESOURCE_EXHAUSTED
        assert details == "too many streams from your address (2 open, the most one address may hold)"
        release.set()
        for call in held:
            call.cancel()
        deadline = time.monotonic() + 20
        while "too many streams" in details and time.monotonic() < deadline:
            time.sleep(0.1)
            code, details = probe()
        assert code is grpc.StatusCode.UNAUTHENTICATED, details  # counted no more: its token is read
        for ch in channels:
            ch.close()
    finally:
        release.set()
        ref.close()
