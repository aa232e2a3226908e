"""`pettingzoo_env`: a PettingZoo AEC environment over one of the registered engines."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]  # no py.typed

from referee.core.game import Game
from referee.games import game_class, game_spec
from referee.lab.encoding import OBS_BOUND, OBS_SIZE, encode_observation

#: the most legal actions any decision of the games offers, the action space's size; legal
#: action i of a decision (the engine's own order) is action index i
MAX_ACTIONS = 128


def seat_rewards(game: Game, cooperative: bool) -> list[float]:
    """Per-seat rewards of a finished game: a cooperative game gives every seat +1 when the
    team won, else -1; a competitive one gives 1 to first place down to -1 for last, linear in
    the place (a shared place shares the value)."""
    result = game.result()
    n = game.num_seats
    if cooperative or n == 1:
        return [1.0 if result.team_won else -1.0] * n
    return [1.0 - 2.0 * (place - 1) / (n - 1) for place in result.places]


class ArenaAECEnv(AECEnv):  # type: ignore[misc]
    """One game of `game` for `players` seats; agents ``player_0``.. are the seats."""

    metadata = {"name": "arena_v0", "render_modes": [], "is_parallelizable": False}

    def __init__(self, game: str, players: int, max_steps: int | None = None,
                 config: dict[str, Any] | None = None) -> None:
        super().__init__()
        spec = game_spec(game)
        if not spec.min_players <= players <= spec.max_players:
            raise ValueError(f"{game} seats {spec.min_players}..{spec.max_players} players, not {players}")
        self.game_name = game
        self.players = players
        self.cooperative = spec.cooperative
        self.max_steps = max_steps
        self._cls = game_class(game)
        self._config = dict(config) if config is not None else self._cls.default_config(players)
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self._obs_space = spaces.Dict({
            "observation": spaces.Box(-OBS_BOUND, OBS_BOUND, (OBS_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (MAX_ACTIONS,), np.int8),
        })
        self._act_space = spaces.Discrete(MAX_ACTIONS)
        self.game: Game | None = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The same Dict space for every agent: the encoded observation and the action mask."""
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """Discrete(MAX_ACTIONS): an index into the pending decision's legal actions."""
        return self._act_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game; the same seed deals the same game (no seed: a random one)."""
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        self.game = self._cls.new_game(self._config, seed)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.steps = 0
        self._select()

    def _select(self) -> None:
        assert self.game is not None
        decision = self.game.decision()
        if decision is not None:
            if len(decision.actions) > MAX_ACTIONS:
                raise RuntimeError(f"{self.game_name}: {len(decision.actions)} legal actions > {MAX_ACTIONS}")
            self.agent_selection = self.possible_agents[decision.seat]

    def _mask(self, agent: str) -> npt.NDArray[np.int8]:
        assert self.game is not None
        mask = np.zeros(MAX_ACTIONS, dtype=np.int8)
        decision = self.game.decision()
        if decision is not None and self.possible_agents[decision.seat] == agent and agent in self.agents \
                and not (self.terminations[agent] or self.truncations[agent]):
            mask[: len(decision.actions)] = 1
        return mask

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        """The agent's seat's observation (``Game.observe``), encoded, with its action mask."""
        assert self.game is not None
        seat = self.possible_agents.index(agent)
        return {"observation": encode_observation(self.game.observe(seat)), "action_mask": self._mask(agent)}

    def step(self, action: int | None) -> None:
        """Play legal action `action` of the selected agent's decision (None once it is done)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert self.game is not None and action is not None
        self._cumulative_rewards[agent] = 0.0
        self.game.apply_index(int(action))
        self.steps += 1
        self.rewards = {a: 0.0 for a in self.agents}
        if self.game.is_over():
            for a, r in zip(self.possible_agents, seat_rewards(self.game, self.cooperative), strict=True):
                self.rewards[a] = r
                self.terminations[a] = True
            self.agent_selection = self.agents[0]
        elif self.max_steps is not None and self.steps >= self.max_steps:
            # truncated: no result, no reward; every agent is done
            self.truncations = {a: True for a in self.agents}
            self.agent_selection = self.agents[0]
        else:
            self._select()
        self._accumulate_rewards()

    def render(self) -> None:
        """No rendering: the replay viewer (REPLAY.md) shows games."""

    def close(self) -> None:
        """Nothing to release."""


def pettingzoo_env(game: str, players: int, **options: Any) -> ArenaAECEnv:
    """A PettingZoo AEC environment for `game` with `players` seats (README.md). Options:
    ``max_steps`` (truncate after that many actions), ``config`` (the engine config; default
    ``default_config(players)``)."""
    return ArenaAECEnv(game, players, **options)
