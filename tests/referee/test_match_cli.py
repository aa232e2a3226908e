"""`arena match` over real gRPC with bots as processes, in Python and JavaScript."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from referee.replay import load, verify
from referee.runner import play_local

from .conftest import GREEDY_BOT, RANDOM_BOT, REPO, buggy, play

pytestmark = [pytest.mark.integration, pytest.mark.slow]

JS_BOT = f"node {REPO / 'bots' / 'javascript' / 'random_bot.js'}"
ARENA = [sys.executable, "-m", "referee.cli"]


def test_arena_match_prints_the_result_and_writes_a_verifiable_replay(tmp_path: Path) -> None:
    replay = tmp_path / "m.replay.gz"
    out = subprocess.run(
        [
            *ARENA,
            "match",
            "clank",
            "--bot",
            RANDOM_BOT,
            "--bot",
            GREEDY_BOT,
            "--seed",
            "5",
            "--replay",
            str(replay),
            "--json",
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    summary = json.loads(out.stdout)
    assert summary["ended_by"] == "game_over"
    assert [s["bot"] for s in summary["seats"]] == ["random", "greedy"]
    verified = subprocess.run([*ARENA, "replay", "verify", str(replay)], capture_output=True, text=True)
    assert verified.returncode == 0, verified.stderr
    doc = load(replay)
    assert any(step.get("note") for step in doc["steps"] if step.get("seat") == 1)  # greedy notes


def test_greedy_over_the_wire_plays_the_same_game_as_in_process(tmp_path: Path) -> None:
    played = play([GREEDY_BOT, GREEDY_BOT], tmp_path, seed=11)
    local = play_local("clank", ["greedy", "greedy"], 11)
    wire_steps = [(s["decision"], s["index"]) for s in played.replay["steps"]]
    local_steps = [(s["decision"], s["index"]) for s in local.replay["steps"]]
    assert wire_steps == local_steps
    assert played.replay["result"] == local.replay["result"]


def test_python_bot_against_javascript_bot(tmp_path: Path) -> None:
    # no skip: Node.js is required to test the JavaScript kit (README: requirements)
    assert shutil.which("node") is not None, (
        "Node.js (`node`, version 20) is not on PATH: it is required to test the JavaScript bot kit"
    )
    assert (REPO / "bots" / "javascript" / "node_modules" / "@grpc" / "grpc-js").is_dir(), (
        "run `npm ci --prefix bots/javascript` (make test does)"
    )
    played = play([JS_BOT, GREEDY_BOT], tmp_path, seed=2)
    verify(played.replay)
    assert played.replay["ended_by"] == "game_over"
    seats = played.replay["seats"]
    assert seats[0]["bot_name"] == "random-js" and seats[0]["strikes"] == 0
    assert seats[1]["bot_name"] == "greedy" and seats[1]["strikes"] == 0
    assert [b.exit_code for b in played.launched.bots] == [0, 0]


def test_bot_check_passes_a_good_bot_and_fails_a_buggy_one() -> None:
    good = subprocess.run(
        [*ARENA, "bot", "check", RANDOM_BOT, "--games", "2", "--json", "--connect-ms", "30000"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert good.returncode == 0, good.stdout + good.stderr
    report = json.loads(good.stdout)
    assert report["passed"] and report["timings_ms"]["decisions"] > 0
    bad_cmd = f"{sys.executable} {REPO / 'tests' / 'referee' / 'bots' / 'buggy_bot.py'} --mode out-of-range"
    bad = subprocess.run(
        [*ARENA, "bot", "check", bad_cmd, "--games", "1", "--connect-ms", "30000"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 1
    assert "index_out_of_range" in bad.stdout and "FAIL" in bad.stdout


def test_alien_coordinate_decisions_reach_bots_out_of_turn(tmp_path: Path) -> None:
    """A cooperative game: the raw-message bot sees Coordinate decisions flagged out_of_turn."""
    flagged = 0
    for seed in range(1, 6):  # random play does not always reach a Coordinate window
        played = play([buggy("ok"), buggy("ok"), buggy("ok")], tmp_path / str(seed), seed=seed, game="alien")
        verify(played.replay)
        assert played.replay["ended_by"] == "game_over"
        for seat in range(3):
            for line in played.log(seat).splitlines():
                if line.startswith("asked"):
                    flagged += int(line.split()[3])
        if flagged:
            break
    assert flagged > 0, "no decision was flagged out_of_turn"


def test_a_builtin_seat_plays_against_a_bot_process(tmp_path: Path) -> None:
    """`--bot builtin:greedy` seats the built-in greedy bot (played inside arena, as the ladder
    plays it) against a real bot process; the game is the one two greedy bots play in-process."""
    replay = tmp_path / "b.replay.json.gz"
    seats = ["--bot", "builtin:greedy", "--bot", GREEDY_BOT]
    out = subprocess.run(
        [*ARENA, "match", "clank", *seats, "--seed", "11", "--replay", str(replay), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["ended_by"] == "game_over" and summary["crashed_before_playing"] == []
    assert [(s["name"], s["bot"], s["command"]) for s in summary["seats"]] == [
        ("greedy", "greedy", "builtin:greedy"),
        ("greedy_clank_bot", "greedy", GREEDY_BOT),
    ]
    assert [s["strikes"] for s in summary["seats"]] == [0, 0]
    doc = load(replay)
    local = play_local("clank", ["greedy", "greedy"], 11)
    assert [(s["decision"], s["index"]) for s in doc["steps"]] == [
        (s["decision"], s["index"]) for s in local.replay["steps"]
    ]
    assert doc["result"] == local.replay["result"]


def test_an_unknown_builtin_is_one_error_line_naming_the_known_ones() -> None:
    out = subprocess.run(
        [*ARENA, "match", "clank", "--bot", "builtin:nonesuch", "--bot", RANDOM_BOT],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2
    assert out.stderr == (
        "error: --bot builtin:nonesuch: no built-in bot 'nonesuch' for clank; "
        "known: builtin:greedy, builtin:ismcts, builtin:random\n"
    )
    assert out.stdout == ""


def test_a_javascript_bot_whose_own_code_throws_is_told_so_with_its_stack(tmp_path: Path) -> None:
    """An error thrown by the bot's act() is the bot's, not the referee's: the kit prints the
    error and the stack down to the bot's own line, rather than "referee closed the session"."""
    bot = tmp_path / "thrower.js"
    kit = REPO / "bots" / "javascript" / "arena_bot.js"
    bot.write_text(
        f"const {{ run }} = require({json.dumps(str(kit))});\n"
        "let n = 0;\n"
        "run({ name: 'thrower', act() { if (++n > 2) throw new TypeError('boom in act'); return 0; } });\n"
    )
    played = play([f"node {bot}", GREEDY_BOT], tmp_path)
    assert played.replay["seats"][0]["forfeit"] == "crashed: exit code 1"
    log = played.log(0)
    assert "[thrower] the bot's own code failed, so it left the match:\nTypeError: boom in act\n" in log, log
    assert f"at Object.act ({bot}:3:" in log, log
    assert "referee closed the session" not in log, log
