"""bots/python/LAB.md runs as written: the files it tells the reader to save (each Python block
after a ``<!-- file: PATH -->`` comment) are saved at those paths in an empty folder, and its
shell blocks run there (`tests/doc_blocks.py`): the PettingZoo look, training on a small budget
(``LAB_GAMES``/``LAB_EVAL``, which the document names), the trained bot in `arena match` as a
local process and in the sandbox. The upload block is marked ``not run`` and names the test of
the same path (tests/workers/test_submission.py).

The training must learn: with the test's fixed budget and seeds the trained policy must beat
`random` and its untrained start by clear margins. The bot's plain-Python encoder, features and
rows must be train.py's: checked on the observations and legal actions the SDK decodes from the
wire, at every decision of whole Clank! games.
"""

from __future__ import annotations

import importlib.util
import json
import random
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from arena_bot import observation_dict
from arena_bot._proto.arena.v1 import bot_pb2
from arena_bot.actions import decode_action

from referee.games import game_class
from referee.lab.encoding import encode_observation
from referee.server.codecs import codec_for, encode_actions
from tests.doc_blocks import REPO, blocks
from tests.test_doc_blocks import _env, run_block

LAB = "bots/python/LAB.md"

_FILE_MARK = re.compile(r"^\s*<!--\s*file:\s*(\S+)\s*-->\s*$")


def saved_files(document: str) -> dict[str, str]:
    """PATH -> text of every block the document tells the reader to save (the block's previous
    non-blank line is ``<!-- file: PATH -->``)."""
    lines = (REPO / document).read_text(encoding="utf-8").splitlines()
    out: dict[str, str] = {}
    for block in blocks(document):
        before = next((line for line in reversed(lines[:block.line - 1]) if line.strip()), "")
        mark = _FILE_MARK.match(before)
        if mark:
            out[mark.group(1)] = block.text
    return out


@pytest.fixture()
def folder() -> Iterator[Path]:
    """The reader's own folder, readable by the sandbox's users."""
    base = Path(tempfile.mkdtemp(prefix="arena-lab-"))
    try:
        base.chmod(0o755)
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _module(folder: Path, saved: str, name: str) -> ModuleType:
    path = folder / f"{name}.py"
    path.write_text(saved_files(LAB)[saved])
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_bot_sees_what_the_policy_was_trained_on(folder: Path) -> None:
    """At every decision of whole Clank! games, from the SDK's observation and legal actions
    (decoded from the wire), the bot's plain-Python encoder gives the lab's vector, its features
    train.py's, and its rows train.py's on the engine's actions."""
    bot = _module(folder, "my-lab-bot/main.py", "lab_md_bot")
    train = _module(folder, "train.py", "lab_md_train")
    cls = game_class("clank")
    encode_wire = codec_for("clank")
    rnd = random.Random(4)
    checked = 0
    for seed in (1, 2):
        game = cls.new_game(cls.default_config(2), seed)
        while (decision := game.decision()) is not None:
            for seat in range(2):
                engine = game.observe(seat)
                wire = bot_pb2.Observation.FromString(encode_wire(engine).SerializeToString())
                mine = np.array(bot.encode(observation_dict(wire)), dtype=np.float64)
                assert mine.shape == (512,)
                lab = encode_observation(engine)
                np.testing.assert_allclose(mine, lab, rtol=1e-6, atol=0)
                features = np.array(bot.features(list(mine)))
                np.testing.assert_allclose(features, train.features(lab), rtol=1e-6, atol=1e-9)
                checked += 1
            wire_actions = encode_actions(decision.actions, "clank", game.observe(decision.seat))
            legal = [decode_action(a) for a in wire_actions]
            assert bot.rows(legal, train.KIND_ROWS, train.ACTION_ROWS) == [
                tuple(r) for r in train.rows(decision.actions).tolist()]
            game.apply_index(rnd.randrange(len(decision.actions)))
    assert checked > 500


_RATE = r"won (?P<rate>[01]\.\d\d) \[(?P<low>[01]\.\d\d), (?P<high>[01]\.\d\d)\]"


def _rate(line: str, out: str) -> tuple[float, float, float]:
    found = re.search(rf"^{line} {_RATE}", out, re.M)
    assert found, (line, out)
    return float(found["rate"]), float(found["low"]), float(found["high"])


@pytest.mark.slow
@pytest.mark.integration
def test_lab_md_runs_as_written(folder: Path) -> None:
    files = saved_files(LAB)
    assert set(files) == {"look.py", "train.py", "my-lab-bot/main.py"}
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    # the document's small budget for its test (its defaults: 100 games, 200 to evaluate)
    env = {**_env(folder), "LAB_GAMES": "30", "LAB_EVAL": "40"}
    out = run_block("bots/python/LAB.md", "train", folder, env)
    assert "player_0 (512,)" in out and "legal actions:" in out and "places (" in out, out
    assert re.search(r"^learned \d+ choices of greedy in 30 games", out, re.M), out
    untrained, _, _ = _rate("untrained vs random:", out)
    trained, low, _ = _rate("vs random:", out)
    _rate("vs greedy:", out)
    # the learning happened: the same 40 deals and seeds every run (this budget gave 0.82
    # [0.68, 0.91] against the untrained 0.45); with the fit made a no-op it is the untrained 0.45
    assert trained >= 0.70 and trained >= untrained + 0.20 and low > 0.50, out
    saved = json.loads((folder / "my-lab-bot" / "weights.json").read_text())
    assert saved["kind_rows"] == 64 and saved["action_rows"] == 1024
    assert len(saved["rows"]) > 10 and all(len(row) == 513 for row in saved["rows"].values())

    out = run_block("bots/python/LAB.md", "match", folder, env)
    # both matches played to the end, the lab bot in seat 0 (locally, then in the sandbox)
    assert out.count("connected as 'lab-bot'") == 2, out
    assert out.count("game_over") == 2 and "strikes" in out, out
    assert not re.search(r"seat 0 .*[1-9] strikes|forfeit", out), out


def test_the_saved_files_are_found_by_their_marks() -> None:
    files = saved_files(LAB)
    assert files["train.py"].startswith('"""Train a linear softmax policy')
    assert "class LabBot(Bot)" in files["my-lab-bot/main.py"]
    assert files["look.py"].count("pettingzoo_env") == 2
