"""bots/python/LAB.md runs as written: the files it tells the reader to save (each Python block
after a ``<!-- file: PATH -->`` comment) are saved at those paths in an empty folder, and its
shell blocks run there (`tests/doc_blocks.py`): the PettingZoo look, training on a small budget
(``LAB_GAMES``/``LAB_EVAL``, which the document names), the trained bot in `arena match` as a
local process and in the sandbox. The upload block is marked ``not run`` and names the test of
the same path (tests/workers/test_submission.py).

The bot's plain-Python encoder must be the lab's: it is checked against
`referee.lab.encoding.encode_observation` on the observations the SDK decodes from the wire, at
every decision of whole Clank! games.
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

from referee.games import game_class
from referee.lab.encoding import encode_observation
from referee.server.codecs import codec_for
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


def _bot_module(folder: Path) -> ModuleType:
    path = folder / "main.py"
    path.write_text(saved_files(LAB)["my-lab-bot/main.py"])
    spec = importlib.util.spec_from_file_location("lab_md_bot", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_bots_encoder_is_the_labs_on_the_sdks_observations(folder: Path) -> None:
    encode = _bot_module(folder).encode
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
                mine = np.array(encode(observation_dict(wire)), dtype=np.float64)
                assert mine.shape == (512,)
                np.testing.assert_allclose(mine, encode_observation(engine), rtol=1e-6, atol=0)
                checked += 1
            game.apply_index(rnd.randrange(len(decision.actions)))
    assert checked > 500


@pytest.mark.slow
@pytest.mark.integration
def test_lab_md_runs_as_written(folder: Path) -> None:
    files = saved_files(LAB)
    assert set(files) == {"look.py", "train.py", "my-lab-bot/main.py"}
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    # the document's small budget for its test (its defaults: 300 games, 200 to evaluate)
    env = {**_env(folder), "LAB_GAMES": "30", "LAB_EVAL": "10"}
    out = run_block("bots/python/LAB.md", "train", folder, env)
    assert "player_0 (512,)" in out and "legal actions:" in out and "places (" in out, out
    assert "trained on 30 games" in out, out
    for line in ("untrained vs random: won", "vs random: won", "vs greedy: won"):
        assert re.search(rf"^{line} [01]\.\d\d \[[01]\.\d\d, [01]\.\d\d\]", out, re.M), (line, out)
    saved = json.loads((folder / "my-lab-bot" / "weights.json").read_text())
    assert saved["index_rows"] == 128 and saved["kind_rows"] == 64
    assert len(saved["rows"]) > 2 and all(len(row) == 512 for row in saved["rows"].values())

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
