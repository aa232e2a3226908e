"""Golden replays guard every engine version (tests/golden/README.md): each game of each set is
re-simulated by this build's engine of that version and every state digest must be the one the
version was released with. A rules change that keeps the version string fails here, naming the
first step whose state differs."""

from __future__ import annotations

import gzip
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from referee.games import all_specs, game_class
from tests.doc_blocks import walkthrough_blocks

GOLDEN = Path(__file__).parent / "golden"
REPO = Path(__file__).resolve().parents[1]
SETS = sorted(GOLDEN.glob("*/*.json.gz"))


def load_set(path: Path) -> dict[str, Any]:
    """A golden set's document."""
    doc: dict[str, Any] = json.loads(gzip.decompress(path.read_bytes()))
    return doc


def first_difference(doc: dict[str, Any], number: int, game: dict[str, Any]) -> str | None:
    """None if this build plays `game` of the set `doc` bit for bit; else what differs, at the
    first step it differs."""
    cls = game_class(doc["game"], doc["engine_version"])
    state = cls.new_game(game["config"], game["seed"])
    where = f"{doc['engine_version']} game {number} ({len(game['bots'])} players, seed {game['seed']})"
    if state.content_version != doc["content_version"]:
        return f"{where}: content {state.content_version}, the golden set's {doc['content_version']}"
    golden = game["digests"]
    if state.digest()[:8] != golden[:8]:
        return f"{where}: the initial state differs (digest {state.digest()[:8]}, golden {golden[:8]})"
    for n, step in enumerate(game["steps"], start=1):
        d = state.decision()
        if d is None:
            return f"{where}: step {n}: the game is already over"
        if str(d.seat) != game["seats"][n - 1]:
            return f"{where}: step {n}: seat {d.seat} decides, golden seat {game['seats'][n - 1]}"
        if isinstance(step, list):
            state.forfeit(step[0])
            what = f"seat {step[0]} forfeits"
        elif not 0 <= step < len(d.actions):
            return f"{where}: step {n}: {len(d.actions)} legal actions, golden chose [{step}]"
        else:
            what = f"seat {d.seat} chose [{step}] {state.apply_index(step).text}"
        got, want = state.digest()[:8], golden[8 * n : 8 * n + 8]
        if got != want:
            return f"{where}: step {n} ({what}): state digest {got}, golden {want}"
    if state.digest() != game["final_digest"] or state.result().to_json() != game["result"]:
        return f"{where}: the final state or result differs: {state.result().to_json()}"
    return None


@pytest.mark.parametrize("path", SETS, ids=[p.stem.removesuffix(".json") for p in SETS])
def test_every_golden_game_replays_bit_for_bit(path: Path) -> None:
    doc = load_set(path)
    assert (doc["game"], doc["engine_version"] + ".json") == (path.parent.name, path.stem)
    for number, game in enumerate(doc["games"], start=1):
        differs = first_difference(doc, number, game)
        assert differs is None, (
            f"{path.name}: {differs}. A rules change that alters a digest needs a new engine "
            "version (referee/games/README.md, Engine versions)"
        )


def test_every_version_of_every_game_has_its_golden_set() -> None:
    """A new version comes with its set; no set names a version this build cannot play."""
    built = {(spec.name, v) for spec in all_specs() for v in spec.versions()}
    golden = {(p.parent.name, p.name.removesuffix(".json.gz")) for p in SETS}
    assert built == golden
    for path in SETS:
        doc = load_set(path)
        players = {len(g["bots"]) for g in doc["games"]}
        spec = next(s for s in all_specs() if s.name == doc["game"])
        assert players == set(range(spec.min_players, spec.max_players + 1)), path


def test_make_golden_writes_a_new_versions_set_and_never_rewrites_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`make golden GAME=clank` (tests/golden/README.md) refuses: clank-2's set exists. Into an
    empty folder the script writes the set of the build's current version, and this test reads
    it back as a golden set."""
    make = walkthrough_blocks("tests/golden/README.md")["new-version"].split()
    assert make == ["make", "golden", "GAME=clank"]
    done = subprocess.run(make, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "clank-2.json.gz exists: the golden set of clank-2 is never written again" in done.stderr
    from tests.golden import make_golden

    monkeypatch.setattr(make_golden, "HERE", tmp_path)
    assert make_golden.main(["clank"]) == 0
    written = tmp_path / "clank" / "clank-2.json.gz"
    doc = load_set(written)
    assert len(doc["games"]) == 3 * make_golden.GAMES_PER_COUNT
    assert [first_difference(doc, n, g) for n, g in enumerate(doc["games"], 1)] == [None] * len(doc["games"])
    assert doc["games"] == load_set(GOLDEN / "clank" / "clank-2.json.gz")["games"]
    assert make_golden.main(["clank"]) == 1
