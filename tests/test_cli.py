"""The `arena` command, run as a user would: a real process."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from referee.cli import main
from referee.replay import load

ARENA = [sys.executable, "-m", "referee.cli"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARENA, *args], capture_output=True, text=True, timeout=300)


def test_play_json_reports_wins_scores_escapes_knockouts_by_seat_and_bot(tmp_path: Path) -> None:
    out = run("play", "clank", "--players", "4", "--bots", "random,greedy,random,greedy",
              "--seed", "7", "--games", "4", "--replay-dir", str(tmp_path), "--json")
    assert out.returncode == 0, out.stderr
    stats = json.loads(out.stdout)
    assert stats["games"] == 4
    assert set(stats["by_seat"]) == {"0", "1", "2", "3"}
    assert set(stats["by_bot"]) == {"random", "greedy"}
    for row in stats["by_bot"].values():
        assert row["games"] == 8
        assert row["escaped"] + row["rescued"] + row["knocked_out"] <= 8
        assert 0 <= row["win_rate"] <= 1
    assert sum(r["wins"] for r in stats["by_seat"].values()) >= 4
    replays = sorted(tmp_path.glob("*.replay.json.gz"), key=lambda p: int(p.name.split("-")[1].split(".")[0]))
    assert [p.name for p in replays] == [f"clank-{s}.replay.json.gz" for s in range(7, 11)]


def test_play_table_is_printed_without_json() -> None:
    out = run("play", "clank", "--players", "2", "--bots", "greedy,random", "--games", "2")
    assert out.returncode == 0, out.stderr
    assert "Results by seat" in out.stdout and "Results by bot" in out.stdout
    assert "greedy" in out.stdout


def test_play_alien_with_the_coop_bot_counts_team_wins_and_deaths(tmp_path: Path) -> None:
    out = run("play", "alien", "--players", "2", "--bots", "coop,coop", "--seed", "1", "--games", "3",
              "--replay-dir", str(tmp_path), "--json")
    assert out.returncode == 0, out.stderr
    stats = json.loads(out.stdout)
    assert stats["games"] == 3 and set(stats["by_bot"]) == {"coop"}
    seats = stats["by_seat"]
    assert set(seats) == {"0", "1"}
    for row in seats.values():
        assert set(row) == {"games", "wins", "win_rate", "mean_score", "survived", "died", "forfeited"}
        assert row["games"] == 3 and row["survived"] + row["died"] == 3 and row["forfeited"] == 0
    # cooperative: the team wins or loses together (every seat is placed first either way)
    assert seats["0"]["wins"] == seats["1"]["wins"] == stats["by_bot"]["coop"]["wins"] / 2
    team_wins = 0
    for seed in range(1, 4):
        path = tmp_path / f"alien-{seed}.replay.json.gz"
        ok = run("replay", "verify", str(path))
        assert ok.returncode == 0 and "every digest matches" in ok.stdout
        team_wins += load(path)["result"]["team_won"] is True
    assert seats["0"]["wins"] == team_wins
    table = run("play", "alien", "--players", "2", "--bots", "coop,coop")
    assert table.returncode == 0, table.stderr
    assert "survived" in table.stdout and "escaped" not in table.stdout


def test_play_rejects_wrong_bot_count_and_unknown_bot() -> None:
    out = run("play", "clank", "--players", "3", "--bots", "random,random")
    assert out.returncode == 2 and "3 players" in out.stderr
    one_for_all = run("play", "clank", "--players", "3", "--bots", "greedy", "--json")
    assert one_for_all.returncode == 0 and set(json.loads(one_for_all.stdout)["by_bot"]) == {"greedy"}
    out = run("play", "clank", "--players", "2", "--bots", "random,nosuchbot")
    assert out.returncode == 2 and "nosuchbot" in out.stderr


def test_replay_verify_and_show(tmp_path: Path) -> None:
    assert run("play", "clank", "--games", "1", "--seed", "3", "--replay-dir", str(tmp_path)).returncode == 0
    path = tmp_path / "clank-3.replay.json.gz"
    ok = run("replay", "verify", str(path))
    assert ok.returncode == 0 and "every digest matches" in ok.stdout
    shown = run("replay", "show", str(path), "--seat", "0")
    assert shown.returncode == 0 and "seat 0 (random) to act" in shown.stdout and "result:" in shown.stdout
    assert "seat 1 (random) to act" not in shown.stdout
    path.write_bytes(b"garbage")
    bad = run("replay", "verify", str(path))
    assert bad.returncode == 1 and "not a replay" in bad.stderr


def test_every_replay_file_in_the_help_has_the_canonical_suffix(capsys: pytest.CaptureFixture[str]) -> None:
    """The commands that read or write a replay file name it NAME.replay.json.gz (referee/REPLAY.md)
    in their help, never FILE.json.gz or .replay.gz."""
    commands = (["match"], ["replay", "verify"], ["replay", "show"], ["replay", "rerun"], ["replay", "serve"])
    for command in commands:
        with pytest.raises(SystemExit):
            main([*command, "--help"])
        text = capsys.readouterr().out
        assert ".replay.json.gz" in text, command
        gz_names = re.findall(r"\S*\.gz\b", text)
        assert all(name.endswith(".replay.json.gz") for name in gz_names), (command, gz_names)
