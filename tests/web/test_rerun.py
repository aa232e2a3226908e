"""`arena replay rerun`: a bot put back at a recorded moment, over the real gRPC protocol."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.replay import load, save, simulate, verify
from referee.rerun import rerun

from .seeding import play_local

pytestmark = pytest.mark.integration

BOT = Path(__file__).parent / "bots" / "recording_bot.py"
REPO = Path(__file__).resolve().parents[2]


def _state_before(replay: dict[str, Any], step: int) -> Any:
    for n, (game, _) in enumerate(simulate(replay), start=1):
        if n == step:
            return game.copy()
    raise AssertionError(step)


@pytest.fixture(scope="module")
def recorded() -> dict[str, Any]:
    return play_local("clank", ["greedy", "random"], 21).replay


def test_step_sends_the_recorded_question_and_compares_the_answer(
    recorded: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dump = tmp_path / "sent.jsonl"
    monkeypatch.setenv("RERUN_DUMP", str(dump))
    step = next(n for n, s in enumerate(recorded["steps"], 1) if s.get("seat") == 1 and n > 20)
    done = asyncio.run(rerun(recorded, step, 1, f"{sys.executable} {BOT}", decision_ms=20_000))
    [sent] = [json.loads(line) for line in dump.read_text().splitlines()]
    game = _state_before(recorded, step)
    d = game.decision()
    # exactly what seat 1 was sent at that step: the decision, the observation, the actions
    assert sent["decision"] == d.id == recorded["steps"][step - 1]["decision"] and sent["seat"] == 1
    assert sent["prompt"] == d.prompt
    assert sent["observation"] == game.observe(1)
    assert sent["actions"] == [a.text for a in d.actions]
    # its answer, beside the recorded one; nothing else was asked
    assert done.answered is not None and done.answered["index"] == len(d.actions) - 1
    assert done.answered["note"] == "the last one"
    assert done.recorded == recorded["steps"][step - 1]
    assert done.ended_by.startswith("cancelled")


def test_from_plays_the_rest_and_the_new_replay_verifies_from_step_one(
    recorded: dict[str, Any], tmp_path: Path
) -> None:
    path = tmp_path / "game.replay.json.gz"
    save(recorded, path)
    out = tmp_path / "new.replay.json.gz"
    greedy = f"{sys.executable} {REPO / 'bots' / 'python' / 'examples' / 'greedy_clank_bot.py'}"
    cli = subprocess.run(
        [sys.executable, "-m", "referee.cli", "replay", "rerun", str(path), "--from", "30", "--seat", "0",
         "--bot", greedy, "--replay", str(out)],
        capture_output=True, text=True, timeout=300, cwd=REPO,
    )
    assert cli.returncode == 0, cli.stderr
    assert "played on to the end: game_over" in cli.stdout
    new = load(out)
    assert new["steps"][:29] == recorded["steps"][:29]
    assert verify(new).result is not None


def test_a_step_of_another_seat_is_refused(recorded: dict[str, Any]) -> None:
    step = next(n for n, s in enumerate(recorded["steps"], 1) if s.get("seat") == 0)
    with pytest.raises(ValueError, match="not seat 1's"):
        asyncio.run(rerun(recorded, step, 1, "true"))
    with pytest.raises(ValueError, match="no step"):
        asyncio.run(rerun(recorded, len(recorded["steps"]) + 1, 1, "true"))
