"""`arena tournament` as a user runs it: run (local pool), stored create/start/status/results,
the co-op scenario table, a gauntlet of three, exports, and refused input."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
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
        "--rounds", "2", "--name", "weekly", "--json", *db,
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
    named = arena_here(*common, "--name", "spring [cup]").stdout.splitlines()[0]
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
