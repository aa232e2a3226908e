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
#: a replay of each older version, written by the build that released it (fixtures README.md):
#: file, engine version, the commit before the bump that wrote it
OLDER = {
    "v1-clank-1-2p.replay.json.gz": ("clank-1", "c7b0b99"),
    "v1-alien-1-2p.replay.json.gz": ("alien-1", "fbfc882"),
    "v1-alien-2-2p.replay.json.gz": ("alien-2", "2ae8bf8"),
    "v2-clank_legacy-1-2p.replay.json.gz": ("clank_legacy-1", "2b2c318"),
}


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


@pytest.mark.parametrize("name", sorted(OLDER))
def test_a_replay_of_each_older_version_verifies_shows_and_opens_in_the_viewer(name: str) -> None:
    path = FIXTURES / name
    raw = json.loads(gzip.decompress(path.read_bytes()))
    steps = len(raw.get("steps") or raw["actions"])
    assert raw["engine_version"] == OLDER[name][0] != game_spec(raw["game"]).current_version()
    done = arena("replay", "verify", str(path))
    assert done.returncode == 0, done.stderr
    assert f"{steps} steps re-simulated, every digest matches" in done.stdout
    shown = arena("replay", "show", str(path), "--seat", "1")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith(f"{raw['game']} seed {raw['seed']} engine {raw['engine_version']} ")
    assert f"[step {steps}]" in shown.stdout
    with TestClient(file_app(path)) as client:
        page = client.get("/")
        assert page.status_code == 200 and raw["engine_version"] in page.text
        last = client.get(f"/frames/{steps}?seat=all")
        assert last.status_code == 200 and last.json()["step"] == steps


@pytest.mark.parametrize("name", sorted(set(OLDER) - {CLANK_1.name}))
def test_rerun_puts_a_bot_back_at_a_step_of_each_older_version(name: str, tmp_path: Path) -> None:
    """The referee plays the replay's version: step 1..K-1 re-applied and checked, the bot sent
    step K's question (a session at another version would set the game up differently)."""
    doc = rp.load(FIXTURES / name)
    step = next(n for n, s in enumerate(doc["steps"], 1) if n > 10 and s.get("seat") == 1)
    done = asyncio.run(rerun(doc, step, 1, f"{sys.executable} {RANDOM_BOT}", log_dir=tmp_path))
    assert done.recorded == doc["steps"][step - 1] and done.answered is not None
    assert done.replay["engine_version"] == doc["engine_version"]


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


def test_rerun_plays_on_from_a_clank_1_step_by_clank_1_rules(tmp_path: Path) -> None:
    doc = rp.load(CLANK_1)
    done = asyncio.run(rerun(doc, 30, 1, f"{sys.executable} {RANDOM_BOT}", play_on=True, log_dir=tmp_path))
    new = done.replay
    assert new["engine_version"] == "clank-1"
    assert [s["index"] for s in new["steps"][:29]] == [s["index"] for s in doc["steps"][:29]]
    assert rp.verify(new).steps == len(new["steps"]) > 29


def test_older_versions_content_is_the_data_their_digest_names(tmp_path: Path) -> None:
    """clank_legacy-1's content is today's with CONTENT_1's values: that data's digest is the
    version its replays carry. alien-1's content is today's data; its replays carry the digest
    alien-1's build took over the files' bytes (before 27084ba), which today's files still give."""
    import hashlib
    import shutil

    from referee.core.content_files import content_version
    from referee.games.alien import versions as alien_versions
    from referee.games.clank_legacy.content import CONTENT_DIR
    from referee.games.clank_legacy.versions import CONTENT_1

    copy_dir = tmp_path / "content"
    shutil.copytree(CONTENT_DIR, copy_dir)
    rules = json.loads((copy_dir / "rules.json").read_text())
    (copy_dir / "rules.json").write_text(json.dumps({**rules, **CONTENT_1["rules.json"]}))
    adventure = json.loads((copy_dir / "adventure.json").read_text())
    for card in adventure["cards"]:
        card["text"] = CONTENT_1["adventure.json"].get(card["id"], card["text"])
    (copy_dir / "adventure.json").write_text(json.dumps(adventure))
    assert content_version(copy_dir) == CONTENT_1["version"] != content_version(CONTENT_DIR)
    alien_dir = Path(alien_versions.__file__).parent / "content"
    assert content_version(alien_dir) == alien_versions._CONTENT
    h = hashlib.sha256()
    for path in sorted(alien_dir.rglob("*.json")):
        h.update(path.relative_to(alien_dir).as_posix().encode())
        h.update(path.read_bytes())
    assert h.hexdigest()[:16] == alien_versions._ALIEN_1_CONTENT
