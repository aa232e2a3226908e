"""`arena serve referee --processes N` as real processes (referee/server/PROCESSES.md).

Two children each serve whole matches (played by the SDK's example bot, one process per seat)
and a match lives in the one it was created on; connections to the shared port are spread over
both; a killed child is restarted on its port and
serves again; SIGTERM to the parent stops every child; a parent killed outright leaves no child
behind; a child that keeps dying stops the group with one error line and status 1; with fixed
ports each child has its port and its own metrics port.
"""

from __future__ import annotations

import os
import re
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest

from referee.replay import loads
from referee.server.processes import MAX_RESTARTS, Supervisor
from referee.wire import ADMIN_SERVICE, bearer
from referee.wire._proto.arena.v1 import admin_pb2

from .conftest import CLOCK, RANDOM_BOT

pytestmark = pytest.mark.integration

ARENA = [sys.executable, "-m", "referee.cli"]


@dataclass
class Group:
    """A running `arena serve referee --processes 2`."""

    proc: subprocess.Popen[str]
    token: str
    addresses: list[str]
    pids: list[int]
    stderr: Path
    #: the port every child serves too (SO_REUSEPORT)
    shared: str

    def call(self, address: str, method: str, request: Any, response: Any) -> Any:
        with grpc.insecure_channel(address) as ch:
            unary = ch.unary_unary(
                f"/{ADMIN_SERVICE}/{method}",
                request_serializer=request.SerializeToString,
                response_deserializer=response.FromString,
            )
            return unary(request, metadata=bearer(self.token), timeout=10)

    def play(self, address: str, seed: int) -> tuple[str, dict[str, Any]]:
        """Create a 2-seat Clank! match on `address`, play it with two random-bot processes."""
        made = self.call(
            address,
            "CreateMatch",
            admin_pb2.CreateMatchRequest(
                game="clank",
                seed=seed,
                seats=[admin_pb2.SeatSpec(name="a"), admin_pb2.SeatSpec(name="b")],
                time_control=CLOCK.to_proto(),
            ),
            admin_pb2.CreateMatchResponse,
        )
        bots = [
            subprocess.Popen(
                RANDOM_BOT, shell=True, env={**os.environ, "ARENA_REFEREE": address, "ARENA_TOKEN": token}
            )
            for token in made.seat_tokens
        ]
        try:
            assert [b.wait(timeout=120) for b in bots] == [0, 0]
        finally:
            for b in bots:
                if b.poll() is None:
                    b.kill()
        replay = self.call(
            address, "GetReplay", admin_pb2.GetMatchRequest(match_id=made.match_id), admin_pb2.Replay
        )
        return made.match_id, loads(replay.data)

    def stderr_text(self) -> str:
        return self.stderr.read_text(errors="replace")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie (exited, not yet reaped by its parent) is gone for our purpose
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"


def wait_until(predicate: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


@pytest.fixture
def group(tmp_path: Path) -> Iterator[Group]:
    token = secrets.token_urlsafe(16)
    stderr = tmp_path / "referee.err"
    with stderr.open("w") as err:
        proc = subprocess.Popen(
            [*ARENA, "serve", "referee", "--port", "0", "--processes", "2"],
            stdout=subprocess.PIPE, stderr=err, text=True, env={**os.environ, "ARENA_ADMIN_TOKEN": token},
        )
    assert proc.stdout is not None
    first = proc.stdout.readline()
    assert first.startswith("referee listening on "), first + stderr.read_text()
    addresses = first.split()[-1].split(",")
    shared = re.search(r" on (\S+) too ", proc.stdout.readline())
    assert shared is not None
    pids = [int(re.search(r"\(pid (\d+)\)", proc.stdout.readline()).group(1)) for _ in addresses]  # type: ignore[union-attr]
    made = Group(proc, token, addresses, pids, stderr, shared.group(1))
    try:
        yield made
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        for pid in made.pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_two_processes_each_serve_whole_matches_and_sigterm_stops_all(group: Group) -> None:
    assert len(set(group.addresses)) == 2 and len(set(group.pids)) == 2
    for i, address in enumerate(group.addresses):
        match_id, replay = group.play(address, seed=10 + i)
        assert replay["ended_by"] == "game_over"
        # the match lives in the process it was created on, and only there
        other = group.addresses[1 - i]
        with pytest.raises(grpc.RpcError) as refused:
            group.call(other, "GetMatch", admin_pb2.GetMatchRequest(match_id=match_id), admin_pb2.MatchStatus)
        assert refused.value.code() == grpc.StatusCode.NOT_FOUND
    group.proc.send_signal(signal.SIGTERM)
    assert group.proc.wait(timeout=30) == 0
    assert not any(alive(pid) for pid in group.pids)


def test_the_shared_port_spreads_connections_and_a_match_stays_in_one_process(group: Group) -> None:
    made = []
    for seed in range(16):  # each on a connection of its own, as every remote bot has
        with grpc.insecure_channel(group.shared, options=[("grpc.use_local_subchannel_pool", 1)]) as ch:
            create = ch.unary_unary(
                f"/{ADMIN_SERVICE}/CreateMatch",
                request_serializer=admin_pb2.CreateMatchRequest.SerializeToString,
                response_deserializer=admin_pb2.CreateMatchResponse.FromString,
            )
            request = admin_pb2.CreateMatchRequest(
                game="clank", seed=seed, seats=[admin_pb2.SeatSpec(name="a"), admin_pb2.SeatSpec(name="b")]
            )
            made.append(create(request, metadata=bearer(group.token), timeout=10).match_id)
    held: list[set[str]] = []
    for address in group.addresses:  # asked on each process's own port
        found = set()
        for match_id in made:
            try:
                asked = admin_pb2.GetMatchRequest(match_id=match_id)
                group.call(address, "GetMatch", asked, admin_pb2.MatchStatus)
                found.add(match_id)
            except grpc.RpcError as exc:
                assert exc.code() == grpc.StatusCode.NOT_FOUND
        held.append(found)
    assert held[0].isdisjoint(held[1]) and held[0] | held[1] == set(made)
    # the kernel spread the 16 connections (all on one process: a chance of 2 in 65536)
    assert held[0] and held[1], held


def test_a_killed_child_is_restarted_on_its_port(group: Group) -> None:
    os.kill(group.pids[0], signal.SIGKILL)
    wait_until(lambda: " again" in group.stderr_text(), 60, "the restarted child")
    text = group.stderr_text()
    killed = f"referee process 0 (pid {group.pids[0]}, {group.addresses[0]}) exited with status -9"
    assert f"{killed}; restarting" in text
    new_pid = int(re.findall(r"referee process 0 \(pid (\d+)\) listening on (\S+) again", text)[0][0])
    assert new_pid != group.pids[0] and alive(new_pid)
    group.pids.append(new_pid)
    _, replay = group.play(group.addresses[0], seed=3)  # the same address serves again
    assert replay["ended_by"] == "game_over"
    assert alive(group.pids[1])  # the other child was left alone
    group.proc.send_signal(signal.SIGTERM)
    assert group.proc.wait(timeout=30) == 0
    assert not alive(new_pid) and not alive(group.pids[1])


def test_children_stop_when_the_supervisor_is_killed_outright(group: Group) -> None:
    group.proc.kill()
    group.proc.wait()
    wait_until(lambda: not any(alive(pid) for pid in group.pids), 20, "the orphaned children to stop")


def test_a_child_that_keeps_dying_stops_the_group(capsys: pytest.CaptureFixture[str]) -> None:
    # a stand-in child: listens (says so), then dies at once, every time
    script = "import time; print('referee listening on 127.0.0.1:9', flush=True); time.sleep(0.2)"
    supervisor = Supervisor(lambda port, metrics: ["-c", script], [9, 10], [0, 0])
    assert supervisor.run() == 1
    err = capsys.readouterr().err
    assert err.count("exited with status 0; restarting it") >= MAX_RESTARTS
    assert f"exited {MAX_RESTARTS + 1} times in 60 s" in err.splitlines()[-1]
    assert err.splitlines()[-1].startswith("error: referee process ")
    assert all(c.proc is not None and c.proc.poll() is not None for c in supervisor.children)


def test_a_child_that_cannot_start_stops_the_group_while_another_is_still_starting(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # stand-ins: process 0 is slow (it would fail 30 s later, never listening); process 1 cannot
    # start (an error, status 3). The start fails on process 1's exit, not on process 0's fate
    slow = "import time; time.sleep(30)"
    broken = "import sys; print('error: port taken', file=sys.stderr); sys.exit(3)"
    supervisor = Supervisor(lambda port, metrics: ["-c", slow if port == 9 else broken], [9, 10], [0, 0])
    assert supervisor.run() == 1
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == (
        "error: referee process 1 (port 10) exited with status 3 before it listened (its error is "
        "above); stopped every referee process"
    ), err
    assert all(c.proc is not None and c.proc.poll() is not None for c in supervisor.children)


def test_port_range_beyond_65535_is_one_line() -> None:
    done = subprocess.run(
        [*ARENA, "serve", "referee", "--insecure", "--port", "65535", "--processes", "2"],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: --processes 2: ports 65535..65537 (and metrics) must be <= 65535"
    ], done.stderr


def _free_run(length: int) -> int:
    """A first port of `length` consecutive ports that are free now."""
    import socket

    for _ in range(50):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            base = int(probe.getsockname()[1])
        if base + length > 65535:
            continue
        try:
            for port in range(base, base + length):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", port))
        except OSError:
            continue
        return base
    raise AssertionError("no run of free ports")


def test_fixed_ports_and_metrics_per_process(tmp_path: Path) -> None:
    import urllib.request

    base = _free_run(5)
    token = secrets.token_urlsafe(16)
    with (tmp_path / "err").open("w") as err:
        proc = subprocess.Popen(
            [
                *ARENA, "serve", "referee", "--port", str(base), "--metrics-port", str(base + 3),
                "--processes", "2",
            ],
            stdout=subprocess.PIPE, stderr=err, text=True, env={**os.environ, "ARENA_ADMIN_TOKEN": token},
        )
    assert proc.stdout is not None
    try:
        first = proc.stdout.readline()
        # each process's own port first (ARENA_REFEREE_ADDR's form), then the shared one
        assert first == f"referee listening on 127.0.0.1:{base + 1},127.0.0.1:{base + 2}\n", (
            first + (tmp_path / "err").read_text()
        )
        assert f" on 127.0.0.1:{base} too " in proc.stdout.readline()
        for i in range(2):
            line = proc.stdout.readline()
            assert line.endswith(f": 127.0.0.1:{base + 1 + i}, metrics on port {base + 3 + i}\n"), line
            with urllib.request.urlopen(f"http://127.0.0.1:{base + 3 + i}/metrics", timeout=10) as page:
                assert "arena_referee_active_matches" in page.read().decode()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()


def test_remote_bots_spread_over_the_processes_and_play_where_they_are_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The production path: remote bots connect to the shared port, the workers' executor finds
    each in one process's lobby (ARENA_REFEREE_ADDR = the own ports) and plays its match there."""
    from ladder.bots import REMOTE, add_bot_version, register_bot
    from ladder.db import create_engine, upgrade
    from ladder.ladders import create_ladder, join_ladder
    from ladder.match_queue import enqueue_match
    from workers.executor import reset_referee_executor
    from workers.match_execution import run_match

    from .conftest import REPO

    db_url = f"sqlite:///{tmp_path / 'ladder.db'}"
    upgrade(db_url)
    engine = create_engine(db_url)
    token = secrets.token_urlsafe(16)
    with (tmp_path / "referee.err").open("w") as err:
        proc = subprocess.Popen(
            [*ARENA, "serve", "referee", "--port", "0", "--processes", "2", "--db", db_url],
            stdout=subprocess.PIPE, stderr=err, text=True, env={**os.environ, "ARENA_ADMIN_TOKEN": token},
        )
    assert proc.stdout is not None
    bots: list[subprocess.Popen[bytes]] = []
    try:
        first = proc.stdout.readline()
        assert first.startswith("referee listening on "), first + (tmp_path / "referee.err").read_text()
        own = first.split()[-1].split(",")
        found = re.search(r" on (\S+) too ", proc.stdout.readline())
        assert found is not None
        group = Group(proc, token, own, [], tmp_path / "referee.err", found.group(1))
        ladder_id = create_ladder(
            engine, "spread", "clank", 2, decision_ms=2000, bank_ms=30000, max_strikes=3
        )
        house = register_bot(engine, "house", "tests")
        house_version = add_bot_version(engine, house.bot_id, "1", "builtin:random")
        join_ladder(engine, ladder_id, house.bot_id)

        def holder(bot_id: int) -> int | None:
            for i, address in enumerate(own):
                listing = group.call(
                    address, "ListBots", admin_pb2.ListBotsRequest(bot_id=bot_id), admin_pb2.ListBotsResponse
                )
                if listing.bots:
                    return i
            return None

        # remote bots connect to the shared port until each process holds one (each connection
        # lands on either with even odds: 20 bots all on one process is a chance of 2 in a million)
        held: dict[int, tuple[int, int]] = {}  # process -> (bot id, version)
        for n in range(20):
            reg = register_bot(engine, f"remote{n}", "tests")
            version = add_bot_version(engine, reg.bot_id, "1", REMOTE)
            join_ladder(engine, ladder_id, reg.bot_id)
            example = REPO / "bots" / "python" / "examples" / "random_bot.py"
            with (tmp_path / f"remote{n}.log").open("wb") as log:
                bots.append(subprocess.Popen(
                    [sys.executable, str(example), "--referee", group.shared, "--bot-token", reg.token],
                    stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                ))
            where: list[int | None] = [None]

            def connected(bot_id: int = reg.bot_id, at: list[int | None] = where) -> bool:
                at[0] = holder(bot_id)
                return at[0] is not None

            wait_until(connected, 30, f"remote{n} in a lobby")
            assert where[0] is not None
            held.setdefault(where[0], (reg.bot_id, version))
            if len(held) == 2:
                break
        assert len(held) == 2, held

        monkeypatch.setenv("ARENA_REFEREE_ADDR", ",".join(own))
        monkeypatch.setenv("ARENA_ADMIN_TOKEN", token)
        monkeypatch.setenv("ARENA_BOT_LOG_DIR", str(tmp_path / "hosted-logs"))
        reset_referee_executor()
        for process, (bot_id, version) in sorted(held.items()):
            match = enqueue_match(engine, ladder_id, [version, house_version], seed=process + 1)
            assert run_match(db_url, match, "w1").status == "recorded"
            # played in the process holding the bot's stream, over that stream
            lobby = group.call(
                own[process], "ListBots", admin_pb2.ListBotsRequest(bot_id=bot_id), admin_pb2.ListBotsResponse
            )
            assert lobby.bots[0].games == 1
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        reset_referee_executor()
        for bot in bots:
            if bot.poll() is None:
                bot.kill()
            bot.wait(10)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        engine.dispose()


def test_tls_and_the_admin_token_file_reach_every_port_of_every_process(tmp_path: Path) -> None:
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    from .certs import make_certs

    certs = make_certs(tmp_path / "certs")
    token_file = tmp_path / "admin-token"
    token = secrets.token_urlsafe(24)
    token_file.write_text(token + "\n")
    env = {k: v for k, v in os.environ.items() if k != "ARENA_ADMIN_TOKEN"}
    with (tmp_path / "err").open("w") as err:
        proc = subprocess.Popen(
            [
                *ARENA, "serve", "referee", "--port", "0", "--processes", "2",
                "--tls-cert", str(certs.cert), "--tls-key", str(certs.key),
                "--admin-token-file", str(token_file),
            ],
            stdout=subprocess.PIPE, stderr=err, text=True, env=env,
        )
    assert proc.stdout is not None
    try:
        first = proc.stdout.readline()
        assert first.startswith("referee listening on "), first + (tmp_path / "err").read_text()
        found = re.search(r" on (\S+) too ", proc.stdout.readline())
        assert found is not None
        credentials = grpc.ssl_channel_credentials(certs.ca.read_bytes())
        for address in [*first.split()[-1].split(","), found.group(1)]:
            with grpc.secure_channel(address, credentials) as ch:
                reply = health_pb2_grpc.HealthStub(ch).Check(  # type: ignore[attr-defined]
                    health_pb2.HealthCheckRequest(service=""), timeout=10
                )
                assert reply.status == health_pb2.HealthCheckResponse.SERVING
                listing = ch.unary_unary(
                    f"/{ADMIN_SERVICE}/ListBots",
                    request_serializer=admin_pb2.ListBotsRequest.SerializeToString,
                    response_deserializer=admin_pb2.ListBotsResponse.FromString,
                )
                listing(admin_pb2.ListBotsRequest(), metadata=bearer(token), timeout=10)  # the token works
            with grpc.insecure_channel(address) as plain, pytest.raises(grpc.RpcError):
                health_pb2_grpc.HealthStub(plain).Check(  # type: ignore[attr-defined]
                    health_pb2.HealthCheckRequest(service=""), timeout=5
                )
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()


def _restarts(metrics_port: int) -> dict[str, float]:
    """arena_referee_process_restarts on a process's /metrics: process label -> value."""
    import urllib.request

    from prometheus_client.parser import text_string_to_metric_families

    with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10) as page:
        text = page.read().decode()
    return {
        sample.labels["process"]: sample.value
        for family in text_string_to_metric_families(text)
        if family.name == "arena_referee_process_restarts"
        for sample in family.samples
    }


def test_each_process_exports_how_many_times_its_slot_was_restarted(tmp_path: Path) -> None:
    # the supervisor serves no metrics: each child exports its slot's restart count (given to it by
    # the supervisor) on the metrics port Prometheus scrapes; a killed child's successor says 1,
    # then 2 (the count outlives the process), the other child still 0
    base = _free_run(5)
    metrics = [base + 3, base + 4]
    err_path = tmp_path / "err"
    with err_path.open("w") as err:
        proc = subprocess.Popen(
            [*ARENA, "serve", "referee", "--port", str(base), "--metrics-port", str(metrics[0]),
             "--processes", "2", "--insecure"],
            stdout=subprocess.PIPE, stderr=err, text=True,
        )
    assert proc.stdout is not None
    pids: list[int] = []
    try:
        first = proc.stdout.readline()
        assert first.startswith("referee listening on "), first + err_path.read_text()
        proc.stdout.readline()  # the shared port
        pids = [int(re.search(r"\(pid (\d+)\)", proc.stdout.readline()).group(1)) for _ in range(2)]  # type: ignore[union-attr]
        assert [_restarts(m) for m in metrics] == [{"0": 0.0}, {"1": 0.0}]
        again = r"referee process 0 \(pid (\d+)\) listening on \S+ again"
        for kills in (1, 2):
            os.kill(pids[0], signal.SIGKILL)
            wait_until(lambda n=kills: len(re.findall(again, err_path.read_text())) == n, 60,
                       f"process 0's restart {kills}")
            pids[0] = int(re.findall(again, err_path.read_text())[-1])
            pids.append(pids[0])  # (killed at the end if the test fails)
            assert [_restarts(m) for m in metrics] == [{"0": float(kills)}, {"1": 0.0}]
        assert alive(pids[1])  # the other child, never restarted, is the same process
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        for pid in pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
