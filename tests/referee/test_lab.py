"""referee.lab: the games as PettingZoo environments (referee/lab/README.md)."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test

from referee.games import all_specs
from referee.lab import pettingzoo_env

GAME_PLAYERS = [(s.name, p) for s in all_specs() for p in range(s.min_players, s.max_players + 1)]


# the Dict {"observation", "action_mask"} is PettingZoo's own masked-observation convention; its
# api_test only whitelists its own games' Dict spaces, by name, in these two warnings
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.parametrize(("game", "players"), GAME_PLAYERS)
def test_pettingzoo_api_test(game: str, players: int) -> None:
    api_test(pettingzoo_env(game, players, max_steps=60), num_cycles=70)


def _play(game: str, players: int, seed: int, picks_seed: int = 0) -> tuple[list[bytes], dict[str, float]]:
    """A whole game dealt by `seed`, with random legal picks drawn from `picks_seed`: the
    observations seen and the rewards."""
    env = pettingzoo_env(game, players)
    env.reset(seed=seed)
    picks = random.Random(picks_seed)
    seen: list[bytes] = []
    totals = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        seen.append(obs["observation"].tobytes())
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(picks.choice(legal)))
    assert env.game is not None and env.game.is_over()
    return seen, totals


@pytest.mark.parametrize("game", sorted({g for g, _ in GAME_PLAYERS}))
def test_a_full_game_ends_with_the_results_rewards(game: str) -> None:
    players = 2
    seen, totals = _play(game, players, seed=7)
    again, totals_again = _play(game, players, seed=7)
    assert (seen, totals) == (again, totals_again)  # same seed, same game
    assert seen != _play(game, players, seed=8)[0]  # same picks, another deal
    if game == "alien":
        assert len(set(totals.values())) == 1 and abs(next(iter(totals.values()))) == 1.0
    else:
        assert sorted(totals.values()) == [-1.0, 1.0]


def test_the_readme_example_runs_as_printed() -> None:
    text = (Path(__file__).parents[2] / "referee/lab/README.md").read_text()
    example = text.split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(example, "referee/lab/README.md", "exec"), {})
