"""Remote bots: a bot on its author's machine connects with its bot token and stays connected;
the matchmaker pairs it and the workers' executor plays its matches on the long-lived referee.

Everything is a real process: the referee (`arena serve referee --db URL`), the remote bots
(the SDK's example bot started with `--bot-token`), hosted bots; the ladder is a SQLite file.
"""

from __future__ import annotations

import gzip
import os
import random
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
import sqlalchemy as sa
from arena_bot._proto.arena.v1 import admin_pb2, bot_pb2
from arena_bot.wire import ADMIN_SERVICE, bearer, channel_options, play_call
from sqlalchemy import Engine

from ladder.accounts import authenticate_key, create_account
from ladder.bots import REMOTE, add_bot_version, add_remote_version, register_bot
from ladder.db import create_engine, upgrade
from ladder.ladders import create_ladder, join_ladder
from ladder.match_queue import enqueue_match
from ladder.schema import matches, rating_history, replays, results
from referee.replay import loads, verify
from tests.databases import qualification_of
from workers.executor import reset_referee_executor
from workers.match_execution import MatchRun, run_match
from workers.matchmaker import fill_queues, load_ladder_views
from workers.qualification import due_versions, qualify_version

from .conftest import RANDOM_BOT, REPO

ARENA = [sys.executable, "-m", "referee.cli"]
EXAMPLE = REPO / "bots" / "python" / "examples" / "random_bot.py"


@dataclass
class RefereeProcess:
    """`arena serve referee --db URL` running as a process, and the ladder database it reads."""

    proc: subprocess.Popen[str]
    address: str
    admin_token: str
    db_url: str
    engine: Engine
    tmp: Path
    bots: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def admin(self, method: str, request: Any, response: Any) -> Any:
        with grpc.insecure_channel(self.address) as channel:
            call = channel.unary_unary(
                f"/{ADMIN_SERVICE}/{method}",
                request_serializer=request.SerializeToString,
                response_deserializer=response.FromString,
            )
            return call(request, metadata=bearer(self.admin_token), timeout=10)

    def lobby(self, bot_id: int) -> admin_pb2.LobbyBot | None:
        listing = self.admin("ListBots", admin_pb2.ListBotsRequest(bot_id=bot_id), admin_pb2.ListBotsResponse)
        return listing.bots[0] if listing.bots else None

    def match(self, match_id: str) -> admin_pb2.MatchStatus:
        return self.admin("GetMatch", admin_pb2.GetMatchRequest(match_id=match_id), admin_pb2.MatchStatus)

    def start_bot(self, token: str, name: str) -> subprocess.Popen[bytes]:
        """The SDK's example bot as a remote bot: `--bot-token`, output to <tmp>/<name>.log."""
        with (self.tmp / f"{name}.log").open("wb") as log:
            proc = subprocess.Popen(
                [sys.executable, str(EXAMPLE), "--referee", self.address, "--bot-token", token],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        self.bots.append(proc)
        return proc

    def bot_log(self, name: str) -> str:
        return (self.tmp / f"{name}.log").read_text(errors="replace")


def wait_for(check: Callable[[], Any], what: str, timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def referee_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RefereeProcess]:
    tmp = tmp_path_factory.mktemp("remote")
    db_url = f"sqlite:///{tmp / 'ladder.db'}"
    upgrade(db_url)
    token = secrets.token_urlsafe(24)
    with (tmp / "referee.log").open("wb") as err:
        proc = subprocess.Popen(  # the admin token from the environment, never the command line
            [*ARENA, "serve", "referee", "--port", "0", "--db", db_url],
            stdout=subprocess.PIPE,
            stderr=err,
            stdin=subprocess.DEVNULL,
            text=True,
            cwd=REPO,
            env={**os.environ, "ARENA_ADMIN_TOKEN": token},
        )
    engine = create_engine(db_url)
    ref = RefereeProcess(proc, "", token, db_url, engine, tmp)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("referee listening on "), line + (tmp / "referee.log").read_text()
        ref.address = line.split()[-1]
        yield ref
    finally:
        for bot in ref.bots:
            if bot.poll() is None:
                bot.kill()
            bot.wait(10)
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        if proc.stdout is not None:
            proc.stdout.close()
        engine.dispose()


@pytest.fixture
def referee(referee_process: RefereeProcess, monkeypatch: pytest.MonkeyPatch) -> RefereeProcess:
    """The referee process, with this (worker) process's executor pointed at it."""
    monkeypatch.setenv("ARENA_REFEREE_ADDR", referee_process.address)
    monkeypatch.setenv("ARENA_ADMIN_TOKEN", referee_process.admin_token)
    monkeypatch.setenv("ARENA_BOT_LOG_DIR", str(referee_process.tmp / "hosted-logs"))
    reset_referee_executor()
    return referee_process


def _ladder(engine: Engine, name: str) -> int:
    return create_ladder(engine, name, "clank", 2, decision_ms=1000, bank_ms=30000, max_strikes=3)


def _bot(engine: Engine, ladder_id: int, name: str, command: str) -> tuple[int, int, str]:
    reg = register_bot(engine, name, "tests")
    version = add_bot_version(engine, reg.bot_id, "1", command)
    join_ladder(engine, ladder_id, reg.bot_id)
    return reg.bot_id, version, reg.token


def _assert_recorded_once(engine: Engine, match_ids: list[int]) -> None:
    with engine.connect() as conn:
        statuses = dict(
            conn.execute(sa.select(matches.c.id, matches.c.status).where(matches.c.id.in_(match_ids))).all()
        )
        assert statuses == {m: "done" for m in match_ids}
        for m in match_ids:
            assert conn.execute(sa.select(sa.func.count()).where(results.c.match_id == m)).scalar_one() == 1
            changes = sa.select(sa.func.count()).where(rating_history.c.match_id == m)
            assert conn.execute(changes).scalar_one() == 2
            data = conn.execute(sa.select(replays.c.data).where(replays.c.match_id == m)).scalar_one()
            verify(loads(gzip.decompress(data)))


def _remote_version(engine: Engine, ladder_id: int, name: str) -> tuple[int, int, str]:
    """Bot `name` of a new account, on the ladder, with a remote version made as the API makes
    it (`add_remote_version`: pending, a new bot token): (bot id, version id, token)."""
    account = create_account(engine, f"{name}-owner")
    who = authenticate_key(engine, account.api_key)
    assert who is not None
    bot = register_bot(engine, name, who.account_name, account_id=who.account_id, game="clank")
    join_ladder(engine, ladder_id, bot.bot_id)
    made = add_remote_version(engine, who, bot.bot_id)
    assert made.token is not None and made.qualification == "pending"
    return bot.bot_id, made.version_id, made.token


def _seated(engine: Engine, ladder_id: int, bot_id: int) -> int | None:
    (view,) = load_ladder_views(engine, [ladder_id])
    return next((e.version_id for e in view.entrants if e.bot_id == bot_id), None)


@pytest.mark.slow
def test_a_remote_version_qualifies_by_playing_once_its_bot_connects(referee: RefereeProcess) -> None:
    """Pending and unseated while its bot is away; once the bot connects, the sweeper's list
    holds it and its qualification games are played on the long-lived referee against the
    reference bots, with the same detail an upload gets; only then does the matchmaker seat it."""
    engine = referee.engine
    ladder_id = _ladder(engine, "remote-qualifies")
    _bot(engine, ladder_id, "house-random-q", "builtin:random")
    bot_id, version_id, token = _remote_version(engine, ladder_id, "far-qualifier")

    # away: not due, not claimed, not seated, and it says why
    assert version_id not in due_versions(engine)
    assert qualify_version(referee.db_url, version_id).status == "not_claimed"
    state, detail = qualification_of(engine, version_id)
    assert state == "pending" and detail["waiting"] == "connection"
    assert _seated(engine, ladder_id, bot_id) is None

    referee.start_bot(token, "far-qualifier")
    wait_for(lambda: referee.lobby(bot_id), "the remote bot in the lobby")
    wait_for(lambda: version_id in due_versions(engine), "its qualification due once connected")
    run = qualify_version(referee.db_url, version_id)
    assert run.status == "passed", (run.reason, referee.bot_log("far-qualifier"))
    state, detail = qualification_of(engine, version_id)
    assert state == "passed" and "waiting" not in detail
    assert [(g["opponent"], g["seat"], g["faults"]) for g in detail["games"]] == [
        ("builtin:random", 0, []), ("builtin:greedy", 1, [])
    ]
    assert all(g["decisions"] > 0 for g in detail["games"])
    # the games were the remote bot's, on its one stream
    assert referee.lobby(bot_id).games == 2  # type: ignore[union-attr]
    assert _seated(engine, ladder_id, bot_id) == version_id


@pytest.mark.slow
def test_a_remote_bot_gone_before_its_qualification_game_goes_back_to_waiting(
    referee: RefereeProcess,
) -> None:
    """Sent to qualification as connected, but the bot is not there when the game starts (its
    seat is forfeited `never connected`): no verdict, pending and waiting again, the attempt not
    counted, not due again before the retry time."""
    engine = referee.engine
    ladder_id = _ladder(engine, "remote-gone")
    bot_id, version_id, _ = _remote_version(engine, ladder_id, "far-gone")
    run = qualify_version(referee.db_url, version_id, games=1, connected=lambda _bot: True)
    assert run.status == "pending", run.reason
    state, detail = qualification_of(engine, version_id)
    assert state == "pending" and detail["waiting"] == "connection"
    assert "not connected when qualification game 1 of 1 began" in detail["reason"]
    assert detail["attempt"] == 0 and detail["games"] == []
    assert version_id not in due_versions(engine, connected=lambda _bot: True)  # its retry time
    assert _seated(engine, ladder_id, bot_id) is None


def test_a_bad_bot_token_is_refused(referee: RefereeProcess) -> None:
    hello = bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name="intruder", protocol=1))
    with grpc.insecure_channel(referee.address, options=channel_options()) as channel:
        call = play_call(channel)(iter([hello]), metadata=bearer("arena_" + secrets.token_urlsafe(32)))
        with pytest.raises(grpc.RpcError) as refused:
            list(call)
    assert refused.value.code() is grpc.StatusCode.UNAUTHENTICATED  # type: ignore[attr-defined]
    # the SDK gives up at once on UNAUTHENTICATED (no reconnecting)
    sdk = subprocess.run(
        [sys.executable, str(EXAMPLE), "--referee", referee.address, "--bot-token", "arena_wrong"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert sdk.returncode == 1 and "UNAUTHENTICATED" in sdk.stderr


@pytest.mark.slow
def test_a_remote_bot_plays_consecutive_matches_on_one_stream(referee: RefereeProcess) -> None:
    engine = referee.engine
    ladder_id = _ladder(engine, "remote-consecutive")
    remote_id, _, token = _bot(engine, ladder_id, "far-away", REMOTE)
    _bot(engine, ladder_id, "house-greedy", "builtin:greedy")
    rng = random.Random(7)
    # not connected: the matchmaker cannot seat it (and has no one else to pair)
    assert fill_queues(engine, lambda _m: None, target_depth=3, ladder_ids=[ladder_id], rng=rng) == []

    referee.start_bot(token, "far-away")
    joined = wait_for(lambda: referee.lobby(remote_id), "the remote bot in the lobby")
    assert joined.games == 0 and joined.name == "far-away" and joined.bot_name == "random"
    # the executor's view of the lobby is cached for a second
    planned = wait_for(
        lambda: fill_queues(engine, lambda _m: None, target_depth=3, ladder_ids=[ladder_id], rng=rng),
        "the matchmaker to pair the remote bot",
    )
    assert len(planned) == 3
    runs = [run_match(referee.db_url, m, "w1") for m in planned]
    assert [r.status for r in runs] == ["recorded"] * 3, runs

    # a fourth match, against a hosted bot launched by the executor on the same referee
    other = _ladder(engine, "remote-vs-hosted")
    join_ladder(engine, other, remote_id)
    _, hosted_version, _ = _bot(engine, other, "house-hosted", RANDOM_BOT)
    with engine.connect() as conn:
        remote_version = conn.execute(
            sa.text("SELECT id FROM bot_versions WHERE bot_id = :b"), {"b": remote_id}
        ).scalar_one()
    fourth = enqueue_match(engine, other, [hosted_version, remote_version], seed=3)
    assert run_match(referee.db_url, fourth, "w1").status == "recorded"

    _assert_recorded_once(engine, [*planned, fourth])
    for m in [*planned, fourth]:  # a rerun changes nothing
        assert run_match(referee.db_url, m, "w2").status == "already_recorded"
    after = referee.lobby(remote_id)
    assert after is not None
    assert after.connection_id == joined.connection_id and after.games == 4  # one stream throughout
    assert referee.bot_log("far-away").count("waiting for matches") == 1
    with engine.connect() as conn:
        data = conn.execute(sa.select(replays.c.data).where(replays.c.match_id == fourth)).scalar_one()
    seats = loads(gzip.decompress(data))["seats"]
    assert [s["kind"] for s in seats] == ["hosted", "remote"]
    assert seats[1]["bot_id"] == remote_id and seats[1]["client_name"] == "random"


@pytest.mark.slow
def test_matches_waiting_for_a_busy_remote_bot_are_played_in_turn(referee: RefereeProcess) -> None:
    engine = referee.engine
    ladder_id = _ladder(engine, "remote-queue")
    remote_id, remote_version, token = _bot(engine, ladder_id, "queued-bot", REMOTE)
    _, slow_a, _ = _bot(engine, ladder_id, "house-a", "builtin:random?think_ms=5")
    _, slow_b, _ = _bot(engine, ladder_id, "house-b", "builtin:random?think_ms=5")
    referee.start_bot(token, "queued-bot")
    wait_for(lambda: referee.lobby(remote_id), "the remote bot in the lobby")
    ids = [
        enqueue_match(engine, ladder_id, [remote_version, slow_a], seed=1),
        enqueue_match(engine, ladder_id, [slow_b, remote_version], seed=2),
    ]
    runs: list[MatchRun] = []
    threads = [
        threading.Thread(target=lambda m=m: runs.append(run_match(referee.db_url, m, f"w{m}"))) for m in ids
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(90)
    assert sorted(r.status for r in runs) == ["recorded", "recorded"], runs
    _assert_recorded_once(engine, ids)
    after = referee.lobby(remote_id)
    assert after is not None and after.games == 2 and after.queued == 0


@pytest.mark.slow
def test_a_remote_bot_killed_mid_match_forfeits_and_the_match_records_once(referee: RefereeProcess) -> None:
    engine = referee.engine
    ladder_id = _ladder(engine, "remote-killed")
    remote_id, remote_version, token = _bot(engine, ladder_id, "fragile", REMOTE)
    _, house, _ = _bot(engine, ladder_id, "house-slow", "builtin:random?think_ms=25")
    bot = referee.start_bot(token, "fragile")
    wait_for(lambda: referee.lobby(remote_id), "the remote bot in the lobby")
    match_id = enqueue_match(engine, ladder_id, [remote_version, house], seed=8)
    runs: list[MatchRun] = []
    worker = threading.Thread(target=lambda: runs.append(run_match(referee.db_url, match_id, "w1")))
    worker.start()
    try:
        playing = wait_for(lambda: (b := referee.lobby(remote_id)) is not None and b.match_id, "a match")
        wait_for(lambda: referee.match(playing).decisions >= 6, "some decisions")
        bot.kill()  # SIGKILL: the stream breaks mid-match
        bot.wait(10)
    finally:
        worker.join(60)
    assert runs and runs[0].status == "recorded", runs
    assert runs[0].detail.startswith("forfeit: seat 0 disconnected")
    _assert_recorded_once(engine, [match_id])
    assert run_match(referee.db_url, match_id, "w2").status == "already_recorded"
    with engine.connect() as conn:
        data = conn.execute(sa.select(replays.c.data).where(replays.c.match_id == match_id)).scalar_one()
        reason = conn.execute(sa.select(results.c.reason).where(results.c.match_id == match_id)).scalar_one()
    replay = loads(gzip.decompress(data))
    assert replay["seats"][0]["forfeit"].startswith("disconnected")
    assert replay["ended_by"] == "game_over" and reason.startswith("forfeit: seat 0 disconnected")
    assert referee.match(playing).seats[0].forfeited
    assert referee.lobby(remote_id) is None  # gone from the lobby


@pytest.mark.slow
def test_the_sdk_reconnects_after_the_referee_restarts(tmp_path: Path) -> None:
    """A referee (in this process) goes away and comes back on the same port: the remote bot,
    started once, reconnects by itself (backoff) and is in the lobby again; a second stream for
    a connected bot is refused with ALREADY_EXISTS."""
    import asyncio

    from referee.server.lobby import RemoteIdentity
    from referee.server.server import RunningReferee, start

    token = "arena_" + secrets.token_urlsafe(16)

    def authenticate(given: str) -> RemoteIdentity | None:
        return RemoteIdentity(42, "returning") if given == token else None

    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    def call(coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, loop).result(30)

    def lobby(running: RunningReferee) -> list[int]:
        return [b.bot_id for b in running.referee.lobby.listing().bots]

    admin_token = secrets.token_urlsafe(16)
    running: RunningReferee = call(start(authenticator=authenticate, admin_token=admin_token))
    port = running.port
    log = tmp_path / "bot.log"
    with log.open("wb") as out:
        bot = subprocess.Popen(
            [sys.executable, str(EXAMPLE), "--referee", running.address, "--bot-token", token],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    try:
        wait_for(lambda: lobby(running) == [42], "the bot in the lobby")
        hello = bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name="twin", protocol=1))
        with (
            grpc.insecure_channel(running.address, options=channel_options()) as channel,
            pytest.raises(grpc.RpcError) as twin,
        ):
            list(play_call(channel)(iter([hello]), metadata=bearer(token)))
        assert twin.value.code() is grpc.StatusCode.ALREADY_EXISTS  # type: ignore[attr-defined]
        call(running.stop(grace=0.1))
        running = call(start(port=port, authenticator=authenticate, admin_token=admin_token))
        wait_for(lambda: lobby(running) == [42], "the bot back in the lobby", timeout=30)
        assert bot.poll() is None
        assert "reconnecting in" in log.read_text()
    finally:
        bot.kill()
        bot.wait(10)
        call(running.stop(grace=0.1))
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()
