"""Legendary Encounters: Alien over real gRPC: typed observations, out-of-turn Coordinate, the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.games import game_class
from referee.replay import load, verify
from referee.server.config import TimeControl

from .conftest import BOTS, RANDOM_BOT, REPO, play, python_bot

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ARENA = [sys.executable, "-m", "referee.cli"]
JS_BOT = f"node {REPO / 'bots' / 'javascript' / 'random_bot.js'}"
COOP_BOT = python_bot(REPO / "bots" / "python" / "examples" / "alien_coop_bot.py")
LOGGING_BOT = python_bot(BOTS / "alien_logging_bot.py")
CLOCK = TimeControl(decision_ms=2000, bank_ms=20000, max_strikes=3, connect_ms=15000)


def _expected_requests(replay: dict[str, Any]) -> list[dict[str, Any]]:
    """Re-simulate the replay: per step, who was asked, whose turn it was, and the kind."""
    cls = game_class("alien")
    game = cls.new_game(replay["config"], replay["seed"])
    out = []
    for step in replay["steps"]:
        assert "index" in step, step  # nobody timed out or forfeited
        d = game.decision()
        assert d is not None and d.seat == step["seat"]
        active = game.observe(d.seat)["current"]
        out.append({"id": step["decision"], "seat": d.seat, "active": active, "kind": d.kind})
        game.apply_index(step["index"])
    assert game.is_over()
    return out


def _logged_requests(log: str) -> list[dict[str, Any]]:
    rows = []
    for line in log.splitlines():
        if not line.startswith("asked "):
            continue
        w = line.split()
        row = dict(zip(w[2::2], w[3::2], strict=True))
        rows.append(
            {
                "id": int(w[1]),
                "seat": int(row["seat"]),
                "active": int(row["active"]),
                "out_of_turn": row["out_of_turn"] == "1",
                "kind": row["kind"],
                "obs": row["obs"],
                "current": int(row["current"]),
                "to_act": row["to_act"],
            }
        )
    return rows


def test_coordinate_is_asked_of_the_other_players_out_of_turn(tmp_path: Path) -> None:
    """Three SDK bots log every DecisionRequest; the logs match the replay step for step: each
    decision went to the seat the engine asked, Coordinate always to a seat other than the active
    one (out_of_turn set, active_seat right), with a typed AlienObservation."""
    played = play([LOGGING_BOT] * 3, tmp_path, seed=3, clock=CLOCK, game="alien")
    replay = played.replay
    verify(replay)
    assert replay["ended_by"] == "game_over"
    assert [s["strikes"] for s in replay["seats"]] == [0, 0, 0]
    expected = _expected_requests(replay)
    logged = sorted(
        (r for seat in range(3) for r in _logged_requests(played.log(seat))), key=lambda r: int(r["id"])
    )
    assert [(r["id"], r["seat"], r["active"], r["kind"]) for r in logged] == [
        (e["id"], e["seat"], e["active"], e["kind"]) for e in expected
    ]
    for r in logged:
        assert r["obs"] == "AlienObservation"
        assert r["out_of_turn"] == (r["seat"] != r["active"])
        assert r["current"] == r["active"] and r["to_act"] == f"{r['seat']}/{r['kind']}"
        if r["kind"] == "turn":
            assert not r["out_of_turn"]
    coordinate = [r for r in logged if r["kind"] == "coordinate"]
    assert coordinate and all(r["out_of_turn"] for r in coordinate)
    # every Action phase asks each other living player in turn order from the active player's left
    assert {(r["active"], r["seat"]) for r in coordinate} == {
        (a, (a + k) % 3) for a in range(3) for k in (1, 2)
    }
    # and some of them lent a card (the coop bot coordinates when a kill is in reach)
    assert any(s["action"]["kind"] == "coordinate" for s in replay["steps"])


def test_arena_match_alien_python_and_javascript_bots(tmp_path: Path) -> None:
    assert (REPO / "bots" / "javascript" / "node_modules" / "@grpc" / "grpc-js").is_dir(), (
        "run `npm ci --prefix bots/javascript` (make test does)"
    )
    replay = tmp_path / "alien.replay.gz"
    out = subprocess.run(
        [
            *ARENA,
            "match",
            "alien",
            "--bot",
            COOP_BOT,
            "--bot",
            JS_BOT,
            "--bot",
            RANDOM_BOT,
            "--seed",
            "4",
            "--replay",
            str(replay),
            "--json",
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    summary = json.loads(out.stdout)
    assert summary["game"] == "alien" and summary["ended_by"] == "game_over"
    assert [s["bot"] for s in summary["seats"]] == ["coop", "random-js", "random"]
    assert all(s["strikes"] == 0 and s["exit_code"] == 0 for s in summary["seats"])
    assert all(s["outcome"] in ("survived", "died") for s in summary["seats"])
    assert isinstance(summary["team_won"], bool)
    verified = subprocess.run([*ARENA, "replay", "verify", str(replay)], capture_output=True, text=True)
    assert verified.returncode == 0, verified.stderr
    doc = load(replay)
    assert doc["game"] == "alien" and doc["seats"][1]["sdk"].startswith("arena-bot-node")
    # the coop bot notes its out-of-turn answers
    assert any(str(s.get("note", "")).startswith("for seat ") for s in doc["steps"] if s["seat"] == 0)
