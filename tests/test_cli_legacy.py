"""Clank! Legacy through the `arena` command, run as a user would (real processes): `arena play`
with the built-in bots, `arena match` with the Python SDK's example bot, the JavaScript random
bot and a bot that refuses anything but the typed wire, and `arena replay verify` / `show --seat`
on the replays they wrote."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from referee.games import game_class
from referee.replay import load, save

pytestmark = [pytest.mark.integration]

REPO = Path(__file__).resolve().parents[1]
ARENA = [sys.executable, "-m", "referee.cli"]
RANDOM_PY = f"python {REPO / 'bots' / 'python' / 'examples' / 'random_bot.py'}"
RANDOM_JS = f"node {REPO / 'bots' / 'javascript' / 'random_bot.js'}"
WIRE_BOT = f"python {REPO / 'tests' / 'cli_bots' / 'legacy_wire_bot.py'}"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARENA, *args], capture_output=True, text=True, timeout=600, cwd=REPO)


def test_play_four_seats_greedy_and_random(tmp_path: Path) -> None:
    """`arena play clank_legacy --players 4 --bots greedy,random,greedy,random`: per seat and per
    bot the Legacy outcome columns add up to the games, and every replay it wrote verifies."""
    out = run(
        "play", "clank_legacy", "--players", "4", "--bots", "greedy,random,greedy,random",
        "--seed", "11", "--games", "3", "--replay-dir", str(tmp_path), "--json",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    stats = json.loads(out.stdout)
    assert stats["games"] == 3 and set(stats["by_bot"]) == {"greedy", "random"}
    for row in [*stats["by_seat"].values(), *stats["by_bot"].values()]:
        assert row["escaped"] + row["knocked_out"] + row["lost"] == row["games"], row
    # greedy heads for an artifact and home; a random walker hardly ever escapes
    assert stats["by_bot"]["greedy"]["escaped"] > stats["by_bot"]["random"]["escaped"]
    replays = sorted(tmp_path.glob("clank_legacy-*.replay.json.gz"))
    assert [p.name for p in replays] == [f"clank_legacy-{s}.replay.json.gz" for s in (11, 12, 13)]
    for path in replays:
        ok = run("replay", "verify", str(path))
        assert ok.returncode == 0 and "every digest matches" in ok.stdout, ok.stdout + ok.stderr
    table = run("play", "clank_legacy", "--players", "2", "--bots", "greedy,random")
    assert table.returncode == 0, table.stderr
    assert "escaped" in table.stdout and "lost" in table.stdout and "rescued" not in table.stdout


def _asked(log: str) -> list[tuple[int, str]]:
    rows = []
    for line in log.splitlines():
        if line.startswith("asked "):
            w = line.split()
            rows.append((int(w[1]), w[2]))
    return rows


def test_match_over_the_wire_then_replay_verify_and_show(tmp_path: Path) -> None:
    """`arena match clank_legacy` with the Python SDK's random bot, the JavaScript random bot and
    the typed-wire bot: the game ends with nobody struck or forfeited; the typed-wire bot was
    asked exactly the decisions the replay gives its seat (so every one of them came typed);
    `replay verify` re-simulates it from the campaign state the replay embeds (a changed
    campaign state or action is caught), and `replay show --seat 2` shows that seat's decisions
    only."""
    replay_path = tmp_path / "legacy.replay.json.gz"
    logs = tmp_path / "logs"
    out = run(
        "match", "clank_legacy", "--bot", RANDOM_PY, "--bot", RANDOM_JS, "--bot", WIRE_BOT,
        "--seed", "4", "--replay", str(replay_path), "--bot-logs", str(logs), "--json",
        "--decision-ms", "3000", "--connect-ms", "30000",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["game"] == "clank_legacy" and result["ended_by"] == "game_over"
    seats = result["seats"]
    assert [s["bot"] for s in seats] == ["random", "random-js", "legacy-wire"]
    assert all(s["strikes"] == 0 and not s["forfeit"] and s["exit_code"] == 0 for s in seats), seats
    assert all(s["outcome"] in ("escaped", "knocked_out", "lost") for s in seats), seats

    replay = load(replay_path)
    # the campaign state the game started from is in the replay (its config)
    assert replay["config"]["campaign"]["game_index"] == 1
    asked = _asked(Path(seats[2]["log"]).read_text())
    expected = []
    game = game_class("clank_legacy").new_game(replay["config"], replay["seed"])
    for step in replay["steps"]:
        d = game.decision()
        assert d is not None and d.seat == step["seat"]
        if d.seat == 2:
            expected.append((step["decision"], d.kind))
        game.apply_index(step["index"])
    assert game.is_over()
    assert asked == expected and len(asked) > 50
    assert {kind for _, kind in asked} >= {"turn", "vote"}  # the Prologue / Epilogue votes too

    ok = run("replay", "verify", str(replay_path))
    assert ok.returncode == 0 and "every digest matches" in ok.stdout, ok.stdout + ok.stderr

    shown = run("replay", "show", str(replay_path), "--seat", "2")
    assert shown.returncode == 0, shown.stderr
    assert "seat 2 (legacy_wire_bot) to act" in shown.stdout and "result:" in shown.stdout
    assert "seat 0 (random_bot) to act" not in shown.stdout
    assert "phase play, board side_a" in shown.stdout  # the Legacy summary of seat 2's view

    other_campaign = copy.deepcopy(replay)
    other_campaign["config"]["campaign"]["facts"] = ["first_delve_done"]
    changed_action = copy.deepcopy(replay)
    # an index no decision offers: another legal index can lead to the same state (two copies of
    # one card), which the digests rightly accept
    step = next(s for s in changed_action["steps"] if "index" in s)
    step["index"] = 10_000
    for name, bad in (("campaign", other_campaign), ("action", changed_action)):
        path = tmp_path / f"bad-{name}.replay.json"
        save(bad, path)
        refused = run("replay", "verify", str(path))
        assert refused.returncode == 1, (name, refused.stdout)
        assert refused.stderr.strip() and "Traceback" not in refused.stderr, refused.stderr
