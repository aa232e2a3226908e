"""`arena tournament` as a user runs it: run (local pool), stored create/start/status/results,
the co-op scenario table, a gauntlet of three, exports, and refused input."""

from __future__ import annotations

import contextlib
import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from referee.cli import main

ARENA = Path(sys.executable).parent / "arena"


def arena(*args: str, cwd: Path, ok: bool = True) -> subprocess.CompletedProcess[str]:
    """`arena ARGS` as a process (the real entry point, as a user runs it)."""
    proc = subprocess.run([str(ARENA), *args], cwd=cwd, capture_output=True, text=True, timeout=300)
    if ok:
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


@pytest.fixture
def arena_here(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    """`arena ARGS` in this process (the same parser and commands; no interpreter start-up)."""
    monkeypatch.chdir(tmp_path)

    def run(*args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
        code = main(list(args))
        out, err = capsys.readouterr()
        if ok:
            assert code == 0, out + err
        return subprocess.CompletedProcess(list(args), code, out, err)

    return run


def test_run_on_the_local_pool_prints_standings_and_exports(tmp_path: Path) -> None:
    proc = arena(
        "tournament", "run", "--game", "clank", "--players", "2", "--format", "round-robin",
        "--bots", "greedy,random", "--bots", "random", "--sets", "1", "--seed", "1", "--workers", "2",
        "--json", "--csv", "standings.csv", "--json-out", "results.json", cwd=tmp_path,
    )  # fmt: skip
    out = json.loads(proc.stdout)
    assert out == json.loads((tmp_path / "results.json").read_text())
    assert out["standings"][0]["bot"] == "greedy"
    assert {r["bot"] for r in out["standings"]} == {"greedy", "random", "random#2"}
    assert len(out["games"]) == 3 * 2 and out["counts"]["played"] == 6
    assert out["crosstable"]["rows"][0]["against"]["random"]["games"] == 2
    assert [s["games"] for s in out["seats"]] == [6, 6]
    rows = list(csv.DictReader((tmp_path / "standings.csv").read_text().splitlines()))
    assert [r["bot"] for r in rows] == [r["bot"] for r in out["standings"]]
    assert set(rows[0]) >= {"rank", "bot", "score", "elo", "elo_low", "elo_high", "wins", "draws", "losses"}


def test_stored_competition_create_start_status_results(tmp_path: Path, arena_here: Any) -> None:
    db = ["--db", f"sqlite:///{tmp_path / 'c.db'}"]
    made = json.loads(arena_here(
        "tournament", "create", "--game", "clank", "--format", "swiss", "--bots", "greedy,random,random",
        "--rounds", "2", "--title", "weekly", "--json", *db,
    ).stdout)  # fmt: skip
    cid = str(made["id"])
    text = arena_here("tournament", "start", cid, "--workers", "0", *db).stdout
    assert "standings" in text and "crosstable" in text and "seat-order effect" in text
    status = json.loads(arena_here("tournament", "status", cid, "--json", *db).stdout)
    assert status["status"] == "done" and status["games"] == {"scheduled": 4, "done": 4}  # 2 rounds x 2
    res: dict[str, Any] = json.loads(arena_here("tournament", "results", cid, "--json", *db).stdout)
    assert sum(r["byes"] for r in res["standings"]) == 2
    listed = arena_here("tournament", "list", *db).stdout
    assert "weekly" in listed and "done" in listed


def test_coop_scenarios_with_wilson_intervals(arena_here: Any) -> None:
    out = json.loads(arena_here(
        "tournament", "run", "--game", "alien", "--players", "2", "--format", "scenarios",
        "--bots", "coop,random", "--sets", "3", "--workers", "0", "--json",
    ).stdout)  # fmt: skip
    assert len(out["games"]) == 6
    for row in out["standings"]:
        assert 0 <= row["win_rate_low"] <= row["score"] <= row["win_rate_high"] <= 1
        assert row["games"] == 3 and row["draws"] == 0
    assert [s["scenario"] for s in out["scenarios"]] == [out["scenarios"][0]["scenario"]] * 2
    assert "players=2" in out["scenarios"][0]["scenario"]


def test_title_line_says_each_setting_once(arena_here: Any) -> None:
    """The results' first line: the competition, then its settings once; a name only when given
    (the default name is made of those settings), markup in it shown as typed."""
    common = ("tournament", "run", "--game", "clank", "--players", "2", "--format", "round-robin",
              "--bots", "greedy,random", "--sets", "1", "--seed", "1", "--workers", "0")  # fmt: skip
    title = arena_here(*common).stdout.splitlines()[0]
    assert title == (
        "competition 1: round-robin, clank 2p, seed 1 — done; games: 2 played, 0 failed, 0 pending"
    )
    named = arena_here(*common, "--title", "spring [cup]").stdout.splitlines()[0]
    assert named.startswith("competition 1 'spring [cup]': round-robin, clank 2p, seed 1 — done;")


def test_gauntlet_of_three(arena_here: Any) -> None:
    out = json.loads(arena_here(
        "tournament", "run", "--game", "clank", "--players", "3", "--format", "gauntlet",
        "--bots", "greedy,random,random,random", "--workers", "0", "--json",
    ).stdout)  # fmt: skip
    # the challenger with each pair of the other three, each in all 3 rotations
    assert len(out["games"]) == 3 * 3
    assert all("greedy" in g["seats"] for g in out["games"])
    assert [s["games"] for s in out["seats"]] == [9, 9, 9]


def test_refused_input_is_one_error_line(arena_here: Any) -> None:
    for args in (
        ["--bots", "greedy"],  # a round robin needs two
        ["--bots", "greedy,version:99999"],
        ["--bots", "greedy,random", "--players", "9"],
    ):
        proc = arena_here("tournament", "run", "--game", "clank", "--format", "round-robin", "--workers", "0",
                          *args, ok=False)
        assert proc.returncode == 2 and proc.stderr.startswith("error:"), (args, proc.stderr)
        assert "Traceback" not in proc.stderr


# --- the truth about bots that never played, paths the sandbox lacks, interrupts ------------------


@pytest.fixture
def crashing_bot() -> Any:
    """A folder the sandbox's user can read, holding a bot that dies before its first decision."""
    import shutil
    import tempfile

    path = Path(tempfile.mkdtemp(prefix="arena-tournament-bot-"))
    path.chmod(0o755)
    (path / "main.py").write_text('import sys\nsys.exit("boom: no strategy yet")\n')
    (path / "main.py").chmod(0o644)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.mark.slow  # two sandboxed games: 15-25 s on a loaded machine
def test_an_entrant_that_never_played_is_reported_apart_and_fails_the_run(crashing_bot: Path) -> None:
    """A hosted command that never starts: not ranked (no draws, no Elo), listed apart with the
    line it printed, exit 1; `--name` names it, `--replay-dir` keeps every game's replay."""
    from referee.replay import load

    files = crashing_bot / "files"
    files.mkdir(mode=0o755)
    proc = subprocess.run(
        [str(ARENA), "tournament", "run", "--game", "clank", "--format", "round-robin",
         "--bots", "random,python main.py", "--name", "crasher", "--sets", "1", "--workers", "2",
         "--replay-dir", "replays"],
        cwd=crashing_bot, capture_output=True, text=True, timeout=300,
        env={**os.environ, "ARENA_BOT_FILES_DIR": str(files)},
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].endswith("games: 2 played, 0 failed, 0 pending")
    apart = lines.index("not ranked: never played (every game of its own forfeited or failed)")
    standings = [line for line in lines[:apart] if line.startswith("│")]
    assert len(standings) == 1 and "random" in standings[0] and "2/0/0" in standings[0], standings
    line = lines[apart + 1]
    assert line.startswith("  crasher: forfeited 2 of 2 games; match "), line
    assert line.endswith(": crashed: exit code 1; it printed: boom: no strategy yet"), line
    kept = sorted((crashing_bot / "replays").iterdir())
    assert len(kept) == 2 and all(load(p)["seats"] for p in kept)
    assert "2 replays written to replays" in proc.stderr


def test_a_path_the_sandbox_will_not_have_is_refused_before_the_first_game(
    tmp_path: Path, arena_here: Any
) -> None:
    (tmp_path / "bot.py").write_text("print('hi')\n")
    proc = arena_here("tournament", "run", "--game", "clank", "--format", "round-robin", "--bots",
                      f"greedy,python {tmp_path}/bot.py", "--workers", "0", ok=False)  # fmt: skip
    assert proc.returncode == 2 and proc.stdout == "", proc.stdout
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert f"names {tmp_path}/bot.py, a path that will not exist in the sandbox" in proc.stderr
    assert proc.stderr.rstrip().endswith("name it relative to the current folder: 'python bot.py'")
    missing = arena_here("tournament", "run", "--game", "clank", "--format", "round-robin", "--bots",
                         "greedy,python my_bot.py", "--workers", "0", ok=False)  # fmt: skip
    assert missing.returncode == 2 and "names my_bot.py, which is not in the current folder" in missing.stderr


def _games_started(db: Path) -> bool:
    import sqlite3

    if not db.exists():
        return False
    try:
        with contextlib.closing(sqlite3.connect(db, timeout=1)) as conn:
            row = conn.execute("SELECT count(*) FROM matches WHERE status != 'queued'").fetchone()
    except sqlite3.Error:
        return False  # not made yet
    return bool(row and row[0] >= 2)


@pytest.mark.slow  # each waits for a pool's first games on a loaded machine: 15-20 s
@pytest.mark.parametrize("to_group", [False, True], ids=["kill-INT-pid", "SIGINT-to-the-group"])
def test_sigint_ends_a_run_within_5_s(tmp_path: Path, to_group: bool) -> None:
    """240 games queued on 2 pool processes (about a minute of play): SIGINT once games are
    running ends the command in under 5 s, its pool processes gone, with the hint that applies:
    a run kept in --db resumes with `start`; a run on a temporary database cannot."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    db = tmp_path / "kept.db"
    kept = [] if to_group else ["--db", f"sqlite:///{db}"]
    proc = subprocess.Popen(
        [str(ARENA), "tournament", "run", "--game", "clank", "--format", "round-robin",
         "--bots", "greedy,random,greedy", "--sets", "40", "--workers", "2", *kept],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True, env={**os.environ, "TMPDIR": str(scratch)},
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while True:
            temporary = list(scratch.glob("arena-tournament-*/competition.db"))
            if _games_started(db if kept else (temporary[0] if temporary else db)):
                break
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.2)
        sent = time.monotonic()
        if to_group:
            os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C sends it
        else:
            os.kill(proc.pid, signal.SIGINT)  # as `kill -INT`, `timeout` or a supervisor
        out, err = proc.communicate(timeout=60)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert took < 5, f"{took:.1f} s"
    assert proc.returncode == 130 and out == "", (out, err)
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert err.startswith("interrupted after ") and " of 240 games scheduled so far" in err
    if kept:
        assert err.rstrip().endswith(f"`arena tournament start 1 --db sqlite:///{db}` resumes competition 1")
    else:
        assert "the run's temporary database is gone with it" in err and "resumes competition" not in err
    # the kernel may still be tearing down a process that has exited (its command line already
    # empty) or multiprocessing's resource tracker reading its pipe's end: a process of the group
    # that outlives the command is one still there a few seconds later
    deadline = time.monotonic() + 3
    while _live_in_group(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _live_in_group(proc.pid) == [], "its pool processes outlived it"


def _live_in_group(pgid: int) -> list[str]:
    """The processes of group `pgid` still alive (zombies left out: this container's init may
    be slow to reap an orphan), by their command lines."""
    live = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, IndexError):
            continue  # gone meanwhile
        if int(fields[2]) == pgid and fields[0] != "Z":
            live.append(cmdline)
    return live
