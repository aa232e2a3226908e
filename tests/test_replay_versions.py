"""Replay formats 2 and 3: compact, checkpoint digests chained over the header (seat metadata
included) and every step's record, format 3 storing the chain in short form; older files still
verify; same game, same bytes; recorder hashes at checkpoints only."""

from __future__ import annotations

import copy
import gzip
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench.replay import format1_bytes
from referee import replay as rp
from referee.core.game import Game
from referee.games import game_class
from referee.runner import play_local

FIXTURES = Path(__file__).parent / "fixtures" / "replays"
ARENA = [sys.executable, "-m", "referee.cli"]


def compact(doc: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(rp.encode(doc))
    return out


def write(tmp_path: Path, compact_doc: dict[str, Any]) -> Path:
    path = tmp_path / "edited.replay.json.gz"
    path.write_bytes(gzip.compress(json.dumps(compact_doc).encode()))
    return path


@pytest.fixture(scope="module")
def forfeit_doc() -> dict[str, Any]:
    """Notes, times, a default action, a forfeit, a header key of its own."""
    return rp.load(FIXTURES / "v1-clank-forfeit.replay.json.gz")


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("v*.replay.json.gz")))
def test_every_older_and_current_fixture_verifies(name: str) -> None:
    path = FIXTURES / name
    report = rp.verify_file(path)
    raw = json.loads(gzip.decompress(path.read_bytes()))
    assert report.format_version == raw["format_version"]
    assert report.steps == len(raw["steps"] if "steps" in raw else raw["actions"]) > 0
    # format 3 derives the result by re-simulation (its final digest binds the recorded one)
    recorded = raw["result"] if raw["format_version"] < 3 else rp.load(path)["result"]
    assert report.result is not None and report.result.to_json() == recorded
    assert report.metadata_covered == (raw["format_version"] in (2, 3))


def test_the_cli_verifies_a_format_1_file_and_says_its_metadata_is_not_covered() -> None:
    done = subprocess.run(
        [*ARENA, "replay", "verify", str(FIXTURES / "v1-clank-forfeit.replay.json.gz")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert (
        "every digest matches" in done.stdout and "format 1: the seat metadata is not covered" in done.stdout
    )


def test_a_format_1_file_rewritten_as_format_3_reads_back_the_same_steps(forfeit_doc: dict[str, Any]) -> None:
    back = rp.loads(rp.dumps(forfeit_doc))
    strip = [{k: v for k, v in s.items() if k != "digest"} for s in forfeit_doc["steps"]]
    assert [{k: v for k, v in s.items() if k != "digest"} for s in back["steps"]] == strip
    assert {k: v for k, v in back.items() if k != "steps"} == {
        k: v for k, v in forfeit_doc.items() if k != "steps"
    }
    # checkpoints: the forfeit (step 13) and the last step; their state digests are kept
    assert [n for n, s in enumerate(back["steps"], 1) if "digest" in s] == [13, len(back["steps"])]
    assert rp.verify(back).result == rp.verify(forfeit_doc).result


def test_the_format_3_fixture_is_what_dumps_writes_today() -> None:
    """Format 3 bytes are stable: reading the fixture and writing it again gives the same file;
    the format 2 file of the same game reads back to the same document and is written as it."""
    data = (FIXTURES / "v3-clank-forfeit.replay.json.gz").read_bytes()
    assert json.loads(gzip.decompress(data))["format_version"] == rp.FORMAT_VERSION == 3
    assert rp.dumps(rp.loads(data)) == data
    older = rp.loads((FIXTURES / "v2-clank-forfeit.replay.json.gz").read_bytes())
    assert older == rp.loads(data)
    assert rp.dumps(older) == data


def test_format_3_stores_the_chain_short_and_its_positions_not_at_all(forfeit_doc: dict[str, Any]) -> None:
    """Header and checkpoint links are 16 hex digits, one per checkpoint (every 64th step, each
    forfeit, the last), the final digest all 32; no positions, interval or initial digest."""
    c = compact(forfeit_doc)
    steps = len(forfeit_doc["steps"])
    positions = [n for n in range(1, steps + 1) if n % rp.CHECKPOINT_EVERY == 0 or n in (13, steps)]
    assert len(c["checkpoints"]) == len(positions) and all(len(link) == 16 for link in c["checkpoints"])
    assert len(c["header_digest"]) == 16 and len(c["final_digest"]) == 32
    assert not {"checkpoint_every", "initial_digest", "result"} & set(c)
    back = rp.loads(json.dumps(c).encode())
    assert back["initial_digest"] == forfeit_doc["initial_digest"] and back["result"] == forfeit_doc["result"]


def test_a_recorded_result_other_than_the_engines_fails_the_final_digest(forfeit_doc: dict[str, Any]) -> None:
    """Format 3 stores no result, but the final digest binds the one recorded: a document whose
    result the engine would not give (written as format 3) does not read back."""
    edited = copy.deepcopy(forfeit_doc)
    edited["result"]["scores"][0] += 5
    with pytest.raises(rp.ReplayError, match="final_digest differs"):
        rp.loads(rp.dumps(edited))
    edited["result"] = None  # a finished game recorded as unfinished
    with pytest.raises(rp.ReplayError, match="final_digest differs"):
        rp.loads(rp.dumps(edited))


def test_a_changed_bot_name_fails_verification_with_a_clear_message(
    forfeit_doc: dict[str, Any], tmp_path: Path
) -> None:
    c = compact(forfeit_doc)
    c["seats"][1]["bot"] = "mallory"
    path = write(tmp_path, c)
    with pytest.raises(rp.ReplayError, match="header_digest differs: the header \\(seats and their metadata"):
        rp.verify_file(path)
    done = subprocess.run(
        [*ARENA, "replay", "verify", str(path)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1 and "header_digest differs" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "edit",
    [
        lambda c: c["seats"][0].update(bot_name="someone else"),  # a key added to a seat
        lambda c: c["seats"][1].pop("strikes"),
        lambda c: c.update(match_id=78),
        lambda c: c.update(config={**c["config"], "board": "side_b"}),  # another game the engine accepts
        lambda c: c.update(seed=c["seed"] + 1),
    ],
)
def test_any_header_edit_fails(forfeit_doc: dict[str, Any], edit: Any) -> None:
    c = compact(forfeit_doc)
    edit(c)
    with pytest.raises(rp.ReplayError, match="header_digest differs"):
        rp.loads(json.dumps(c).encode())


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda c: c["notes"][3].__setitem__(1, "edited"), "step 13: digest differs"),
        (lambda c: c["ms"].__setitem__(2, 999), "step 13: digest differs"),
        (lambda c: c["reasons"].clear(), "step 13: digest differs"),
        (lambda c: c["forfeits"][0].__setitem__(2, "it crashed"), "step 13: digest differs"),
        (lambda c: c.update(ended_by="referee"), "final_digest differs"),
        (lambda c: c["checkpoints"].__setitem__(1, "0" * 16), f"step {58}: digest differs"),
    ],
)
def test_step_records_and_the_end_are_covered(forfeit_doc: dict[str, Any], edit: Any, message: str) -> None:
    c = compact(forfeit_doc)
    edit(c)
    with pytest.raises(rp.ReplayError, match=message):
        rp.loads(json.dumps(c).encode())


def test_a_different_legal_action_at_a_checkpoint_fails_there() -> None:
    doc = play_local("clank", ["random", "random"], seed=8).replay
    n = rp.CHECKPOINT_EVERY
    c = compact(doc)
    game = rp.loads(rp.dumps(doc))  # the legal actions at step n: re-simulate to it
    state = next(g for i, (g, _) in enumerate(rp.simulate(game), 1) if i == n).decision()
    assert state is not None and len(state.actions) > 1
    c["actions"][n - 1] = (c["actions"][n - 1] + 1) % len(state.actions)
    with pytest.raises(rp.ReplayError, match=f"step {n}: digest differs: the state after step {n}"):
        rp.loads(json.dumps(c).encode())


def test_same_seed_and_bots_give_the_same_file_bit_for_bit(tmp_path: Path) -> None:
    a = play_local("alien", ["coop", "coop"], seed=31).replay
    b = play_local("alien", ["coop", "coop"], seed=31).replay
    assert rp.dumps(a) == rp.dumps(b)
    # and through the CLI, which writes the file itself
    for folder in ("one", "two"):
        done = subprocess.run(
            [
                *ARENA,
                "play",
                "clank",
                "--players",
                "2",
                "--bots",
                "random,greedy",
                "--seed",
                "4",
                "--games",
                "1",
                "--replay-dir",
                str(tmp_path / folder),
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
    one, two = (tmp_path / f / "clank-4.replay.json.gz" for f in ("one", "two"))
    assert one.read_bytes() == two.read_bytes()


def test_the_recorder_hashes_the_state_only_at_checkpoints(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = 0
    cls = game_class("clank")
    real = cls.digest

    def counting(self: Game) -> str:
        nonlocal calls
        calls += 1
        return real(self)

    monkeypatch.setattr(cls, "digest", counting)
    played = play_local("clank", ["random", "random", "random", "random"], seed=2)
    steps = len(played.replay["steps"])
    assert steps > 2 * rp.CHECKPOINT_EVERY
    # the initial state, every CHECKPOINT_EVERY-th step, and the last step (if not one already)
    expected = 1 + steps // rp.CHECKPOINT_EVERY + (1 if steps % rp.CHECKPOINT_EVERY else 0)
    assert calls == expected


@pytest.mark.parametrize(
    ("game", "bots"),
    [
        ("clank", ["random", "greedy", "random", "greedy"]),
        ("alien", ["coop"] * 2),
        ("clank_legacy", ["random", "greedy"]),
    ],
)
def test_format_3_stores_at_most_4_bytes_per_decision(game: str, bots: list[str]) -> None:
    played = [play_local(game, bots, seed) for seed in (1, 2, 3)]
    decisions = sum(p.decisions for p in played)
    stored = sum(len(rp.dumps(p.replay)) for p in played)
    assert stored / decisions <= 4
    assert sum(format1_bytes(p.replay) for p in played) / decisions > 20  # what format 1 cost


def test_simulate_refuses_an_unexpanded_document(forfeit_doc: dict[str, Any]) -> None:
    with pytest.raises(rp.ReplayError, match="expanded document"):
        next(rp.simulate(compact(forfeit_doc)))
    edited = copy.deepcopy(forfeit_doc)
    edited["steps"][2]["ms"] = "fast"
    with pytest.raises(rp.ReplayError, match=r"steps\[2\]\.ms: expected an integer"):
        rp.verify(edited)


def test_show_and_verify_number_steps_alike() -> None:
    """Step n is the n-th entry of steps for `verify`'s errors and `show`'s lines alike."""
    from referee.replay_view import render

    doc = play_local("clank", ["random", "random"], seed=8).replay
    n = rp.CHECKPOINT_EVERY
    broken = copy.deepcopy(doc)
    broken["steps"][n - 1]["digest"] = "0" * 32
    with pytest.raises(rp.ReplayError, match=f"^step {n}: state digest differs"):
        rp.verify(broken)
    shown: list[str] = []
    with pytest.raises(rp.ReplayError, match=f"^step {n}: state digest differs"):
        for line in render(broken, None):
            shown.append(line)
    numbered = [line for line in shown if line.startswith("[step ")]
    assert numbered[-1].startswith(f"[step {n}]") and len(numbered) == n
