"""Replays: recorded by the runner, verified by re-simulation, tamper-evident, viewable by seat."""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path

import pytest

from referee import replay as rp
from referee.replay_view import render
from referee.runner import play_local


@pytest.fixture(scope="module")
def game3():
    return play_local("clank", ["greedy", "random", "random"], seed=11)


def test_replay_holds_versions_config_seed_seats_actions_digests_result(game3) -> None:
    r = game3.replay
    assert r["format"] == rp.FORMAT and r["format_version"] == rp.EXPANDED_VERSION
    assert r["game"] == "clank" and r["engine_version"] and r["content_version"]
    assert r["config"] == {"players": 3, "board": "side_a"} and r["seed"] == 11
    assert [s["bot"] for s in r["seats"]] == ["greedy", "random", "random"]
    assert len(r["steps"]) == game3.decisions
    # the state is hashed at checkpoints only: every CHECKPOINT_EVERY-th step and the last
    hashed = [n for n, step in enumerate(r["steps"], 1) if "digest" in step]
    every = rp.CHECKPOINT_EVERY
    assert hashed == [*range(every, len(r["steps"]), every), len(r["steps"])]
    assert all(len(r["steps"][n - 1]["digest"]) == 32 for n in hashed)
    assert r["result"] == game3.result.to_json()
    assert "started_at" not in r  # a local game's file is a function of its seed and bots


def test_replay_round_trips_through_compressed_file(game3, tmp_path: Path) -> None:
    path = tmp_path / "g.replay.json.gz"
    rp.save(game3.replay, path)
    assert path.read_bytes()[:2] == b"\x1f\x8b"  # gzip
    assert rp.load(path) == json.loads(json.dumps(game3.replay))
    # deterministic bytes: same replay, same file
    assert rp.dumps(game3.replay) == rp.dumps(copy.deepcopy(game3.replay))


def test_verify_resimulates_every_step(game3) -> None:
    report = rp.verify(game3.replay)
    assert report.steps == len(game3.replay["steps"])
    assert report.result == game3.result


def test_verify_catches_a_changed_digest(game3) -> None:
    bad = copy.deepcopy(game3.replay)
    bad["steps"][rp.CHECKPOINT_EVERY - 1]["digest"] = "0" * 32
    with pytest.raises(rp.ReplayError, match=f"step {rp.CHECKPOINT_EVERY}: state digest differs"):
        rp.verify(bad)


def test_verify_catches_a_changed_action(game3) -> None:
    bad = copy.deepcopy(game3.replay)
    step = next(s for s in bad["steps"] if s["index"] > 0)
    step["index"] -= 1
    with pytest.raises(rp.ReplayError):
        rp.verify(bad)


def test_verify_catches_a_changed_result(game3) -> None:
    bad = copy.deepcopy(game3.replay)
    bad["result"]["scores"][0] += 1
    with pytest.raises(rp.ReplayError, match="result differs"):
        rp.verify(bad)


def test_verify_refuses_another_engine_version(game3) -> None:
    bad = copy.deepcopy(game3.replay)
    bad["engine_version"] = "clank-0"
    with pytest.raises(rp.ReplayError, match="engine"):
        rp.verify(bad)


def test_load_rejects_garbage_with_a_clear_error() -> None:
    with pytest.raises(rp.ReplayError, match="not a replay"):
        rp.loads(b"\x1f\x8bnot really gzip")
    with pytest.raises(rp.ReplayError, match="not a replay"):
        rp.loads(gzip.compress(b'{"hello": 1}'))


def test_forfeits_are_recorded_and_resimulated() -> None:
    from referee.games import game_class

    cls = game_class("clank")
    game = cls.new_game(cls.default_config(2), 5)
    rec = rp.ReplayRecorder(game, 5, cls.default_config(2), [{"seat": 0}, {"seat": 1}])
    for _ in range(12):
        d = game.decision()
        action = game.apply_index(0)
        rec.action(d.id, d.seat, 0, action, note="x" * 1000, millis=3)
    seat = game.decision().seat
    game.forfeit(seat)
    rec.forfeit(seat, "too many strikes")
    while not game.is_over():
        d = game.decision()
        rec.action(d.id, d.seat, 0, game.apply_index(0))
    doc = rec.finish()
    assert any(s.get("forfeit") == seat for s in doc["steps"])
    assert len(doc["steps"][0]["note"]) == rp.NOTE_LIMIT
    assert rp.verify(doc).result.outcomes[seat] == "forfeited"
    doc["steps"][12]["forfeit"] = 1 - seat
    with pytest.raises(rp.ReplayError):
        rp.verify(doc)


def test_show_for_a_seat_never_prints_another_seats_hand(game3) -> None:
    from referee.games.clank.content import default_content

    names = {c.id: c.name for c in default_content().cards.values()}
    lines = list(render(game3.replay, seat=1))
    hand_lines = [line for line in lines if line.strip().startswith("hand")]
    assert hand_lines, "the seat's own hand is shown at its decisions"
    assert not any(line.strip().startswith("hands:") for line in lines)
    # without --seat, everyone's hands are shown
    full = list(render(game3.replay, seat=None))
    assert any(line.strip().startswith("hands:") for line in full)
    assert any(names["burgle"] in line for line in hand_lines)


def test_show_rejects_a_seat_that_does_not_exist(game3) -> None:
    with pytest.raises(ValueError, match="seat 7"):
        list(render(game3.replay, seat=7))
