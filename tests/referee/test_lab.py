"""referee.lab: the games as PettingZoo environments (referee/lab/README.md)."""

from __future__ import annotations

import collections
import enum
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

from bench.lab import path_text_encoding
from referee.core.game import Action
from referee.games import all_specs, game_class
from referee.lab import gymnasium_env, pettingzoo_env
from referee.lab.encoding import OBS_BOUND, encode_observation

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
    examples = [block.split("```", 1)[0] for block in text.split("```python\n")[1:]]
    assert len(examples) == 4
    for example in examples:
        exec(compile(example, "referee/lab/README.md", "exec"), {})


@pytest.mark.parametrize(("game", "players"), GAME_PLAYERS)
def test_gymnasium_check_env(game: str, players: int) -> None:
    # no render modes, so no render check (it only warns that there is no spec to read them from)
    check_env(gymnasium_env(game, players, seat=players - 1), skip_render_check=True)


BOT = {"clank": "greedy", "clank_legacy": "greedy", "alien": "coop"}


@pytest.mark.parametrize("game", sorted(BOT))
def test_a_gymnasium_game_against_the_built_in_bot_to_the_end(game: str) -> None:
    def run(seed: int) -> tuple[list[bytes], float, dict[str, Any]]:
        env = gymnasium_env(game, 2, seat=1, opponents=BOT[game])
        obs, _ = env.reset(seed=seed)
        seen, done, reward, info = [obs["observation"].tobytes()], False, 0.0, {}
        while not done:
            legal = np.flatnonzero(obs["action_mask"])
            assert len(legal) > 0 and env.game is not None and env.game.decision() is not None
            assert env.game.decision().seat == 1  # the opponents' turns were played by the bot
            obs, reward, done, truncated, info = env.step(int(legal[-1]))
            assert not truncated
            seen.append(obs["observation"].tobytes())
        assert env.game is not None and env.game.is_over()
        return seen, float(reward), info

    seen, reward, info = run(3)
    assert run(3) == (seen, reward, info)  # same seed: same deal and same bot choices
    assert run(4)[0] != seen
    places = info["result"]["places"]
    if game == "alien":
        assert reward == (1.0 if info["result"]["team_won"] else -1.0)
    else:
        assert reward == (1.0 if places[1] < places[0] else -1.0 if places[1] > places[0] else 1.0)


def test_callable_opponents_and_an_illegal_action() -> None:
    calls: list[int] = []

    def first(observation: dict[str, Any], legal: Sequence[Action]) -> int:
        calls.append(len(legal))
        return 0

    env = gymnasium_env("clank", 3, seat=0, opponents={1: first, 2: "random"})
    obs, _ = env.reset(seed=5)
    for _ in range(40):
        obs, _, done, _, _ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        assert not done
    assert len(calls) > 0
    illegal = int(obs["action_mask"].sum())  # one past the last legal index
    _, reward, done, _, info = env.step(illegal)
    assert (reward, done, info) == (-1.0, True, {"illegal_action": illegal})
    with pytest.raises(ValueError, match=r"no opponent policy for seats \[2\]"):
        gymnasium_env("clank", 3, opponents={1: "random"})
    no_bot = "no built-in bot 'nobody' for clank; available: greedy, ismcts, random"
    with pytest.raises(ValueError, match=no_bot):
        gymnasium_env("clank", 2, opponents="nobody").reset(seed=1)


def _layout(observation: Any) -> np.ndarray:
    """README.md's "Observation layout" read plainly: each leaf's path text (keys sorted, list
    positions as numbers) hashed by CRC-32 modulo 512, a number adding its value, a string 1.0
    at ``path=text``; clipped to ±OBS_BOUND (the plain walk bench/lab.py times the encoder
    against)."""
    return path_text_encoding(observation)


@pytest.mark.parametrize("game", [s.name for s in all_specs()])
def test_the_encoding_is_the_documented_layout(game: str) -> None:
    """The encoder carries each path's CRC down the walk instead of its text (for speed,
    bench/lab.py): every seat's observation at every decision of two random games gives
    exactly the vector of the documented layout."""
    cls = game_class(game)
    checked = 0
    for seed in (1, 2):
        state = cls.new_game(cls.default_config(2), seed)
        rnd = random.Random(seed)
        while (decision := state.decision()) is not None:
            for seat in range(2):
                observation = state.observe(seat)
                np.testing.assert_array_equal(encode_observation(observation), _layout(observation))
                checked += 1
            state.apply_index(rnd.randrange(len(decision.actions)))
    assert checked > 100


class _Colour(enum.IntEnum):
    RED = 3


def test_the_encoding_of_unusual_leaves() -> None:
    """Subclassed containers and numbers, long lists, floats, null, empty containers, unicode
    and huge values land where the layout puts them (and are clipped)."""
    observation = {
        "ordered": collections.OrderedDict([("b", 2), ("a", _Colour.RED)]),
        "long": list(range(300)),
        "pair": (1.5, "x", None, True, False),
        "nested": [{"deep": [["é", -4]]}, {}, []],
        "huge": 3e9,
        "low": -2e9,
    }
    np.testing.assert_array_equal(encode_observation(observation), _layout(observation))
    assert encode_observation(observation).max() == OBS_BOUND
