"""`make bench`'s engine-vs-Uno figure: what it counts and how it reports (no timings asserted).

RLCard is an optional (bench) dependency, so the reference is replaced here at its import seam
by a stand-in Uno whose games have a known number of steps."""

from __future__ import annotations

import importlib
import types
from typing import Any

import pytest

from bench import engines as bench

STEPS_PER_GAME = 7


class _Env:
    """Two players; each game ends after STEPS_PER_GAME env.step calls."""

    num_players = 2
    num_actions = 3

    def __init__(self) -> None:
        self.left = 0
        self.seeds: list[int] = []

    def seed(self, seed: int) -> None:
        self.seeds.append(seed)

    def reset(self) -> tuple[dict[str, Any], int]:
        self.left = STEPS_PER_GAME
        return {"legal_actions": {0: None, 2: None}}, 0

    def is_over(self) -> bool:
        return self.left == 0

    def step(self, action: int) -> tuple[dict[str, Any], int]:
        assert action in (0, 2)
        self.left -= 1
        return {"legal_actions": {0: None, 2: None}}, self.left % 2


def _fake_rlcard(monkeypatch: pytest.MonkeyPatch) -> _Env:
    env = _Env()

    class RandomAgent:
        def __init__(self, num_actions: int) -> None:
            assert num_actions == env.num_actions

        @staticmethod
        def step(state: dict[str, Any]) -> int:
            legal: dict[int, None] = state["legal_actions"]
            return min(legal)

    modules = {
        "rlcard": types.SimpleNamespace(make=lambda name: env if name == "uno" else None),
        "rlcard.agents": types.SimpleNamespace(RandomAgent=RandomAgent),
        "numpy": types.SimpleNamespace(random=types.SimpleNamespace(seed=lambda seed: None)),
    }
    real = importlib.import_module
    monkeypatch.setattr(importlib, "import_module", lambda name: modules.get(name) or real(name))
    return env


def test_uno_unit_counts_one_step_per_env_step(monkeypatch: pytest.MonkeyPatch) -> None:
    env = _fake_rlcard(monkeypatch)
    play = bench._uno_unit()
    assert play is not None
    assert play(11) == bench.UNO_GAMES_PER_UNIT * STEPS_PER_GAME
    assert env.seeds == [11]


def test_ratios_are_against_uno_and_the_goal_is_clank_4p_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_rlcard(monkeypatch)
    row = bench.engine_vs_uno(1, rounds=1)
    rates = row["decisions_per_cpu_s"]
    expected = {"uno", "clank_4p_bare", "clank_4p_recorded", "alien_2p_recorded", "clank_4p_replay_file"}
    assert expected <= set(rates)
    assert all(rate > 0 for rate in rates.values())
    assert row["vs_uno"]["clank_2p_bare"] == pytest.approx(rates["clank_2p_bare"] / rates["uno"])
    assert row["goal_ratio"] == row["vs_uno"]["clank_4p_recorded"]
    assert row["goal_met"] == (row["goal_ratio"] >= bench.ENGINE_GOAL)


def test_without_rlcard_the_figure_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = importlib.import_module

    def missing(name: str) -> Any:
        if name.split(".")[0] == "rlcard":
            raise ImportError(name)
        return real(name)

    monkeypatch.setattr(importlib, "import_module", missing)
    row = bench.engine_vs_uno(1, rounds=1)
    assert "uno" not in row["decisions_per_cpu_s"] and "goal_met" not in row
    bench._print_engine_vs_uno(row)
    assert "rlcard is not installed (pip install -e '.[bench]')" in capsys.readouterr().out


def test_forward_model_counts_copy_and_step_beside_plain_steps() -> None:
    """The forward-model figure (issue 27): its four rates and the two ratios built from them,
    from mid-game states (none over)."""
    states = bench._forward_states("clank", 2, 2)
    row = bench.forward_model("clank", 2, states=2, rounds=1)
    assert set(row) == {"plain_steps_per_s", "copy_steps_per_s", "copies_per_s", "pickle_copies_per_s",
                        "forward_vs_plain", "copy_vs_pickle"}
    assert row["forward_vs_plain"] == row["copy_steps_per_s"] / row["plain_steps_per_s"]
    assert row["copy_vs_pickle"] == row["copies_per_s"] / row["pickle_copies_per_s"]
    assert len(states) == 2 and all(not g.is_over() and g.decision() for g in states)
