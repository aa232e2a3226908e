"""A typed game added exactly as referee/games/README.md says: its folder and `make proto`.

In a copy of the repository's code, `tests/toy_game/toy/` becomes `referee/games/toy/`; `make
proto` there assembles the contract and the stubs; then `arena match toy` plays it over gRPC
between two Python SDK bots that read only the typed messages (tests/toy_game/toy_bot.py checks
the SDK's derived `ARG_FIELDS`, typed actions and observation dict on every decision), and the
replay verifies. The SDK's `observation_dict` gives back exactly the engine's observation of
every seat at every step, shaped by toy.proto's view options alone. Nothing else is added or
edited: the copy's other files are compared with the originals after.
"""

from __future__ import annotations

import filecmp
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TOY = REPO / "tests" / "toy_game"
#: what the copy needs: the packages, the contract, the Makefile and the project file
COPIED = ("referee", "ladder", "workers", "proto", "bots/python", "Makefile", "pyproject.toml")
#: what `make proto` may write besides the new folder: the contract and the stubs
GENERATED = ("proto", "bots/python/arena_bot/_proto", "referee/wire/_proto")

pytestmark = pytest.mark.slow

#: run in the copy: random games of Toy Nim, each seat's observation through the game's codec,
#: the wire and the SDK's observation_dict, compared with the engine's dict (also at the end)
ROUND_TRIP = """
import random
from arena_bot import observation_dict
from arena_bot._proto.arena.v1 import bot_pb2
from referee.games import game_class
from referee.server.codecs import codec_for

cls, encode, rnd, checked = game_class("toy"), codec_for("toy"), random.Random(5), 0
for seed in range(8):
    game = cls.new_game(cls.default_config(2), seed)
    while True:
        for seat in (0, 1):
            obs = game.observe(seat)
            wire = bot_pb2.Observation.FromString(encode(obs).SerializeToString())
            assert observation_dict(wire) == obs, (observation_dict(wire), obs)
            checked += 1
        if game.is_over():
            break
        game.apply_index(rnd.randrange(len(game.decision().actions)))
print("checked", checked)
"""


def _copy(dest: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "node_modules")
    for rel in COPIED:
        src = REPO / rel
        if src.is_dir():
            shutil.copytree(src, dest / rel, ignore=ignore)
        else:
            shutil.copy2(src, dest / rel)


def _changed(a: Path, b: Path) -> list[str]:
    """Files that differ or exist on one side only, under two trees (recursively)."""
    cmp = filecmp.dircmp(a, b, ignore=["__pycache__"])
    out = [str(Path(cmp.left, n).relative_to(a)) for n in cmp.left_only + cmp.right_only + cmp.diff_files]
    out += [str(Path(n) / c) for n, sub in cmp.subdirs.items() for c in _changed(a / n, b / n)]
    return out


def test_a_typed_toy_game_is_a_folder_and_make_proto(tmp_path: Path) -> None:
    copy = tmp_path / "repo"
    _copy(copy)
    shutil.copytree(TOY / "toy", copy / "referee" / "games" / "toy")
    venv = Path(sys.executable).parent.parent
    # the copy's packages first (the SDK too: a bot process imports its stubs from the copy)
    env = {**os.environ, "PYTHONPATH": f"{copy}{os.pathsep}{copy / 'bots' / 'python'}"}
    # the running interpreter's venv, marked old (-o): make proto must never reinstall it from
    # the copy (an editable install pointing into a temp dir)
    stamp = venv / ".installed"
    made = subprocess.run(
        ["make", "-C", str(copy), "proto", f"VENV={venv}", f"STAMP={stamp}", "-o", str(stamp)],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert made.returncode == 0, made.stdout + made.stderr
    # make proto wrote the game into the contract and the stubs, and nothing outside them
    assert "ToyObservation toy = 9;" in (copy / "proto" / "arena" / "v1" / "bot.proto").read_text()
    assert "ToyAction toy = 9;" in (copy / "proto" / "arena" / "v1" / "common.proto").read_text()
    assert (copy / "referee" / "wire" / "_proto" / "arena" / "v1" / "toy_pb2.py").is_file()
    changed = _changed(REPO / "referee", copy / "referee")
    assert [c for c in changed if not c.startswith(("games/toy", "wire/_proto"))] == []
    sdk = _changed(REPO / "bots" / "python", copy / "bots" / "python")
    assert [c for c in sdk if not c.startswith("arena_bot/_proto")] == [] and sdk

    # the SDK's engine dict of every seat's view at every step equals the engine's own
    round_trip = subprocess.run(
        [sys.executable, "-c", ROUND_TRIP], cwd=copy, capture_output=True, text=True, env=env, timeout=60
    )
    assert round_trip.returncode == 0, round_trip.stdout + round_trip.stderr
    # 8 games of 11 stones: at least 4 takes each, so 5 views of each seat
    word, count = round_trip.stdout.split()
    assert word == "checked" and int(count) >= 8 * 5 * 2, round_trip.stdout

    replay = tmp_path / "toy.replay.gz"
    bot = f"{sys.executable} {TOY / 'toy_bot.py'}"
    played = subprocess.run(
        [sys.executable, "-m", "referee.cli", "match", "toy", "--bot", bot, "--bot", bot,
         "--seed", "3", "--replay", str(replay), "--json"],
        cwd=copy, capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert played.returncode == 0, played.stdout + played.stderr
    summary = json.loads(played.stdout)
    assert summary["ended_by"] == "game_over"
    # 11 stones: the first seat takes 3 and keeps the pile at a multiple of 4, so it wins
    assert [s["place"] for s in summary["seats"]] == [1, 2], summary
    verified = subprocess.run(
        [sys.executable, "-m", "referee.cli", "replay", "verify", str(replay)],
        cwd=copy, capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert verified.returncode == 0, verified.stdout + verified.stderr
