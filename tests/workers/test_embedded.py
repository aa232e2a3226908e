"""The embedded default: a local process pool on SQLite, and the `arena` commands around it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import sqlalchemy as sa

from ladder.db import create_engine
from ladder.match_queue import enqueue_match
from ladder.schema import matches
from workers.demo import setup_demo_ladder
from workers.local_pool import LocalPool
from workers.season import play_season

from .conftest import assert_ladder_consistent, make_ladder

ARENA = [sys.executable, "-m", "referee.cli"]


@pytest.mark.slow
def test_a_season_in_the_local_pool_records_every_match_once(sqlite_url: str) -> None:
    engine = create_engine(sqlite_url)
    try:
        setup = setup_demo_ladder(engine, players=2)
        four = setup_demo_ladder(engine, players=4)
        progress: list[int] = []
        with LocalPool(sqlite_url, 2) as pool:
            summary = play_season(
                engine,
                pool,
                [setup.ladder_id, four.ladder_id],
                24,
                target_depth=3,
                on_progress=lambda done, _total: progress.append(done),
                rng_seed=1,
            )
        assert (summary.done, summary.failed) == (24, 0)
        assert progress[-1] == 24 and progress == sorted(progress)
        assert {r.status for r in pool.runs} == {"recorded"} and len(pool.runs) == 24
        with engine.connect() as conn:
            of_ladder = dict(conn.execute(sa.select(matches.c.id, matches.c.ladder_id)).all())
        assert sorted(of_ladder) == sorted(summary.match_ids)
        for ladder_id in (setup.ladder_id, four.ladder_id):
            ids = [m for m in summary.match_ids if of_ladder[m] == ladder_id]
            assert len(ids) >= 6
            assert_ladder_consistent(engine, ladder_id, ids)
    finally:
        engine.dispose()


@pytest.mark.slow
def test_arena_demo_plays_a_season_and_prints_standings(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "BROKER_URL")}
    out = subprocess.run(
        [*ARENA, "demo", "--matches", "12", "--no-serve", "--workers", "2"],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=tmp_path,
        env=env,
    )
    assert out.returncode == 0, out.stderr
    assert "12 matches recorded, 0 failed" in out.stdout
    assert "clank-2p standings" in out.stdout
    for name in ("greedy-1", "greedy-2", "greedy-3", "random-1", "random-2", "random-3"):
        assert name in out.stdout
    assert (tmp_path / "arena-demo.db").exists()
    again = subprocess.run(  # a second run continues the same ladder
        [*ARENA, "demo", "--matches", "6", "--no-serve", "--workers", "1"],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=tmp_path,
        env=env,
    )
    assert again.returncode == 0, again.stderr
    engine = create_engine(f"sqlite:///{tmp_path / 'arena-demo.db'}")
    try:
        setup = setup_demo_ladder(engine)
        from ladder.queries import standings

        with engine.connect() as conn:
            page = standings(conn, setup.ladder_id)
        assert page is not None and sum(row["games"] for row in page["standings"]) == 2 * 18
    finally:
        engine.dispose()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_db_upgrade_and_serve_api(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'api.db'}"
    up = subprocess.run([*ARENA, "db", "upgrade", "--url", url], capture_output=True, text=True, timeout=60)
    assert up.returncode == 0, up.stderr
    port = _free_port()
    server = subprocess.Popen(
        [*ARENA, "serve", "api", "--db", url, "--port", str(port), "--log-level", "warning"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/ladders", timeout=2) as resp:
                    assert resp.status == 200 and json.loads(resp.read()) == []
                break
            except OSError:
                assert server.poll() is None, server.stderr.read() if server.stderr else ""
                assert time.monotonic() < deadline, "arena serve api did not come up"
                time.sleep(0.2)
    finally:
        server.terminate()
        server.wait(timeout=20)
        if server.stderr:
            server.stderr.close()


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=2) as resp:
        assert resp.status == 200
        return bytes(resp.read())


def test_arena_demo_serves_the_ladder_and_the_pool_processes_metrics(tmp_path: Path) -> None:
    """`arena demo` without --no-serve: the ladder is served at a local URL, and /metrics shows
    the matches the pool processes played (multiprocess mode), not only the API's own."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "BROKER_URL", "PROMETHEUS_MULTIPROC_DIR")
    }
    port = _free_port()
    demo = subprocess.Popen(
        [*ARENA, "demo", "--matches", "8", "--workers", "2", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        env=env,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                ladders = json.loads(_get(f"http://127.0.0.1:{port}/api/ladders"))
                break
            except OSError:
                assert demo.poll() is None, demo.stderr.read() if demo.stderr else ""
                assert time.monotonic() < deadline, "arena demo did not start serving"
                time.sleep(0.3)
        assert [ladder["name"] for ladder in ladders] == ["clank-2p"]
        assert b"clank-2p" in _get(f"http://127.0.0.1:{port}/")
        metrics = _get(f"http://127.0.0.1:{port}/metrics").decode()
        finished = sum(
            float(line.rsplit(" ", 1)[1])
            for line in metrics.splitlines()
            if line.startswith("arena_matches_finished_total{")
        )
        assert finished == 8
        assert "arena_api_requests_total" in metrics
    finally:
        demo.terminate()
        demo.wait(timeout=30)
        for stream in (demo.stdout, demo.stderr):
            if stream:
                stream.close()


def test_arena_demo_on_an_unreachable_database_says_so_in_one_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "BROKER_URL")}
    url = f"postgresql://postgres@127.0.0.1:{_free_port()}/arena"  # nothing listens there
    out = subprocess.run(
        [*ARENA, "demo", "--db", url, "--matches", "2", "--no-serve"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env,
    )
    assert out.returncode == 1
    assert "error: the database is unreachable (OperationalError" in out.stderr, out.stderr
    assert "Traceback" not in out.stderr, out.stderr


def test_the_local_pool_plays_a_requeued_match_before_those_waiting(sqlite_url: str) -> None:
    """A match the sweeper requeued after a platform fault goes ahead of every match not yet
    started (workers/README.md, Platform faults), as on Celery."""
    engine = create_engine(sqlite_url)
    try:
        ladder = make_ladder(engine, ["builtin:random"] * 2)
        ids = [enqueue_match(engine, ladder.ladder_id, ladder.version_ids, seed=i) for i in range(4)]
        with LocalPool(sqlite_url, 1) as pool:  # one process: the first plays, the rest wait
            for match_id in ids[:3]:
                pool.dispatch(match_id)
            pool.dispatch_retry(ids[3])
        with engine.connect() as conn:
            order = conn.execute(
                sa.select(matches.c.id).where(matches.c.status == "done").order_by(matches.c.started_at)
            ).scalars().all()
        assert order == [ids[0], ids[3], ids[1], ids[2]]
        assert {r.status for r in pool.runs} == {"recorded"}
    finally:
        engine.dispose()


def test_arena_db_parked_lists_them_and_requeue_puts_one_back(sqlite_url: str) -> None:
    from ladder.match_queue import claim_match, requeue_expired

    engine = create_engine(sqlite_url)
    try:
        ladder = make_ladder(engine, ["builtin:random"] * 2)
        match_id = enqueue_match(engine, ladder.ladder_id, ladder.version_ids, seed=77)
        assert claim_match(engine, match_id, "gone:1", 0.0)
        assert requeue_expired(engine, budget=1).parked == (match_id,)

        listed = subprocess.run([*ARENA, "db", "parked", "--db", sqlite_url],
                                capture_output=True, text=True, timeout=60)
        assert listed.returncode == 0, listed.stderr
        assert listed.stdout.startswith(f"match {match_id} (ladder {ladder.ladder_id}, seed 77, "
                                        "1 platform faults): parked after 1 platform faults")
        back = subprocess.run([*ARENA, "db", "requeue", str(match_id), "--db", sqlite_url],
                              capture_output=True, text=True, timeout=60)
        assert (back.returncode, back.stdout) == (0, f"match {match_id}: queued again (its fault "
                                                     "budget renewed)\n"), back.stderr
        with engine.connect() as conn:
            row = conn.execute(sa.select(matches).where(matches.c.id == match_id)).one()
        assert (row.status, row.attempts, row.seed) == ("queued", 0, 77)
        again = subprocess.run([*ARENA, "db", "requeue", str(match_id), "--db", sqlite_url],
                               capture_output=True, text=True, timeout=60)
        assert again.returncode == 2
        assert again.stderr == (f"error: not parked: {match_id} (`arena db parked` lists the "
                                "parked matches)\n")
        none = subprocess.run([*ARENA, "db", "parked", "--db", sqlite_url],
                              capture_output=True, text=True, timeout=60)
        assert none.stdout == "no parked matches\n"
    finally:
        engine.dispose()


def test_a_dead_local_pool_process_hands_its_match_back_at_once(sqlite_url: str) -> None:
    """A pool process killed mid-match breaks the pool; collect() restarts it and ends the lost
    run's lease (the pool chose its worker id), so the next sweep requeues the match now, not
    after its 60 s lease, and it is played again (one platform fault)."""
    import signal as signals

    from ladder.match_queue import requeue_expired

    engine = create_engine(sqlite_url)
    try:
        # random bots thinking 8 ms a decision: the match lasts several seconds
        ladder = make_ladder(engine, ["builtin:random?think_ms=8"] * 2)
        match_id = enqueue_match(engine, ladder.ladder_id, ladder.version_ids, seed=3)
        with LocalPool(sqlite_url, 1, lease=60.0) as pool:
            pool.dispatch(match_id)
            deadline = time.monotonic() + 60
            while True:
                with engine.connect() as conn:
                    status = conn.execute(
                        sa.select(matches.c.status).where(matches.c.id == match_id)
                    ).scalar_one()
                if status == "running":
                    break
                assert time.monotonic() < deadline, "the match never started"
                time.sleep(0.05)
            for process in list(pool._pool._processes.values()):  # the executor's own table
                os.kill(process.pid, signals.SIGKILL)
            deadline = time.monotonic() + 30
            while pool.in_flight():
                assert time.monotonic() < deadline, "the pool never saw its process die"
                pool.collect()
                time.sleep(0.05)
            swept = requeue_expired(engine)
            assert swept.requeued == (match_id,)  # the lease had 55 s and more to run
            pool.dispatch_retry(match_id)
        with engine.connect() as conn:
            row = conn.execute(sa.select(matches).where(matches.c.id == match_id)).one()
        assert (row.status, row.attempts) == ("done", 1)
    finally:
        engine.dispose()


_CTRL_C_DURING_START_UP = """
import logging, os, signal, sys, threading, time
from workers.local_pool import LocalPool

logging.basicConfig(format="%(message)s")

signal.signal(signal.SIGINT, lambda *_: None)  # this parent shrugs: its children are under test
pool = LocalPool(sys.argv[1], 2)
done = threading.Event()

def ctrl_c() -> None:  # a terminal's Ctrl-C reaches the whole group, again and again
    while not done.is_set():
        os.killpg(0, signal.SIGINT)
        time.sleep(0.005)

threading.Thread(target=ctrl_c).start()
try:
    pool.dispatch_qualification(1)  # each starts a pool process: a second or so of imports
    pool.dispatch_qualification(2)
    pool.close()
finally:
    done.set()
print("closed", len(pool.qualifications))
"""


def test_ctrl_c_while_pool_processes_start_prints_no_traceback(tmp_path: Path) -> None:
    """SIGINT to the group while the pool's processes are still importing (before their
    initializer ignores it) is not a KeyboardInterrupt in them: the processes live and run
    their tasks (qualifications of versions a bare database has not: each raises and is logged
    as such), and the pool closes. Found in CI: `arena tournament run` interrupted early printed
    a spawn child's KeyboardInterrupt traceback."""
    proc = subprocess.run(
        [sys.executable, "-c", _CTRL_C_DURING_START_UP, f"sqlite:///{tmp_path / 'bare.db'}"],
        capture_output=True, text=True, timeout=120, start_new_session=True,
    )  # fmt: skip
    assert "KeyboardInterrupt" not in proc.stderr, proc.stderr
    # both tasks ran in a process that lived: without the fix the processes die of the
    # KeyboardInterrupt, the pool restarts and the two tasks are dropped unreported
    ran = sorted(line for line in proc.stderr.splitlines() if "qualify_version raised" in line)
    assert ran == ["version 1: qualify_version raised", "version 2: qualify_version raised"]
    assert proc.returncode == 0 and proc.stdout.strip() == "closed 0", proc.stderr
