"""Hosted bots written to misbehave, played through the real ladder path (issue 8, item 5).

A real Celery worker process (concurrency 2) on Redis and PostgreSQL, started with
DATABASE_URL, BROKER_URL, ARENA_ADMIN_TOKEN and a canary ``*_SECRET`` in its environment, plays
ladder matches whose hosted seats are uploaded versions run in the sandbox. The attacker
(`sandbox_bots/attacker/main.py`) makes its attempts at start, reports each as a JSON line in its
captured log (the ``bot_logs`` row its owner reads), then plays on (or hangs, or leaves). For each
attack the tests check: the attempt failed or was cut at its limit; the match finished with a
documented outcome; no process of any bot survives (no process of the sandbox uid block the
worker was given); the concurrent well-behaved match and the next match played normally; and
nothing in the database changed but those matches' own rows. A cheaper in-process run on SQLite
checks the database file itself can't be read.

Limits are lowered in the worker's environment (``ARENA_SANDBOX_*``) so the attacks hit them fast.
"""

from __future__ import annotations

import errno
import gzip
import json
import os
import re
import secrets
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import Engine

from ladder.bots import register_bot
from ladder.db import create_engine
from ladder.match_queue import enqueue_match
from ladder.schema import accounts, api_keys, bot_logs, matches, metadata, replays, results
from referee.replay import loads
from workers.celery_app import CeleryDispatcher, make_app
from workers.executor import REFEREE_EXECUTOR_ENV, reset_referee_executor
from workers.match_execution import run_match
from workers.sandbox.staging import stage_root
from workers.worker_processes import start_worker

from .conftest import REPO, Broker, WorkerFarm, assert_ladder_consistent, make_ladder, pack_files

pytestmark = [pytest.mark.slow, pytest.mark.integration]

BOTS = Path(__file__).resolve().parent / "sandbox_bots"
ATTACKER_FILES = {"main.py": BOTS / "attacker" / "main.py"}
PYTHON_FILES = {"main.py": BOTS / "python_bot" / "main.py"}
JS_FILES = {"main.js": BOTS / "js_bot" / "main.js"}

MIB = 1024 * 1024
#: small limits, so every attack reaches its limit in a moment
LIMITS = {"memory_mb": 256, "pids": 64, "scratch_mb": 16, "file_size_mb": 4, "output_kb": 128}
#: the uids the test workers' sandboxes get: a block of 200 of these per test. Not the default
#: range (620000..629999, workers/sandbox/uids.py), where other sessions on this machine run their
#: sandboxes: a scan of the block finds this test's bots and nothing else
UID_RANGE = (630000, 640000)
#: what a bot's environment may hold (workers/SANDBOX.md)
BOT_ENV = {
    "ARENA_REFEREE", "ARENA_TOKEN", "ARENA_SCRATCH", "PATH", "HOME", "TMPDIR", "LANG", "PYTHONPATH",
    "PYTHONDONTWRITEBYTECODE", "NODE_PATH", "ARENA_PROTO_DIR",
    "PWD", "SHLVL", "_",  # set by the shell that runs the bot's command line
}  # fmt: skip
#: the attempts the full attacker makes; all must fail (ok false) but these
EXPECTED_OK = {"control: write /scratch/ok": True}


# --- helpers (also used by test_sandbox.py) ----------------------------------------------------


def uid_block() -> tuple[int, int]:
    """A block of 200 sandbox uids for one test's worker (ARENA_SANDBOX_UID_BASE/COUNT)."""
    base = UID_RANGE[0] + 200 * secrets.randbelow((UID_RANGE[1] - UID_RANGE[0]) // 200)
    return base, base + 200


def processes_of_uids(lo: int, hi: int) -> list[str]:
    """Every live process whose real uid is in [lo, hi): ``pid uid name`` for each."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            status = Path(entry.path, "status").read_text()
        except OSError:
            continue  # gone meanwhile
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        uid = int(fields["Uid"].split()[0])
        state = fields.get("State", "").split()
        if lo <= uid < hi and state[:1] != ["Z"]:
            found.append(f"{entry.name} uid={uid} {fields.get('Name', '').strip()}")
    return found


def reachable_dir(prefix: str) -> Path:
    """A fresh folder any user can reach (the sandbox's own uid mounts what is in it)."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    path.chmod(0o755)
    return path


def attack_lines(log: bytes) -> dict[str, dict[str, Any]]:
    """The attacker's reports in a captured log, by attack name."""
    found = {}
    for line in log.decode(errors="replace").splitlines():
        if line.startswith('{"attack"'):
            record = json.loads(line)
            found[record["attack"]] = record
    return found


def check_lines(log: bytes) -> list[dict[str, Any]]:
    """The well-behaved bots' ``{"check": ..., "ok": ...}`` lines."""
    return [
        json.loads(line) for line in log.decode(errors="replace").splitlines() if line.startswith('{"check"')
    ]


def replay_of(engine: Engine, match_id: int) -> dict[str, Any]:
    """The recorded replay of a match."""
    with engine.connect() as conn:
        data = conn.execute(sa.select(replays.c.data).where(replays.c.match_id == match_id)).scalar_one()
    return loads(gzip.decompress(data))


def result_of(engine: Engine, match_id: int) -> sa.Row[Any]:
    """The recorded result row of a match."""
    with engine.connect() as conn:
        return conn.execute(sa.select(results).where(results.c.match_id == match_id)).one()


def bot_log(engine: Engine, match_id: int, seat: int) -> bytes:
    """A hosted seat's captured output as its owner reads it (the bot_logs row)."""
    with engine.connect() as conn:
        data = conn.execute(
            sa.select(bot_logs.c.data).where(bot_logs.c.match_id == match_id, bot_logs.c.seat == seat)
        ).scalar_one()
    return gzip.decompress(data)


def assert_no_secret(text: bytes | str, secrets_: Mapping[str, str]) -> None:
    """No secret value, nor the name of the variable holding it, appears in `text`."""
    body = text.decode(errors="replace") if isinstance(text, bytes) else text
    for name, value in secrets_.items():
        assert value not in body, f"the value of {name} leaked to the bot"
        assert name not in body, f"{name} leaked to the bot"


def snapshot(engine: Engine) -> dict[str, set[tuple[Any, ...]]]:
    """Every row of every table (binary columns as their length), for a before/after diff."""
    out: dict[str, set[tuple[Any, ...]]] = {}
    with engine.connect() as conn:
        for table in metadata.sorted_tables:
            rows = set()
            for row in conn.execute(sa.select(table)):
                rows.add(
                    tuple(
                        len(v)
                        if isinstance(v, bytes | memoryview)
                        else json.dumps(v, sort_keys=True, default=str)
                        for v in row
                    )
                )
            out[table.name] = rows
    return out


def assert_only_match_rows_changed(
    before: dict[str, set[tuple[Any, ...]]], after: dict[str, set[tuple[Any, ...]]], match_ids: set[int]
) -> None:
    """Between the two snapshots only the matches' own rows changed: their status, their result,
    replay, logs and rating rows, and the ratings of the bots that played in them."""
    ids = {json.dumps(m) for m in match_ids}
    match_table_keys = {"matches": "id", "results": "match_id", "replays": "match_id",
                        "bot_logs": "match_id", "rating_history": "match_id",
                        "scenario_rating_history": "match_id"}  # fmt: skip
    for table in metadata.sorted_tables:
        gone = before[table.name] - after[table.name]
        new = after[table.name] - before[table.name]
        if table.name in match_table_keys:
            col = [c.name for c in table.columns].index(match_table_keys[table.name])
            strays = {r for r in gone | new if r[col] not in ids}
            assert not strays, f"{table.name}: rows of other matches changed: {strays}"
        elif table.name == "ladder_entries":
            # ratings move; the entries (ladder, bot, joined) do not
            cols = [c.name for c in table.columns]
            keep = [cols.index(n) for n in ("ladder_id", "bot_id", "joined_at")]
            assert {tuple(r[i] for i in keep) for r in gone} == {tuple(r[i] for i in keep) for r in new}
        else:
            assert not gone and not new, f"{table.name} changed: -{gone} +{new}"


def wait_done(
    engine: Engine, match_ids: list[int], farm: WorkerFarm, uids: tuple[int, int], timeout: float = 90
) -> int:
    """Wait for the matches to be recorded; the most sandbox processes seen at once meanwhile."""
    deadline = time.monotonic() + timeout
    most = 0
    while True:
        most = max(most, len(processes_of_uids(*uids)))
        with engine.connect() as conn:
            statuses = (
                conn.execute(sa.select(matches.c.status).where(matches.c.id.in_(match_ids))).scalars().all()
            )
        if all(s in ("done", "failed") for s in statuses):
            return most
        assert time.monotonic() < deadline, f"matches {match_ids} not recorded: {statuses}\n{farm.log_text()}"
        time.sleep(0.1)


# --- the ladder path: a real worker ------------------------------------------------------------


@dataclass
class Stack:
    """A Celery worker (concurrency 2) on PostgreSQL and Redis, with secrets in its environment."""

    engine: Engine
    dispatcher: CeleryDispatcher
    farm: WorkerFarm
    secrets: dict[str, str]
    uids: tuple[int, int]
    files_root: Path


@pytest.fixture
def stack(worker_farm: WorkerFarm, broker: Broker, pg_url: str, tmp_path: Path) -> Iterator[Stack]:
    uids = uid_block()
    files_root = reachable_dir("arena-attack-files-")
    canary = {
        "ARENA_ADMIN_TOKEN": secrets.token_hex(16),
        "ARENA_CANARY_SECRET": secrets.token_hex(16),
        "PAYMENTS_WEBHOOK_SECRET": secrets.token_hex(16),  # a secret by any name stays out
    }
    worker_farm.env.update(
        {
            **canary,
            **{f"ARENA_SANDBOX_{k.upper()}": str(v) for k, v in LIMITS.items()},
            "ARENA_SANDBOX_UID_BASE": str(uids[0]),
            "ARENA_SANDBOX_UID_COUNT": str(uids[1] - uids[0]),
            "ARENA_BOT_FILES_DIR": str(files_root),
            "ARENA_BOT_LOG_DIR": str(tmp_path / "bot-logs"),
            # no lease is lost here: a loaded machine (2 cores, a fork bomb) may renew late
            "ARENA_LEASE_SECONDS": "30",
        }
    )
    engine = create_engine(pg_url)
    dispatcher = CeleryDispatcher(make_app(broker.url, broker.queue), broker.queue, broker.url)
    try:
        yield Stack(
            engine,
            dispatcher,
            worker_farm,
            {**canary, "DATABASE_URL": pg_url, "BROKER_URL": broker.url},
            uids,
            files_root,
        )
    finally:
        dispatcher.close()
        engine.dispose()
        import shutil

        shutil.rmtree(files_root, ignore_errors=True)


def _bystanders(engine: Engine, url: str) -> None:
    """Rows the matches must not touch: an account with an API key, and a rated built-in match on
    another ladder (its bots, ratings and rating history)."""
    with engine.begin() as conn:
        account = conn.execute(
            sa.insert(accounts).values(name="bystander", is_operator=True, created_at=sa.func.now())
        ).inserted_primary_key
        assert account is not None
        conn.execute(
            sa.insert(api_keys).values(
                account_id=account[0], key_hash=secrets.token_hex(32), prefix="byst", scopes="bots operator",
                rate_per_minute=60, created_at=sa.func.now(),
            )
        )  # fmt: skip
    register_bot(engine, "bystander-unranked", "someone")
    other = make_ladder(engine, ["builtin:random", "builtin:greedy"], name="bystanders-2p")
    match_id = enqueue_match(engine, other.ladder_id, other.version_ids, seed=1)
    run = run_match(url, match_id, "setup")
    assert run.status == "recorded", run


def test_attackers_on_the_ladder_fail_and_leave_nothing_behind(stack: Stack) -> None:
    engine, uids = stack.engine, stack.uids
    _bystanders(engine, stack.secrets["DATABASE_URL"])
    py_sha = pack_files(PYTHON_FILES).sha256
    neighbour = stack.files_root / py_sha / "main.py"  # where the worker unpacks the other seat's files
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    udp.setblocking(False)
    udp_port = udp.getsockname()[1]
    attacks = "env,read,mountinfo,net,write,fill_scratch,fork_bomb,memory,daemon,print"
    ladder = make_ladder(
        engine,
        [
            f"python main.py --attacks {attacks} --repo {REPO} --other {neighbour} --udp-port {udp_port}",
            "python main.py",  # 1: the attacker's opponent
            "python main.py",  # 2, 3: the concurrent well-behaved match (Python vs JavaScript)
            "node main.js",
            "python main.py --attacks daemon --then hang",  # 4: never connects
            "python main.py --attacks daemon --then exit",  # 5: daemonises and leaves
            "python main.py",  # 6, 7: their opponents
            "python main.py",
        ],
        name="sandbox-2p",
        files=[ATTACKER_FILES, PYTHON_FILES, PYTHON_FILES, JS_FILES, ATTACKER_FILES, ATTACKER_FILES,
               PYTHON_FILES, PYTHON_FILES],
    )  # fmt: skip
    v = ladder.version_ids
    attack, calm, sleeper, quitter, after = (
        enqueue_match(engine, ladder.ladder_id, seats, seed=i + 1)
        for i, seats in enumerate([(v[0], v[1]), (v[2], v[3]), (v[4], v[6]), (v[5], v[7]), (v[1], v[2])])
    )
    before = snapshot(engine)
    name, log_path = f"attack-{secrets.token_hex(3)}", stack.farm.logs / "attack.log"
    env, queue = stack.farm.env, stack.farm.queue
    proc = start_worker(env, queue, concurrency=2, name=name, log_path=log_path, cwd=REPO)
    stack.farm.procs.append(proc)

    # round 1: the attacker, and beside it on the same worker a well-behaved match
    stack.dispatcher.dispatch(attack)
    stack.dispatcher.dispatch(calm)
    seen = wait_done(engine, [attack, calm], stack.farm, uids)
    assert seen > 0  # the scan sees sandboxed processes while they run (so "none" below means none)
    assert processes_of_uids(*uids) == [], "a bot's process outlived its match"
    # round 2: a bot that never connects, and one that daemonises and exits, on the same worker
    stack.dispatcher.dispatch(sleeper)
    stack.dispatcher.dispatch(quitter)
    wait_done(engine, [sleeper, quitter], stack.farm, uids)
    assert processes_of_uids(*uids) == [], "a bot's process outlived its match"
    # round 3: the worker still plays
    stack.dispatcher.dispatch(after)
    wait_done(engine, [after], stack.farm, uids)
    assert processes_of_uids(*uids) == []
    assert proc.poll() is None, stack.farm.log_text()  # the worker itself survived all of it
    all_matches = [attack, calm, sleeper, quitter, after]
    assert_ladder_consistent(engine, ladder.ladder_id, all_matches)
    assert_only_match_rows_changed(before, snapshot(engine), set(all_matches))
    # the sandboxes' cgroups are gone with them
    leftovers = [
        p for d in ("memory", "pids", "cpuacct", "unified")
        for p in Path("/sys/fs/cgroup", d, "arena-sandbox").glob("seat*")
        if any(f"-{pid}-" in p.name for pid in _worker_pids(proc.pid))
    ]  # fmt: skip
    assert leftovers == []

    # --- the attacker's match ------------------------------------------------------------------
    assert result_of(engine, attack).reason == "finished"  # it played on after its attacks
    seats = replay_of(engine, attack)["seats"]
    box = seats[0]["sandbox"]
    log = bot_log(engine, attack, 0)
    assert_no_secret(log, stack.secrets)
    tried = attack_lines(log)
    expected = {
        "own environment", "read /etc/shadow", "read the repository", "read the repository's workers package",
        "read another bot's files", "scan /proc/*/environ",
        "connect tcp 127.0.0.1:5432", "connect tcp 127.0.0.1:6379", "connect tcp 1.1.1.1:443",
        f"send udp 127.0.0.1:{udp_port}", "send udp 8.8.8.8:53",
        "connect unix /var/run/postgresql/.s.PGSQL.5432",
        "network interfaces", "write /bot/pwned", "write /usr/pwned", "write /etc/pwned", "write /pwned",
        "write /dev/pwned", "write /run/arena/pwned", "write /opt/arena/python/arena_bot/pwned.py",
        "write /proc/pwned", f"write {REPO}/workers/pwned.py", "control: write /scratch/ok",
        "fill /scratch", "fork bomb", "allocate 2 GiB", "double-fork a daemon", "print 100 MB",
    }  # fmt: skip
    assert expected <= set(tried), sorted(expected - set(tried))
    succeeded = {
        name: r
        for name, r in tried.items()
        if r["ok"] != EXPECTED_OK.get(name, False) and r["ok"] is not None
    }
    assert not succeeded, succeeded
    # writes outside /scratch meet a read-only mount (not only file permissions: both must hold)
    for path in ("/bot", "/usr", "/etc", "", "/dev", "/run/arena", "/opt/arena/python/arena_bot"):
        record = tried[f"write {path}/pwned" if "arena_bot" not in path else f"write {path}/pwned.py"]
        assert record["errno"] == errno.EROFS, record
    assert tried[f"write {REPO}/workers/pwned.py"]["errno"] == errno.ENOENT  # no repository in there
    # the host's files exist (the reads failed because the sandbox hides them, not by accident)
    assert neighbour.is_file() and (REPO / "pyproject.toml").is_file()
    # no network: the host's PostgreSQL and Redis listen, but the bot reached neither, nor the host's UDP
    assert tried["connect tcp 127.0.0.1:5432"]["errno"] in (111, 101)
    with pytest.raises(BlockingIOError):
        udp.recv(100)
    udp.close()
    assert [line.split()[0] for line in tried["network interfaces"]["dev"].splitlines()[2:]] == ["lo:"]
    # its environment and every environ it could see hold nothing of the worker's
    assert set(tried["own environment"]["env"]) <= BOT_ENV
    assert "1" in tried["scan /proc/*/environ"]["environ"]  # /proc/1/environ was tried
    assert len(tried["scan /proc/*/environ"]["pids"]) < 10  # only its own processes are visible
    # limits: scratch, file size, processes, memory
    fill = tried["fill /scratch"]
    assert fill["written_bytes"] <= LIMITS["scratch_mb"] * MIB and "ENOSPC" in fill["errors"]
    assert "EFBIG" in fill["errors"]  # no file over file_size_mb
    assert 0 < tried["fork bomb"]["processes"] <= LIMITS["pids"]
    memory = tried["allocate 2 GiB"]
    assert memory["allocated_mb"] < LIMITS["memory_mb"] and memory["child"] == "signal 9"
    assert box["kind"] == "bubblewrap" and box.get("killed_for", "").startswith("memory limit"), box
    assert box["memory_peak_bytes"] <= LIMITS["memory_mb"] * MIB
    # 100 MB of output: all of it read (the bot was never blocked), only the cap kept
    assert box["output_bytes"] >= 100 * MIB and box["output_truncated"] is True
    assert len(log) <= LIMITS["output_kb"] * 1024 + 200
    assert log.rstrip().endswith(b"bytes written in all]")

    # what /proc/self/mountinfo shows: no path of the checkout, no host uid, nothing of the match;
    # each mount's source is a system path, a device, the staging folder, its own files' folder
    # or the referee's socket in a folder of a random name
    mountinfo = tried["read /proc/self/mountinfo"]["text"]
    assert str(REPO) not in mountinfo and not re.search(r"[ ,](uid|gid)=", mountinfo), mountinfo
    assert not [n for n in re.findall(r"\d+", mountinfo) if uids[0] <= int(n) < uids[1]], mountinfo
    own_files = f"{stack.files_root}/{pack_files(ATTACKER_FILES).sha256}"
    stage = str(stage_root())
    for line in mountinfo.splitlines():
        source = line.split()[3]
        assert (
            source == "/"
            or source.startswith(("/usr/", "/etc/"))
            or source in {"/usr", "/null", "/zero", "/full", "/random", "/urandom", "/tty"}
            or source.startswith((stage + "/runtime/", own_files))
            or re.fullmatch(r"/[\w/.-]*/arena-referee-\w{8}/referee\.sock", source)
        ), line
    # on the host, no other local user reads an uploaded bot's files (only the worker's user)
    as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "cat", str(neighbour)]
    peek = subprocess.run(as_nobody, capture_output=True, text=True, timeout=30)
    assert peek.returncode != 0 and "Permission denied" in peek.stderr, (peek.returncode, peek.stdout)
    assert neighbour.read_bytes() == PYTHON_FILES["main.py"].read_bytes()

    # --- the concurrent well-behaved match: Python vs JavaScript, unaffected ---------------------
    assert result_of(engine, calm).reason == "finished"
    calm_seats = replay_of(engine, calm)["seats"]
    assert [s["client_name"] for s in calm_seats] == ["well-behaved-python", "well-behaved-js"]
    assert all(s["sandbox"]["kind"] == "bubblewrap" and s["sandbox"]["cpu_ms"] > 0 for s in calm_seats)
    assert all(not s.get("incidents") and s.get("strikes", 0) == 0 for s in calm_seats)
    for seat in (0, 1):
        assert {"check": "write scratch", "ok": True} in check_lines(bot_log(engine, calm, seat))

    # --- the sleeper: forfeits as "never connected"; its sandbox ended with the match -----------
    assert result_of(engine, sleeper).reason == "forfeit: seat 0 never connected"
    sleeper_log = attack_lines(bot_log(engine, sleeper, 0))
    assert sleeper_log["attacks done"]["then"] == "hang"
    # --- the quitter: left a daemon and exited before connecting; the match went on ------------
    assert result_of(engine, quitter).reason == "forfeit: seat 0 exited before the game ended"
    assert "double-fork a daemon" in attack_lines(bot_log(engine, quitter, 0))
    # --- and the next match on the same worker played normally ---------------------------------
    assert result_of(engine, after).reason == "finished"


def _worker_pids(root: int) -> set[int]:
    """The worker's process and its pool children (the sandbox names its cgroups by their pid)."""
    pids = {root}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                stat = Path(entry.path, "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == root:
                pids.add(int(entry.name))
    return pids


# --- the cheaper case: in-process run_match on SQLite ---------------------------------------------


def test_on_sqlite_a_hosted_bot_cannot_read_the_database_file(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    files_root = reachable_dir("arena-attack-files-")
    canary = {"ARENA_CANARY_SECRET": secrets.token_hex(16), "ARENA_ADMIN_TOKEN": secrets.token_hex(16),
              "PAYMENTS_WEBHOOK_SECRET": secrets.token_hex(16), "DATABASE_URL": sqlite_url}  # fmt: skip
    for name, value in canary.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("ARENA_BOT_FILES_DIR", str(files_root))
    monkeypatch.setenv("ARENA_BOT_LOG_DIR", str(tmp_path / "bot-logs"))
    monkeypatch.delenv(REFEREE_EXECUTOR_ENV, raising=False)
    monkeypatch.delenv("ARENA_UNSAFE_NO_SANDBOX", raising=False)
    reset_referee_executor()
    db_file = Path(sqlite_url.removeprefix("sqlite:///"))
    engine = create_engine(sqlite_url)
    try:
        neighbour = files_root / pack_files(PYTHON_FILES).sha256 / "main.py"
        ladder = make_ladder(
            engine,
            [f"python main.py --attacks env,read --repo {REPO} --db {db_file} --other {neighbour}",
             "python main.py"],
            files=[ATTACKER_FILES, PYTHON_FILES],
        )  # fmt: skip
        match_id = enqueue_match(engine, ladder.ladder_id, ladder.version_ids, seed=3)
        run = run_match(sqlite_url, match_id, "w1")
        assert run.status == "recorded", run
        assert result_of(engine, match_id).reason == "finished"
        log = bot_log(engine, match_id, 0)
        tried = attack_lines(log)
        assert db_file.is_file() and neighbour.is_file()
        for name in (
            "read the database file",
            "read another bot's files",
            "read the repository",
            "read /etc/shadow",
        ):
            assert tried[name]["ok"] is False and tried[name]["error"].startswith("FileNotFoundError"), tried[
                name
            ]
        assert tried["scan /proc/*/environ"]["ok"] is False
        assert set(tried["own environment"]["env"]) <= BOT_ENV
        assert_no_secret(log, canary)
    finally:
        engine.dispose()
        reset_referee_executor()
        import shutil

        shutil.rmtree(files_root, ignore_errors=True)
