"""The submission path on the worker side: qualification, the matchmaker's filter, bot logs —
and the README's "Submit your bot" walk-through, followed verbatim against real processes.

Qualification games are real: the candidate is an upload run in the sandbox, the reference bot
an in-process SDK client, both over the gRPC referee (``workers.qualification``).
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import random
import re
import secrets
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import psycopg
import pytest
import sqlalchemy as sa
from prometheus_client import REGISTRY
from psycopg import sql as psql
from sqlalchemy import Engine
from sqlalchemy.engine import make_url

from ladder.bots import REMOTE, add_bot_version, register_bot
from ladder.db import create_engine, normalize_url
from ladder.ladders import create_ladder, join_ladder
from ladder.match_queue import enqueue_match
from ladder.schema import bot_logs, bot_versions, bots, matches, rating_history
from tests.databases import DEFAULT_ADMIN_URL, qualification_of
from tests.doc_blocks import blocks, walkthrough_blocks
from workers import qualification
from workers.bot_commands import builtin_command
from workers.celery_app import CeleryDispatcher, make_app
from workers.executor import REFEREE_EXECUTOR_ENV, reset_referee_executor
from workers.local_pool import LocalPool
from workers.match_execution import lease_seconds, run_match
from workers.matchmaker import load_ladder_views
from workers.qualification import dispatch_due, due_versions, qualify_version
from workers.season import play_season

from .conftest import BUGGY_BOT_FILES, RANDOM_BOT_FILES, Broker, WorkerFarm, attach_files

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _fresh_executor(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv(REFEREE_EXECUTOR_ENV, raising=False)
    monkeypatch.delenv("ARENA_REFEREE_ADDR", raising=False)
    monkeypatch.delenv(qualification.GAMES_ENV, raising=False)
    reset_referee_executor()
    yield
    reset_referee_executor()


@pytest.fixture
def sqlite_engine(sqlite_url: str) -> Iterator[Engine]:
    eng = create_engine(sqlite_url)
    yield eng
    eng.dispose()


@pytest.fixture
def pg_engine(pg_url: str) -> Iterator[Engine]:
    eng = create_engine(pg_url)
    yield eng
    eng.dispose()


def _ladder_with_reference_bots(engine: Engine, name: str = "clank-2p") -> int:
    ladder_id = create_ladder(engine, name, "clank", 2, decision_ms=1000, bank_ms=30000, max_strikes=3)
    for strategy in ("random", "greedy"):
        reg = register_bot(engine, f"ref-{strategy}", "operator")
        add_bot_version(engine, reg.bot_id, "1", builtin_command(strategy))
        join_ladder(engine, ladder_id, reg.bot_id)
    return ladder_id


def _upload(
    engine: Engine, bot_id: int, version: str, command: str = "python main.py",
    files: dict[str, Path] | None = None,
) -> int:
    """A version as the upload endpoint makes it: files attached, qualification pending."""
    version_id = add_bot_version(engine, bot_id, version, command)
    if command != REMOTE:
        attach_files(engine, version_id, files or RANDOM_BOT_FILES)
    with engine.begin() as conn:
        conn.execute(
            sa.update(bot_versions).where(bot_versions.c.id == version_id).values(qualification="pending")
        )
    return version_id


def _qualifications_total(game: str, outcome: str) -> float:
    value = REGISTRY.get_sample_value("arena_qualifications_total", {"game": game, "outcome": outcome})
    return value or 0.0


def _seated_version(engine: Engine, ladder_id: int, bot_id: int) -> int | None:
    (view,) = load_ladder_views(engine, [ladder_id])
    return next((e.version_id for e in view.entrants if e.bot_id == bot_id), None)


# --- qualification ------------------------------------------------------------------------------


def test_a_good_upload_qualifies_and_only_then_is_seated(pg_url: str, pg_engine: Engine) -> None:
    ladder_id = _ladder_with_reference_bots(pg_engine)
    bot = register_bot(pg_engine, "newcomer", "alice")
    join_ladder(pg_engine, ladder_id, bot.bot_id)
    version_id = _upload(pg_engine, bot.bot_id, "1")

    assert _seated_version(pg_engine, ladder_id, bot.bot_id) is None  # pending: not seated
    assert due_versions(pg_engine) == [version_id]
    passed_before = _qualifications_total("clank", "passed")

    run = qualify_version(pg_url, version_id)

    assert run.status == "passed", run
    status, detail = qualification_of(pg_engine, version_id)
    assert status == "passed"
    assert [g["opponent"] for g in detail["games"]] == ["builtin:random", "builtin:greedy"]
    assert [g["seat"] for g in detail["games"]] == [0, 1]
    assert all(g["faults"] == [] and g["decisions"] > 0 for g in detail["games"])
    assert detail["lease_expires_at"] is None and "finished_at" in detail
    assert due_versions(pg_engine) == []
    assert _seated_version(pg_engine, ladder_id, bot.bot_id) == version_id
    assert _qualifications_total("clank", "passed") == passed_before + 1


@pytest.mark.parametrize(
    ("mode", "fault", "printed"),
    [
        ("crash", "forfeited: crashed: exit code 3", "crashing"),
        ("out-of-range", "index_out_of_range", "notice REJECTED"),
    ],
)
def test_a_faulty_upload_fails_with_its_reason_and_output_and_the_last_passed_version_plays_on(
    sqlite_url: str, sqlite_engine: Engine, mode: str, fault: str, printed: str
) -> None:
    ladder_id = _ladder_with_reference_bots(sqlite_engine)
    bot = register_bot(sqlite_engine, "wobbly", "alice")
    join_ladder(sqlite_engine, ladder_id, bot.bot_id)
    good = _upload(sqlite_engine, bot.bot_id, "1")
    assert qualify_version(sqlite_url, good).status == "passed"
    bad = _upload(sqlite_engine, bot.bot_id, "2", f"python main.py --mode {mode}", BUGGY_BOT_FILES)

    run = qualify_version(sqlite_url, bad)

    assert run.status == "failed"
    status, detail = qualification_of(sqlite_engine, bad)
    assert status == "failed"
    assert fault in detail["reason"] and detail["reason"].startswith("game 1 of 2")
    assert len(detail["games"]) == 1  # the first faulty game ends it
    assert any(fault in f for f in detail["games"][0]["faults"])
    assert printed in detail["log_excerpt"]
    if mode == "crash":  # it crashes at its 5th decision: its own 4 are counted, not the match's
        assert detail["games"][0]["decisions"] == 4, detail
        assert "after 4 decisions)" in detail["reason"] and "(step " in detail["reason"], detail["reason"]
    # the newest version that passed is the one the matchmaker seats
    assert _seated_version(sqlite_engine, ladder_id, bot.bot_id) == good
    assert due_versions(sqlite_engine) == []


#: a bot that fills its memory before it ever connects (the sandbox's limit ends it)
HOARDING_BOT = "hoard = []\nwhile True:\n    hoard.append(bytearray(8 << 20))\n"


def test_a_failed_qualification_names_the_step_the_limit_and_keeps_its_replay(
    sqlite_url: str, sqlite_engine: Engine, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """"crashed: exit code 137" alone named neither the memory limit nor that the bot never
    decided anything ("forfeited (46 decisions)": the match's count); the game was not kept."""
    from ladder.schema import qualification_replays
    from referee.replay import loads

    monkeypatch.setenv("ARENA_SANDBOX_MEMORY_MB", "96")
    (tmp_path / "main.py").write_text(HOARDING_BOT)
    bot = register_bot(sqlite_engine, "hoarder", "alice")
    version_id = _upload(sqlite_engine, bot.bot_id, "1", files={"main.py": tmp_path / "main.py"})

    assert qualify_version(sqlite_url, version_id).status == "failed"

    _, detail = qualification_of(sqlite_engine, version_id)
    (game,) = detail["games"]
    assert game["decisions"] == 0 and game["killed_for"] == "memory limit of 96 MB", game
    reason = detail["reason"]
    assert reason.startswith("game 1 of 2: forfeited: crashed: exit code 137, killed at its sandbox's "
                             "memory limit of 96 MB (workers/SANDBOX.md, Limits) (step "), reason
    assert reason.endswith(", before its first decision)"), reason
    assert detail["replay"]["game"] == 1 and detail["replay"]["seat"] == game["seat"]
    with sqlite_engine.connect() as conn:
        kept = conn.execute(sa.select(qualification_replays)).one()
    replay = loads(kept.data)
    assert kept.version_id == version_id and kept.seat == game["seat"]
    assert replay["seats"][game["seat"]]["forfeit"] == "crashed: exit code 137"
    assert any(step.get("forfeit") == game["seat"] for step in replay["steps"])


def test_a_version_is_qualified_by_one_worker_at_a_time(sqlite_url: str, sqlite_engine: Engine) -> None:
    bot = register_bot(sqlite_engine, "racer", "alice")
    version_id = _upload(sqlite_engine, bot.bot_id, "1")
    barrier = threading.Barrier(3)
    runs: list[qualification.QualificationRun] = []

    def contender(worker: str) -> None:
        barrier.wait()
        runs.append(qualify_version(sqlite_url, version_id, worker, games=1))

    threads = [threading.Thread(target=contender, args=(f"w{i}",)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert sorted(r.status for r in runs) == ["not_claimed", "not_claimed", "passed"]
    assert qualification_of(sqlite_engine, version_id)[1]["attempt"] == 1


def test_a_dead_workers_qualification_is_retried_once_its_lease_runs_out(
    db_url: str, engine: Engine
) -> None:
    bot = register_bot(engine, "orphan", "alice")
    version_id = _upload(engine, bot.bot_id, "1")
    now = datetime.now(UTC)
    # a worker claims it and dies at once: it never renews the lease
    assert qualification._claim(engine, version_id, "dead-worker", now) is not None
    assert qualification_of(engine, version_id)[0] == "running"
    assert due_versions(engine, now) == []  # its lease still runs
    assert qualify_version(db_url, version_id, "eager", games=1).status == "not_claimed"

    later = now + timedelta(seconds=lease_seconds() + 1)
    assert due_versions(engine, later) == [version_id]
    # backdate the dead worker's lease instead of waiting for it
    with engine.begin() as conn:
        text = conn.execute(
            sa.select(bot_versions.c.qualification_detail).where(bot_versions.c.id == version_id)
        ).scalar_one()
        detail = json.loads(text)
        detail["lease_expires_at"] = (now - timedelta(seconds=1)).isoformat()
        conn.execute(
            sa.update(bot_versions)
            .where(bot_versions.c.id == version_id)
            .values(qualification_detail=json.dumps(detail))
        )

    run = qualify_version(db_url, version_id, "rescuer", games=1)

    assert run.status == "passed"
    status, final = qualification_of(engine, version_id)
    assert status == "passed" and final["attempt"] == 2 and final["worker"] == "rescuer"
    assert "lease" in final["previous_attempt"]


def test_a_version_whose_workers_keep_dying_fails_after_the_last_attempt(
    sqlite_url: str, sqlite_engine: Engine
) -> None:
    bot = register_bot(sqlite_engine, "cursed", "alice")
    version_id = _upload(sqlite_engine, bot.bot_id, "1")
    past = datetime.now(UTC) - timedelta(hours=1)
    for attempt in range(qualification.MAX_ATTEMPTS):  # each claim, then its worker dies
        moment = past + attempt * timedelta(seconds=lease_seconds() + 1)
        assert qualification._claim(sqlite_engine, version_id, f"dies-{attempt}", moment) is not None
    run = qualify_version(sqlite_url, version_id, games=1)
    assert run.status == "failed"
    status, detail = qualification_of(sqlite_engine, version_id)
    assert status == "failed" and "did not finish in 3 attempts" in detail["reason"]
    assert detail["games"] == []  # no game was played for it


def test_when_the_platform_cannot_play_the_version_waits_and_is_tried_again(
    sqlite_url: str, sqlite_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = register_bot(sqlite_engine, "patient", "alice")
    version_id = _upload(sqlite_engine, bot.bot_id, "1")
    monkeypatch.setenv(REFEREE_EXECUTOR_ENV, "no_such_module_for_arena:create")
    reset_referee_executor()
    retries_before = _qualifications_total("clank", "retry")

    run = qualify_version(sqlite_url, version_id, games=1)

    assert run.status == "pending"
    assert _qualifications_total("clank", "retry") == retries_before + 1
    status, detail = qualification_of(sqlite_engine, version_id)
    assert status == "pending" and "not your" not in detail["reason"]
    assert "ExecutorUnavailable" in detail["platform_errors"][0]
    retry_after = datetime.fromisoformat(detail["retry_after"])
    assert due_versions(sqlite_engine) == []  # not before retry_after
    assert due_versions(sqlite_engine, retry_after + timedelta(seconds=1)) == [version_id]

    # the platform is back: the next attempt plays
    monkeypatch.delenv(REFEREE_EXECUTOR_ENV)
    reset_referee_executor()
    with sqlite_engine.begin() as conn:
        detail["retry_after"] = (datetime.now(UTC) - timedelta(seconds=1)).isoformat()
        conn.execute(
            sa.update(bot_versions)
            .where(bot_versions.c.id == version_id)
            .values(qualification_detail=json.dumps(detail))
        )
    assert qualify_version(sqlite_url, version_id, games=1).status == "passed"
    assert qualification_of(sqlite_engine, version_id)[1]["attempt"] == 2


def test_a_remote_version_never_passes_unplayed(sqlite_url: str, sqlite_engine: Engine) -> None:
    """No referee holds the bot's stream (none is configured): the version waits, unclaimed and
    never due; its games are played once it connects (tests/referee/test_remote.py)."""
    bot = register_bot(sqlite_engine, "faraway", "alice")
    version_id = _upload(sqlite_engine, bot.bot_id, "1", REMOTE)
    assert due_versions(sqlite_engine) == []
    run = qualify_version(sqlite_url, version_id)
    assert run.status == "not_claimed" and "waiting for the bot to connect" in run.reason
    assert qualification_of(sqlite_engine, version_id) == ("pending", {})


def test_the_embedded_season_qualifies_pending_uploads(sqlite_url: str, sqlite_engine: Engine) -> None:
    ladder_id = _ladder_with_reference_bots(sqlite_engine)
    bot = register_bot(sqlite_engine, "embedded", "alice")
    join_ladder(sqlite_engine, ladder_id, bot.bot_id)
    version_id = _upload(sqlite_engine, bot.bot_id, "1")
    with LocalPool(sqlite_url, 2) as pool:
        play_season(sqlite_engine, pool, [ladder_id], 2, sweep_seconds=0.5, timeout=120)
    assert [q.version_id for q in pool.qualifications] == [version_id]
    assert qualification_of(sqlite_engine, version_id)[0] == "passed"


def test_an_alien_upload_qualifies_against_the_coop_and_search_bots(
    sqlite_url: str, sqlite_engine: Engine
) -> None:
    bot = register_bot(sqlite_engine, "ripley", "alice", game="alien")
    version_id = _upload(sqlite_engine, bot.bot_id, "1")  # the random bot plays any game
    assert qualify_version(sqlite_url, version_id).status == "passed"
    _, detail = qualification_of(sqlite_engine, version_id)
    # Alien's reference bots in turn (coop, then the search bot, which plays as itself: issue 24)
    played = [(g["opponent"], g["seat"]) for g in detail["games"]]
    assert played == [("builtin:coop", 0), ("builtin:ismcts", 1)]



SLOW_BOT = """
import random
import time

from arena_bot import Bot, run


class Slow(Bot):
    def act(self, observation, legal_actions):
        time.sleep(0.01)  # a qualification lasts long enough to kill its worker in the middle
        return random.randrange(len(legal_actions))


raise SystemExit(run(Slow()))
"""


@pytest.mark.slow
@pytest.mark.integration
def test_a_worker_killed_mid_qualification_leaves_the_version_to_the_next_worker(
    worker_farm: WorkerFarm, broker: Broker, pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_LEASE_SECONDS", worker_farm.env["ARENA_LEASE_SECONDS"])
    engine = create_engine(pg_url)
    dispatcher = CeleryDispatcher(make_app(broker.url, broker.queue), broker.queue, broker.url)
    try:
        (tmp_path / "slow_bot.py").write_text(SLOW_BOT)
        bot = register_bot(engine, "slowpoke", "alice")
        version_id = _upload(engine, bot.bot_id, "1", files={"main.py": tmp_path / "slow_bot.py"})
        (victim,) = worker_farm.start(1)
        assert dispatch_due(engine, dispatcher.dispatch_qualification) == [version_id]
        deadline = time.monotonic() + 60
        while qualification_of(engine, version_id)[0] != "running":
            assert time.monotonic() < deadline, worker_farm.log_text()
            time.sleep(0.1)
        time.sleep(1.0)  # well inside its first game
        os.killpg(victim.pid, signal.SIGKILL)  # the whole worker: main process and pool child
        victim.wait(10)
        status, detail = qualification_of(engine, version_id)
        assert status == "running" and detail["games"] == []  # killed mid-qualification

        worker_farm.start(1)
        deadline = time.monotonic() + 150
        while status in ("pending", "running"):  # the sweeper's part: send what is due
            assert time.monotonic() < deadline, worker_farm.log_text()
            dispatch_due(engine, dispatcher.dispatch_qualification)
            time.sleep(0.5)
            status, detail = qualification_of(engine, version_id)
        assert status == "passed", detail
        assert detail["attempt"] == 2 and "lease" in detail["previous_attempt"]
        assert len(detail["games"]) == 2
    finally:
        dispatcher.close()
        engine.dispose()

# --- bot logs ------------------------------------------------------------------------------------


def test_a_hosted_seats_output_is_stored_for_its_owner(sqlite_url: str, sqlite_engine: Engine) -> None:
    ladder_id = _ladder_with_reference_bots(sqlite_engine)
    bot = register_bot(sqlite_engine, "talker", "alice")
    hosted = _upload(sqlite_engine, bot.bot_id, "1", "python main.py --mode ok", BUGGY_BOT_FILES)
    with sqlite_engine.connect() as conn:
        builtin_version = conn.execute(
            sa.select(bot_versions.c.id).where(bot_versions.c.command == builtin_command("random"))
        ).scalar_one()
    match_id = enqueue_match(sqlite_engine, ladder_id, [builtin_version, hosted], random.randrange(2**31))

    assert run_match(sqlite_url, match_id).status == "recorded"

    with sqlite_engine.connect() as conn:
        rows = conn.execute(sa.select(bot_logs).where(bot_logs.c.match_id == match_id)).all()
    assert [(r.seat, r.bot_id) for r in rows] == [(1, bot.bot_id)]  # the built-in seat has none
    text = gzip.decompress(rows[0].data).decode()
    assert rows[0].bytes == len(text.encode()) and not rows[0].truncated
    assert "game_end" in text  # buggy_bot prints what the referee told it
    # recording again (a retried task) stores nothing twice
    assert run_match(sqlite_url, match_id).status == "already_recorded"
    with sqlite_engine.connect() as conn:
        count = conn.execute(sa.select(sa.func.count()).select_from(bot_logs)).scalar_one()
    assert count == 1


# --- the README's walk-through, verbatim ---------------------------------------------------------

README_PORT = "8000"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def empty_pg_database() -> Iterator[str]:
    """A PostgreSQL database with nothing in it, not even the schema (the walk-through migrates)."""
    admin_url = os.environ.get("ARENA_TEST_POSTGRES", DEFAULT_ADMIN_URL)
    name = f"arena_walk_{secrets.token_hex(6)}"
    with psycopg.connect(admin_url, autocommit=True, connect_timeout=5) as admin:
        admin.execute(psql.SQL("CREATE DATABASE {}").format(psql.Identifier(name)))
    url = make_url(normalize_url(admin_url)).set(database=name).render_as_string(hide_password=False)
    try:
        yield url
    finally:
        with psycopg.connect(admin_url, autocommit=True, connect_timeout=5) as admin:
            admin.execute(psql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(psql.Identifier(name)))


def _stop_group(proc: subprocess.Popen[bytes]) -> None:
    """End a block's process group: its background servers and their children (SIGTERM, then
    SIGKILL for whatever is left after 20 s)."""
    for sig, grace in ((signal.SIGTERM, 20.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            proc.poll()  # reap the leader, or the group never empties
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.2)
    proc.wait(5)


def _wait_for_api(server: str, seconds: float, log: Path) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{server}/api/ladders", timeout=2).status_code == 200:
                return
        time.sleep(0.2)
    pytest.fail(f"the API did not answer within {seconds:.0f} s:\n{log.read_text()[-3000:]}")


@pytest.mark.slow
@pytest.mark.integration
def test_the_readme_walkthrough_runs_from_an_empty_database_to_a_first_rated_match(
    empty_pg_database: str, broker: Broker, tmp_path: Path
) -> None:
    readme = walkthrough_blocks("README.md")
    assert list(readme) == ["operator", "operator-api", "user", "wait"]
    port = str(_free_port())
    server = f"http://127.0.0.1:{port}"
    work = tmp_path / "work"
    work.mkdir()
    env = {
        **os.environ,
        "DATABASE_URL": empty_pg_database,
        "BROKER_URL": broker.url,
        "ARENA_QUEUE": broker.queue,
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    env.pop("ARENA_API_KEY", None)
    env.pop("ARENA_SERVER", None)
    # the one change: the port, so the test never meets another server on 8000
    scripts = {name: script.replace(README_PORT, port) for name, script in readme.items()}
    servers_log = tmp_path / "servers.log"
    with servers_log.open("wb") as out:
        servers = subprocess.Popen(
            ["bash", "-euo", "pipefail", "-c", scripts["operator"]],
            cwd=work, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )
    transcript: list[str] = []

    def run(name: str, script: str, cwd: Path) -> str:
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=cwd, env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
        transcript.append(f"$ [{name}, in {cwd.relative_to(tmp_path)}]\n{done.stdout}")
        assert done.returncode == 0, "\n".join(transcript) + servers_log.read_text()[-4000:]
        return done.stdout

    # a JavaScript author on the same ladder: the JavaScript kit's bot, saved in a folder of its
    # own as its README says, submitted with that README's block from that folder, while Alice
    # waits for hers (the same login: bot authors share one server)
    js_readme = "bots/javascript/README.md"
    js_folder = work / "my-bot"
    js_folder.mkdir()
    (js_folder / "main.js").write_text(next(b for b in blocks(js_readme) if b.info == "js").text)
    js_log = tmp_path / "js-submit.log"
    js_submit = None
    try:
        _wait_for_api(server, 60, servers_log)
        for name in ("operator-api", "user"):
            run(name, scripts[name], work)
        with js_log.open("w") as js_out:
            js_submit = subprocess.Popen(
                ["bash", "-euo", "pipefail", "-c", walkthrough_blocks(js_readme)["submit"]],
                cwd=js_folder, env=env, stdout=js_out, stderr=subprocess.STDOUT, text=True,
            )
        waited = run("wait", scripts["wait"], work)
        js_code = js_submit.wait(600)
        transcript.append(f"$ [{js_readme} submit, in work/my-bot]\n{js_log.read_text()}")
        assert js_code == 0, "\n".join(transcript) + servers_log.read_text()[-4000:]
    finally:
        if js_submit is not None and js_submit.poll() is None:
            js_submit.kill()
            js_submit.wait(10)
        _stop_group(servers)

    # the rerun line `arena bot replay` printed, run as printed from where Alice works on her
    # bot: its folder, where `python main.py` is her bot
    (rerun_line,) = [line.strip() for line in waited.splitlines()
                     if line.strip().startswith("arena replay rerun ")]
    rerun = run("the printed rerun line", rerun_line, work / "alice-bot")
    # exit 0 is not enough: a bot that could not start is reported as "your bot: forfeited"
    assert re.search(r"^  your bot: \[\d+\] ", rerun, re.M), rerun

    out = "\n".join(transcript)
    print(out)
    assert "logged in to" in out and "as alice" in out
    assert "qualification pending" in out
    assert "passed" in out and "played 2 games against the reference bot without a fault" in out
    assert "playing seat" in out  # the bot's own output, from its latest match's log
    assert "re-simulated" in out and re.search(r"arena replay show \S+/match-\d+\.replay\.json\.gz", out)
    (downloaded,) = work.glob("match-*.replay.json.gz")
    assert downloaded.read_bytes()[:2] == b"\x1f\x8b"
    credentials = tmp_path / "config" / "arena" / "credentials.json"
    assert stat.S_IMODE(credentials.stat().st_mode) == 0o600
    assert stat.S_IMODE((work / "alice.key").stat().st_mode) == 0o600

    assert "my-bot is on ladder clank-2p" in out  # the JavaScript bot, rated (--wait rated exit 0)
    engine = create_engine(empty_pg_database)
    try:
        for name in ("alice-bot", "my-bot"):  # the README's Python bot, the JS README's bot
            with engine.connect() as conn:
                version = conn.execute(
                    sa.select(bot_versions.c.id, bot_versions.c.created_at, bot_versions.c.qualification,
                              bot_versions.c.qualification_detail, bot_versions.c.command)
                    .join(bots, bots.c.id == bot_versions.c.bot_id)
                    .where(bots.c.name == name)
                ).one()
                first = conn.execute(
                    sa.select(matches.c.id, matches.c.started_at, matches.c.finished_at)
                    .join(rating_history, rating_history.c.match_id == matches.c.id)
                    .join(bots, bots.c.id == rating_history.c.bot_id)
                    .where(bots.c.name == name)
                    .order_by(matches.c.finished_at)
                    .limit(1)
                ).one()
            assert version.qualification == "passed", (name, version.qualification_detail)
            detail = json.loads(version.qualification_detail)
            qualified_at = datetime.fromisoformat(detail["finished_at"])
            qualification_started = datetime.fromisoformat(detail["started_at"])
            figures = {
                "upload_to_first_rated_match_s": (first.finished_at - version.created_at).total_seconds(),
                "upload_to_qualified_s": (qualified_at - version.created_at).total_seconds(),
                "qualification_s": (qualified_at - qualification_started).total_seconds(),
                "first_match_s": (first.finished_at - first.started_at).total_seconds(),
            }
            print(f"walkthrough figures, {name} ({version.command}):",
                  json.dumps({k: round(v, 2) for k, v in figures.items()}))
            assert figures["upload_to_first_rated_match_s"] > 0
    finally:
        engine.dispose()

