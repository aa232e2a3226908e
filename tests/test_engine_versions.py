"""Engine versions stay selectable (referee/games/README.md, Engine versions): a replay recorded
by an older build, with the rules of its day, verifies, shows, opens in the viewer and re-runs
with today's build, played by the engine version it names."""

from __future__ import annotations

import asyncio
import copy
import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from ladder.web.local import file_app
from referee import replay as rp
from referee.games import game_class, game_spec
from referee.games.clank.engine import ClankGame
from referee.rerun import rerun

FIXTURES = Path(__file__).parent / "fixtures" / "replays"
ARENA = [sys.executable, "-m", "referee.cli"]
#: Clank! 2p seed 11, greedy vs random, written by commit c7b0b99 (engine clank-1, before 9ab19a1
#: bumped it to clank-2) with its own play_local and save: format 1, a digest after every step
CLANK_1 = FIXTURES / "v1-clank-1-2p.replay.json.gz"
RANDOM_BOT = Path(__file__).resolve().parents[1] / "bots" / "python" / "examples" / "random_bot.py"


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARENA, *args], capture_output=True, text=True, timeout=120)


def test_the_registry_keeps_every_version_selectable() -> None:
    spec = game_spec("clank")
    assert spec.versions() == ("clank-1", "clank-2") and spec.current_version() == "clank-2"
    assert game_class("clank") is ClankGame is game_class("clank", "clank-2")
    old = game_class("clank", "clank-1")
    assert old.engine_version == "clank-1" and issubclass(old, ClankGame)
    with pytest.raises(KeyError, match="clank has no engine clank-9; this build has clank-1, clank-2"):
        game_class("clank", "clank-9")


def test_a_clank_1_replay_from_before_the_bump_verifies_and_shows() -> None:
    raw = json.loads(gzip.decompress(CLANK_1.read_bytes()))
    assert (raw["engine_version"], raw["format_version"]) == ("clank-1", 1)
    done = arena("replay", "verify", str(CLANK_1))
    assert done.returncode == 0, done.stderr
    assert f"{len(raw['steps'])} steps re-simulated, every digest matches" in done.stdout
    shown = arena("replay", "show", str(CLANK_1), "--seat", "1")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("clank seed 11 engine clank-1 ")
    assert f"[step {len(raw['steps'])}]" in shown.stdout


def test_relabelled_clank_2_it_fails_and_an_unknown_version_is_one_line(tmp_path: Path) -> None:
    """The rules did change: under clank-2 the same header sets up another state. A version the
    build has never had is refused in one line naming the ones it has."""
    doc = rp.load(CLANK_1)
    relabelled = copy.deepcopy(doc)
    relabelled["engine_version"] = "clank-2"
    with pytest.raises(rp.ReplayError, match="initial state digest differs"):
        rp.verify(relabelled)
    doc["engine_version"] = "clank-0"
    path = tmp_path / "unknown.json"
    path.write_text(json.dumps(doc))
    done = arena("replay", "verify", str(path))
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == f"FAILED {path}: replay needs engine clank-0, this build has clank-1, clank-2\n"


def test_the_viewer_opens_the_clank_1_replay() -> None:
    steps = len(rp.load(CLANK_1)["steps"])
    with TestClient(file_app(CLANK_1)) as client:
        page = client.get("/")
        assert page.status_code == 200 and "clank-1" in page.text
        last = client.get(f"/frames/{steps}?seat=all")
        assert last.status_code == 200 and last.json()["step"] == steps


def test_rerun_plays_on_from_a_clank_1_step_by_clank_1_rules(tmp_path: Path) -> None:
    doc = rp.load(CLANK_1)
    done = asyncio.run(rerun(doc, 30, 1, f"{sys.executable} {RANDOM_BOT}", play_on=True, log_dir=tmp_path))
    new = done.replay
    assert new["engine_version"] == "clank-1"
    assert [s["index"] for s in new["steps"][:29]] == [s["index"] for s in doc["steps"][:29]]
    assert rp.verify(new).steps == len(new["steps"]) > 29
