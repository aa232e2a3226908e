"""Nothing open by default: `arena serve referee` as a real process — its admin credential,
--insecure, TLS, the admin calls an anonymous client is refused, a remote bot that cannot be
bound into someone else's match, and remote bots told why the ladder will never seat them.

The failed-authentication limit is in test_security_limits.py (it blocks the test's address).
"""

from __future__ import annotations

import os
import queue
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
from arena_bot._proto.arena.v1 import admin_pb2, bot_pb2
from arena_bot.wire import ADMIN_SERVICE, Tls, bearer, channel, play_call
from grpc_health.v1 import health_pb2, health_pb2_grpc
from sqlalchemy import Engine

from ladder.bots import REMOTE, add_bot_version, register_bot
from ladder.db import create_engine, upgrade
from ladder.ladders import create_ladder, join_ladder
from referee.server.auth import INSECURE_HEALTH_SERVICE

from .certs import Certs, make_certs
from .conftest import CLOCK, REPO

pytestmark = pytest.mark.integration

ARENA = [sys.executable, "-m", "referee.cli"]
EXAMPLE = REPO / "bots" / "python" / "examples" / "random_bot.py"


@dataclass
class RefereeProc:
    """`arena serve referee` as a process."""

    proc: subprocess.Popen[str]
    address: str
    admin_token: str | None
    tls: Tls
    log: Path
    children: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def channel(self, tls: Tls | None = None) -> grpc.Channel:
        return channel(self.address, self.tls if tls is None else tls)

    def admin(self, method: str, request: Any, response: Any, token: str | None = "admin") -> Any:
        """A unary admin call: with the admin token (default), `token`, or none (None)."""
        given = self.admin_token if token == "admin" else token
        with self.channel() as ch:
            call = ch.unary_unary(
                f"/{ADMIN_SERVICE}/{method}",
                request_serializer=request.SerializeToString,
                response_deserializer=response.FromString,
            )
            return call(request, metadata=bearer(given) if given else None, timeout=10)

    def health(self, service: str, tls: Tls | None = None) -> int:
        with self.channel(tls) as ch:
            reply = health_pb2_grpc.HealthStub(ch).Check(  # type: ignore[attr-defined]
                health_pb2.HealthCheckRequest(service=service), timeout=5
            )
        return int(reply.status)

    def lobby(self, bot_id: int) -> admin_pb2.LobbyBot | None:
        listing = self.admin("ListBots", admin_pb2.ListBotsRequest(bot_id=bot_id), admin_pb2.ListBotsResponse)
        return listing.bots[0] if listing.bots else None

    def start_sdk(self, name: str, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        """The SDK's example bot, output to <log folder>/<name>.log."""
        with (self.log.parent / f"{name}.log").open("wb") as out:
            proc = subprocess.Popen(
                [sys.executable, str(EXAMPLE), "--referee", self.address, *args],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env={**os.environ, **(env or {})},
            )
        self.children.append(proc)
        return proc

    def sdk_log(self, name: str) -> str:
        return (self.log.parent / f"{name}.log").read_text(errors="replace")

    def stop(self) -> None:
        for child in self.children:
            if child.poll() is None:
                child.kill()
            child.wait(10)
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def serve_referee(
    folder: Path, *args: str, env: dict[str, str] | None = None, tls: Tls | None = None
) -> RefereeProc:
    """Start `arena serve referee --port 0 ARGS` and wait for its `listening on` line."""
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "referee.log"
    environ = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_ADMIN_TOKEN")}
    with log.open("wb") as err:
        proc = subprocess.Popen(
            [*ARENA, "serve", "referee", "--port", "0", *args],
            stdout=subprocess.PIPE,
            stderr=err,
            stdin=subprocess.DEVNULL,
            text=True,
            cwd=REPO,
            env={**environ, **(env or {})},
        )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.startswith("referee listening on "):
        proc.wait(10)
        raise AssertionError(f"the referee did not start: {line!r}\n{log.read_text()}")
    token = (env or {}).get("ARENA_ADMIN_TOKEN")
    return RefereeProc(proc, line.split()[-1], token, tls or Tls(), log)


def refusal(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run `arena serve referee --port 0 ARGS`, expecting it to refuse to start."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_ADMIN_TOKEN")}
    return subprocess.run(
        [*ARENA, "serve", "referee", "--port", "0", *args],
        capture_output=True, text=True, timeout=60, cwd=REPO, env={**environ, **(env or {})},
    )


def code_of(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> grpc.StatusCode:
    """The status code `fn(*args, **kwargs)` fails with."""
    with pytest.raises(grpc.RpcError) as info:
        fn(*args, **kwargs)
    return info.value.code()


def wait_for(check: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


# --- starting: no credential, no start ------------------------------------------------------


def test_serve_referee_refuses_to_start_open(tmp_path: Path) -> None:
    nothing = refusal()
    assert nothing.returncode == 2
    assert "no admin credential" in nothing.stderr and "--admin-token-file" in nothing.stderr

    # a secret on the command line (visible in `ps`) is refused, not used
    # (the `=` form: a random token may start with "-", which argparse would take for an option)
    argv = refusal(f"--admin-token={secrets.token_urlsafe(24)}")
    assert argv.returncode == 2 and "visible to every user (ps)" in argv.stderr

    weak = tmp_path / "weak"
    weak.write_text("hunter2\n")
    short = refusal("--admin-token-file", str(weak))
    assert short.returncode == 2 and "at least 16" in short.stderr

    missing = refusal("--admin-token-file", str(tmp_path / "absent"))
    assert missing.returncode == 2 and "cannot read the admin token file" in missing.stderr

    # plaintext beyond this host needs TLS (or --insecure), even with a credential
    exposed = refusal("--host", "0.0.0.0", env={"ARENA_ADMIN_TOKEN": secrets.token_urlsafe(24)})
    assert exposed.returncode == 2 and "without TLS" in exposed.stderr

    half = refusal("--tls-cert", str(weak), env={"ARENA_ADMIN_TOKEN": secrets.token_urlsafe(24)})
    assert half.returncode == 2 and "both --tls-cert and --tls-key" in half.stderr


def test_the_admin_token_comes_from_a_file_or_the_environment(tmp_path: Path) -> None:
    token = secrets.token_urlsafe(24)
    secret = tmp_path / "admin-token"
    secret.write_text(token + "\n")
    secret.chmod(0o600)
    for how, args, env in (
        ("file", ("--admin-token-file", str(secret)), {}),
        ("env", (), {"ARENA_ADMIN_TOKEN": token}),
    ):
        ref = serve_referee(tmp_path / how, *args, env=env)
        try:
            ref.admin_token = token
            made = ref.admin(
                "CreateMatch",
                admin_pb2.CreateMatchRequest(game="clank", seats=[admin_pb2.SeatSpec(name="a")] * 2),
                admin_pb2.CreateMatchResponse,
            )
            assert len(made.seat_tokens) == 2
            assert code_of(ref.health, INSECURE_HEALTH_SERVICE) is grpc.StatusCode.NOT_FOUND
            assert token not in " ".join(ref.proc.args)  # type: ignore[arg-type]
        finally:
            ref.stop()
        assert "INSECURE" not in ref.log.read_text()


def test_an_insecure_referee_says_so_in_its_log_and_health(tmp_path: Path) -> None:
    ref = serve_referee(tmp_path, "--insecure")
    try:
        assert ref.health(INSECURE_HEALTH_SERVICE) == health_pb2.HealthCheckResponse.SERVING
        # open, as it says: an anonymous client creates a match
        made = ref.admin(
            "CreateMatch",
            admin_pb2.CreateMatchRequest(game="clank", seats=[admin_pb2.SeatSpec(name="a")] * 2),
            admin_pb2.CreateMatchResponse,
            token=None,
        )
        assert made.match_id
    finally:
        ref.stop()
    log = ref.log.read_text()
    assert "WARNING: --insecure: admin calls are open to anyone" in log
    assert "INSECURE: no admin token" in log and INSECURE_HEALTH_SERVICE in log


# --- the secured referee: TLS, a ladder database ---------------------------------------------


@dataclass
class Secured:
    ref: RefereeProc
    certs: Certs
    engine: Engine
    db_url: str
    ladder_id: int


@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Secured]:
    """`arena serve referee --tls-cert --tls-key --admin-token-file --db` on a SQLite ladder."""
    tmp = tmp_path_factory.mktemp("secured")
    certs = make_certs(tmp / "certs")
    db_url = f"sqlite:///{tmp / 'ladder.db'}"
    upgrade(db_url)
    engine = create_engine(db_url)
    ladder_id = create_ladder(engine, "sec-clank", "clank", 2, decision_ms=2000, bank_ms=10000, max_strikes=3)
    token = secrets.token_urlsafe(24)
    (tmp / "admin-token").write_text(token)
    tls = Tls(True, certs.ca)
    ref = serve_referee(
        tmp / "ref",
        "--host", "localhost", "--db", db_url, "--admin-token-file", str(tmp / "admin-token"),
        "--tls-cert", str(certs.cert), "--tls-key", str(certs.key),
        # these tests fail authentications on purpose, all from 127.0.0.1; the limit has its own
        "--auth-failure-limit", "10000",
        tls=tls,
    )
    ref.admin_token = token
    try:
        yield Secured(ref, certs, engine, db_url, ladder_id)
    finally:
        ref.stop()
        engine.dispose()


def remote_bot(s: Secured, name: str, *, version: bool = True, ladder: bool = True) -> tuple[int, str]:
    reg = register_bot(s.engine, name, "tests")
    if version:
        add_bot_version(s.engine, reg.bot_id, "1", REMOTE)
    if ladder:
        join_ladder(s.engine, s.ladder_id, reg.bot_id)
    return reg.bot_id, reg.token


def _two_seats(bot_id: int = 0) -> admin_pb2.CreateMatchRequest:
    return admin_pb2.CreateMatchRequest(
        game="clank",
        seats=[admin_pb2.SeatSpec(name="bound", bot_id=bot_id), admin_pb2.SeatSpec(name="other")],
        time_control=CLOCK.to_proto(),
    )


def test_every_admin_call_needs_the_admin_token(secured: Secured) -> None:
    ref = secured.ref
    made = ref.admin("CreateMatch", _two_seats(), admin_pb2.CreateMatchResponse)
    by_id = admin_pb2.GetMatchRequest(match_id=made.match_id)
    calls: list[tuple[str, Any, Any]] = [
        ("CreateMatch", _two_seats(), admin_pb2.CreateMatchResponse),
        ("CancelMatch", admin_pb2.CancelMatchRequest(match_id=made.match_id), admin_pb2.MatchStatus),
        ("GetMatch", by_id, admin_pb2.MatchStatus),
        ("GetReplay", by_id, admin_pb2.Replay),
        ("ListBots", admin_pb2.ListBotsRequest(), admin_pb2.ListBotsResponse),
    ]
    for method, request, response in calls:
        for token in (None, "wrong-" + secrets.token_urlsafe(16), made.seat_tokens[0]):
            assert code_of(ref.admin, method, request, response, token=token) is (
                grpc.StatusCode.UNAUTHENTICATED
            ), (method, token)
    with ref.channel() as ch:
        watch = ch.unary_stream(
            f"/{ADMIN_SERVICE}/WatchMatch",
            request_serializer=admin_pb2.GetMatchRequest.SerializeToString,
            response_deserializer=admin_pb2.MatchEvent.FromString,
        )
        assert code_of(lambda: list(watch(by_id, timeout=10))) is grpc.StatusCode.UNAUTHENTICATED
    # the anonymous cancel did nothing: the match still waits for its bots
    status = ref.admin("GetMatch", by_id, admin_pb2.MatchStatus)
    assert status.state == admin_pb2.MatchStatus.WAITING and not status.ended_by
    assert code_of(lambda: ref.health(INSECURE_HEALTH_SERVICE)) is grpc.StatusCode.NOT_FOUND
    ref.admin("CancelMatch", admin_pb2.CancelMatchRequest(match_id=made.match_id, reason="test over"),
              admin_pb2.MatchStatus)


def _bind_attack(ref: RefereeProc, victim_id: int, token: str | None) -> admin_pb2.CreateMatchResponse:
    """The attack of issue 9: create a match with a seat bound to someone else's connected remote
    bot, keep the other seat's token, and play against it (or just keep it busy)."""
    return ref.admin("CreateMatch", _two_seats(victim_id), admin_pb2.CreateMatchResponse, token=token)  # type: ignore[no-any-return]


def test_a_remote_bot_cannot_be_bound_into_a_match_by_anyone_but_the_operator(
    secured: Secured, tmp_path: Path
) -> None:
    ref = secured.ref
    victim_id, victim_token = remote_bot(secured, "victim")
    attacker_id, attacker_token = remote_bot(secured, "attacker")
    ref.start_sdk("victim", "--bot-token", victim_token, env={"ARENA_CA": str(secured.certs.ca)})
    wait_for(lambda: ref.lobby(victim_id), "the victim in the lobby")
    seat_token = ref.admin("CreateMatch", _two_seats(), admin_pb2.CreateMatchResponse).seat_tokens[0]
    for token in (None, attacker_token, seat_token, "arena_" + secrets.token_urlsafe(32)):
        assert code_of(_bind_attack, ref, victim_id, token) is grpc.StatusCode.UNAUTHENTICATED
    seen = ref.lobby(victim_id)
    assert seen is not None and (seen.games, seen.queued, seen.match_id) == (0, 0, "")

    # the same attack on a referee started --insecure (what every referee used to be) works:
    # this is the attack the checks above stop, not a request that fails for another reason
    open_ref = serve_referee(tmp_path / "open", "--insecure", "--db", secured.db_url)
    try:
        open_ref.start_sdk("victim-open", "--bot-token", victim_token)
        wait_for(lambda: open_ref.lobby(victim_id), "the victim in the open referee's lobby")
        made = _bind_attack(open_ref, victim_id, None)
        assert made.seat_tokens[0] == "" and made.seat_tokens[1]
        seated = wait_for(
            lambda: (b := open_ref.lobby(victim_id)) is not None and b.match_id == made.match_id,
            "the victim seated in the attacker's match",
        )
        assert seated
    finally:
        open_ref.stop()
    assert attacker_id != victim_id


def test_a_remote_bot_and_a_seat_token_bot_play_over_tls(secured: Secured) -> None:
    ref = secured.ref
    bot_id, token = remote_bot(secured, "tls-remote")
    # the remote bot takes its TLS settings from the environment, the seat-token bot from flags
    tls_env = {"ARENA_TLS": "1", "ARENA_CA": str(secured.certs.ca)}
    ref.start_sdk("tls-remote", "--bot-token", token, env=tls_env)
    wait_for(lambda: ref.lobby(bot_id), "the remote bot in the lobby over TLS")
    made = ref.admin("CreateMatch", _two_seats(bot_id), admin_pb2.CreateMatchResponse)
    ref.start_sdk("tls-seat", "--token", made.seat_tokens[1], "--tls", "--ca", str(secured.certs.ca))
    with ref.channel() as ch:
        watch = ch.unary_stream(
            f"/{ADMIN_SERVICE}/WatchMatch",
            request_serializer=admin_pb2.GetMatchRequest.SerializeToString,
            response_deserializer=admin_pb2.MatchEvent.FromString,
        )
        request = admin_pb2.GetMatchRequest(match_id=made.match_id)
        auth = bearer(ref.admin_token or "")
        events = [e.WhichOneof("event") for e in watch(request, metadata=auth, timeout=180)]
    assert events[-1] == "ended" and "action" in events
    status = ref.admin("GetMatch", admin_pb2.GetMatchRequest(match_id=made.match_id), admin_pb2.MatchStatus)
    assert status.HasField("result") and sorted(status.result.places) in ([1, 2], [1, 1])
    assert not any(s.forfeited for s in status.seats), status
    assert "waiting for matches" in ref.sdk_log("tls-remote")


def test_plaintext_and_untrusting_clients_fail_the_handshake(secured: Secured) -> None:
    ref = secured.ref
    assert ref.health("") == health_pb2.HealthCheckResponse.SERVING  # TLS, trusting the test CA
    assert code_of(lambda: ref.health("", Tls(False))) is grpc.StatusCode.UNAVAILABLE
    assert code_of(lambda: ref.health("", Tls(True, secured.certs.other_ca))) is grpc.StatusCode.UNAVAILABLE
    hello = bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name="plain", protocol=1))
    with channel(ref.address, Tls(False)) as plain:
        call = play_call(plain)(iter([hello]), metadata=bearer("arena_x"), timeout=10)
        assert code_of(lambda: list(call)) is grpc.StatusCode.UNAVAILABLE
    # the SDK pointed at the TLS port without --tls gives up with the connection error
    seat = ref.admin("CreateMatch", _two_seats(), admin_pb2.CreateMatchResponse).seat_tokens[0]
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "--referee", ref.address, "--token", seat],
        capture_output=True, text=True, timeout=60,
        env={k: v for k, v in os.environ.items() if k not in ("ARENA_TLS", "ARENA_CA")},
    )
    assert done.returncode == 1 and "UNAVAILABLE" in done.stderr
    assert "connected without TLS: if the referee serves TLS, add --tls" in done.stderr  # what to try
    # over TLS with a CA that does not trust the referee: the same code, and no plaintext hint
    seat = ref.admin("CreateMatch", _two_seats(), admin_pb2.CreateMatchResponse).seat_tokens[0]
    untrusting = subprocess.run(
        [sys.executable, str(EXAMPLE), "--referee", ref.address, "--token", seat,
         "--ca", str(secured.certs.other_ca)],
        capture_output=True, text=True, timeout=60,
        env={k: v for k, v in os.environ.items() if k not in ("ARENA_TLS", "ARENA_CA")},
    )
    assert untrusting.returncode == 1 and "UNAVAILABLE" in untrusting.stderr
    assert "without TLS" not in untrusting.stderr


def test_a_remote_bot_without_tls_is_told_what_to_try_while_it_reconnects(secured: Secured) -> None:
    _, token = remote_bot(secured, f"plain-{secrets.token_hex(3)}")
    proc = subprocess.Popen(
        [sys.executable, str(EXAMPLE), "--referee", secured.ref.address, "--bot-token", token],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
        env={k: v for k, v in os.environ.items() if k not in ("ARENA_TLS", "ARENA_CA")},
    )
    lines: queue.Queue[str] = queue.Queue()
    err = proc.stderr

    def pump() -> None:
        assert err is not None
        for line in err:
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    try:
        seen: list[str] = []
        while not any("disconnected from" in line for line in seen):
            try:
                seen.append(lines.get(timeout=60))
            except queue.Empty:
                pytest.fail(f"no reconnect line: {seen}")
        line = next(line for line in seen if "disconnected from" in line)
        assert "UNAVAILABLE" in line and "if the referee serves TLS, add --tls" in line, line
    finally:
        proc.kill()
        proc.wait()
        if err is not None:
            err.close()


@pytest.mark.parametrize(
    ("version", "ladder", "expected"),
    [
        (False, True, "bot lost-{n} has no version: run `arena bot remote lost-{n}`"),
        (True, False, "bot lost-{n} is on no ladder: run `arena ladder join lost-{n} LADDER`"),
        ("hosted", True, "bot lost-{n}'s newest version '2' is hosted"),
        ("only-hosted", True, "bot lost-{n} has no remote version (its versions are hosted)"),
    ],
)
def test_a_remote_bot_the_ladder_cannot_seat_is_told_why(
    secured: Secured, version: bool | str, ladder: bool, expected: str
) -> None:
    ref = secured.ref
    name = f"lost-{secrets.token_hex(3)}"
    bot_id, token = remote_bot(secured, name, version=version is True or version == "hosted", ladder=ladder)
    if version in ("hosted", "only-hosted"):
        add_bot_version(secured.engine, bot_id, "2", "python main.py")
    message = expected.format(n=name.split("-", 1)[1])
    hello = bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name=name, protocol=1))
    with ref.channel() as ch:
        call = play_call(ch)(iter([hello]), metadata=bearer(token), timeout=20)
        with pytest.raises(grpc.RpcError) as refused:
            list(call)
    assert refused.value.code() is grpc.StatusCode.FAILED_PRECONDITION
    assert message in str(refused.value.details())
    # the SDK stops at once (no waiting, no reconnecting) and prints the instruction
    sdk = subprocess.run(
        [sys.executable, str(EXAMPLE), "--referee", ref.address, "--bot-token", token,
         "--ca", str(secured.certs.ca)],
        capture_output=True, text=True, timeout=60,
    )
    assert sdk.returncode == 1 and "FAILED_PRECONDITION" in sdk.stderr and message in sdk.stderr
    assert ref.lobby(bot_id) is None


def test_a_ladder_match_with_a_remote_bot_runs_on_a_tls_referee(
    secured: Secured, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The workers' side (as in deploy/docker-compose.yml): $ARENA_REFEREE_CA makes the executor's
    admin calls and its built-in seats' streams TLS."""
    from ladder.match_queue import enqueue_match
    from workers.executor import reset_referee_executor
    from workers.grpc_executor import GrpcMatchExecutor
    from workers.match_execution import run_match

    ref = secured.ref
    bot_id, token = remote_bot(secured, "tls-ladder", version=False)
    remote_version = add_bot_version(secured.engine, bot_id, "1", REMOTE)
    house = register_bot(secured.engine, "tls-house", "tests")
    house_version = add_bot_version(secured.engine, house.bot_id, "1", "builtin:random")
    join_ladder(secured.engine, secured.ladder_id, house.bot_id)
    ref.start_sdk("tls-ladder", "--bot-token", token, "--ca", str(secured.certs.ca))
    wait_for(lambda: ref.lobby(bot_id), "the remote bot in the lobby")
    monkeypatch.setenv("ARENA_REFEREE_ADDR", ref.address)
    monkeypatch.setenv("ARENA_ADMIN_TOKEN", ref.admin_token or "")
    monkeypatch.delenv("ARENA_REFEREE_CA", raising=False)
    assert GrpcMatchExecutor().connected_bots() == frozenset()  # plaintext: the handshake fails
    monkeypatch.setenv("ARENA_REFEREE_CA", str(secured.certs.ca))
    reset_referee_executor()
    assert bot_id in GrpcMatchExecutor().connected_bots()
    match_id = enqueue_match(secured.engine, secured.ladder_id, [remote_version, house_version], seed=5)
    run = run_match(secured.db_url, match_id, "w-tls")
    assert run.status == "recorded", run
    reset_referee_executor()


def test_the_sandbox_proxy_adds_tls_for_plaintext_bots(secured: Secured, tmp_path: Path) -> None:
    """Sandboxed bots speak plaintext gRPC on a local Unix socket; the executor's proxy carries it
    to the TLS referee over TLS (checked against the CA)."""
    import asyncio

    from workers.grpc_executor import PROXY_CLOSE_S, unix_to_tcp_proxy

    async def through_proxy(name: str, tls: Tls) -> grpc.StatusCode:
        socket_path = tmp_path / f"{name}.sock"
        server = await unix_to_tcp_proxy(socket_path, secured.ref.address, tls)
        try:
            async with grpc.aio.insecure_channel(f"unix:{socket_path}") as ch:
                check = ch.unary_unary(
                    "/grpc.health.v1.Health/Check",
                    request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
                    response_deserializer=health_pb2.HealthCheckResponse.FromString,
                )
                try:
                    reply = await check(health_pb2.HealthCheckRequest(service=""), timeout=5)
                except grpc.aio.AioRpcError as exc:
                    return exc.code()
                assert reply.status == health_pb2.HealthCheckResponse.SERVING
                return grpc.StatusCode.OK
        finally:
            await asyncio.sleep(2 * PROXY_CLOSE_S)  # the proxied connections finish closing
            server.close()
            await server.wait_closed()

    assert asyncio.run(through_proxy("tls", Tls(True, secured.certs.ca))) is grpc.StatusCode.OK
    assert asyncio.run(through_proxy("plain", Tls(False))) is grpc.StatusCode.UNAVAILABLE
    untrusting = Tls(True, secured.certs.other_ca)
    assert asyncio.run(through_proxy("untrusting", untrusting)) is grpc.StatusCode.UNAVAILABLE


def test_javascript_bots_play_over_tls(secured: Secured) -> None:
    """The Node.js kit: `--ca FILE` on the command line for one seat, ARENA_CA for the other;
    without TLS options it cannot connect."""
    import shutil

    assert shutil.which("node") is not None, "Node.js is required to test the JavaScript kit"
    assert (REPO / "bots" / "javascript" / "node_modules" / "@grpc" / "grpc-js").is_dir(), (
        "run `npm ci --prefix bots/javascript` (make test does)"
    )
    ref = secured.ref
    js_bot = str(REPO / "bots" / "javascript" / "random_bot.js")
    made = ref.admin("CreateMatch", _two_seats(), admin_pb2.CreateMatchResponse)
    base = {k: v for k, v in os.environ.items() if k not in ("ARENA_TLS", "ARENA_CA")}
    plain = subprocess.run(
        ["node", js_bot, "--referee", ref.address, "--token", made.seat_tokens[0]],
        capture_output=True, text=True, timeout=60, env=base,
    )
    assert plain.returncode == 1 and "referee closed the session: 14 (UNAVAILABLE) " in plain.stderr
    assert "connected without TLS: if the referee serves TLS, add --tls" in plain.stderr
    runs = [
        subprocess.Popen(
            ["node", js_bot, "--referee", ref.address, "--token", made.seat_tokens[0],
             "--ca", str(secured.certs.ca)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=base,
        ),
        subprocess.Popen(
            ["node", js_bot, "--referee", ref.address, "--token", made.seat_tokens[1]],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            env={**base, "ARENA_CA": str(secured.certs.ca)},
        ),
    ]
    outputs = [proc.communicate(timeout=180)[0].decode(errors="replace") for proc in runs]
    assert [proc.returncode for proc in runs] == [0, 0], outputs
    status = ref.admin("GetMatch", admin_pb2.GetMatchRequest(match_id=made.match_id), admin_pb2.MatchStatus)
    assert status.ended_by == "game_over" and not any(s.forfeited for s in status.seats)


def test_a_newer_hosted_version_still_qualifying_does_not_turn_a_remote_bot_away(secured: Secured) -> None:
    """The ladder plays the newest *qualified* version: a hosted upload still pending leaves the
    remote version in play, so the remote bot is let in."""
    from ladder.bots import set_qualification

    ref = secured.ref
    bot_id, token = remote_bot(secured, "qualifying")
    pending = add_bot_version(secured.engine, bot_id, "2", "python main.py")
    set_qualification(secured.engine, pending, "pending")
    ref.start_sdk("qualifying", "--bot-token", token, "--ca", str(secured.certs.ca))
    wait_for(lambda: ref.lobby(bot_id), "the remote bot in the lobby")
