"""`gymnasium_env`: one seat of a game as a Gymnasium environment, the others played by policies."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from referee.bots import make_bot
from referee.core.game import Action, Game
from referee.games import game_class, game_spec
from referee.lab.encoding import OBS_BOUND, OBS_SIZE, encode_observation
from referee.lab.pz import MAX_ACTIONS, seat_rewards

#: an opponent: the built-in bot's name (referee.bots.available(game)) or a callable with a bot's
#: act signature, (observation dict, legal actions) -> index
Policy = str | Callable[[dict[str, Any], Sequence[Action]], int]

#: reward of a step whose action is not a legal index: the episode ends there
ILLEGAL_REWARD = -1.0


class ArenaGymEnv(gymnasium.Env[dict[str, Any], np.int64]):
    """`game` for `players` seats from seat `seat`'s side; the other seats are `opponents`."""

    metadata = {"render_modes": []}

    def __init__(self, game: str, players: int, seat: int = 0,
                 opponents: Policy | Mapping[int, Policy] = "random",
                 max_steps: int | None = None, config: dict[str, Any] | None = None) -> None:
        spec = game_spec(game)
        if not spec.min_players <= players <= spec.max_players:
            raise ValueError(f"{game} seats {spec.min_players}..{spec.max_players} players, not {players}")
        if not 0 <= seat < players:
            raise ValueError(f"seat {seat} is not one of 0..{players - 1}")
        others = [s for s in range(players) if s != seat]
        if isinstance(opponents, Mapping):
            missing = sorted(set(others) - set(opponents))
            if missing:
                raise ValueError(f"no opponent policy for seats {missing}")
            self._policies = {s: opponents[s] for s in others}
        else:
            self._policies = {s: opponents for s in others}
        self.game_name = game
        self.seat = seat
        self.cooperative = spec.cooperative
        self.max_steps = max_steps
        self._cls = game_class(game)
        self._config = dict(config) if config is not None else self._cls.default_config(players)
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(-OBS_BOUND, OBS_BOUND, (OBS_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (MAX_ACTIONS,), np.int8),
        })
        self.action_space = spaces.Discrete(MAX_ACTIONS)
        self.game: Game | None = None
        self._acts: dict[int, Callable[[dict[str, Any], Sequence[Action]], int]] = {}
        self.steps = 0

    def _obs(self) -> dict[str, npt.NDArray[Any]]:
        assert self.game is not None
        mask = np.zeros(MAX_ACTIONS, dtype=np.int8)
        decision = self.game.decision()
        if decision is not None and decision.seat == self.seat:
            mask[: len(decision.actions)] = 1
        return {"observation": encode_observation(self.game.observe(self.seat)), "action_mask": mask}

    def _advance(self) -> bool:
        """Play the opponents until it is the seat's turn or the game ends; False if the step
        limit truncated the game first."""
        assert self.game is not None
        while (decision := self.game.decision()) is not None and decision.seat != self.seat:
            if self.max_steps is not None and self.steps >= self.max_steps:
                return False
            act = self._acts[decision.seat]
            self.game.apply_index(act(self.game.observe(decision.seat), decision.actions))
            self.steps += 1
        return True

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """A new game (same seed: same deal and same bot choices), played up to the seat's turn."""
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(2**31))
        self.game = self._cls.new_game(self._config, game_seed)
        # each built-in bot gets its own seed from the game's, so a seed replays their choices
        self._acts = {}
        for s, policy in self._policies.items():
            if isinstance(policy, str):
                self._acts[s] = make_bot(self.game_name, policy, game_seed + s).act
            else:
                self._acts[s] = policy
        self.steps = 0
        self._advance()
        return self._obs(), {}

    def step(self, action: np.int64 | int) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Play legal action index `action` for the seat, then the opponents up to its next turn.
        An index that is not legal ends the episode with reward ILLEGAL_REWARD."""
        assert self.game is not None
        decision = self.game.decision()
        if decision is None:
            raise RuntimeError("the game is over: call reset()")
        if not 0 <= int(action) < len(decision.actions):
            return self._obs(), ILLEGAL_REWARD, True, False, {"illegal_action": int(action)}
        self.game.apply_index(int(action))
        self.steps += 1
        if not self._advance() or (self.max_steps is not None and self.steps >= self.max_steps
                                   and not self.game.is_over()):
            return self._obs(), 0.0, False, True, {}
        if self.game.is_over():
            reward = seat_rewards(self.game, self.cooperative)[self.seat]
            return self._obs(), reward, True, False, {"result": self.game.result().to_json()}
        return self._obs(), 0.0, False, False, {}


def gymnasium_env(game: str, players: int, seat: int = 0,
                  opponents: Policy | Mapping[int, Policy] = "random", **options: Any) -> ArenaGymEnv:
    """A Gymnasium environment of seat `seat` of `game` (README.md). `opponents`: one policy for
    every other seat or a {seat: policy} map; a policy is a built-in bot's name or a callable
    (observation, legal_actions) -> index. Options as `pettingzoo_env`: ``max_steps``, ``config``."""
    return ArenaGymEnv(game, players, seat, opponents, **options)
