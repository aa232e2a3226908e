"""`register_openspiel`: every registered game as an OpenSpiel (`pyspiel`) Python game.

``python_arena_<game>`` is a sequential, imperfect-information game over the real engine
(README.md "OpenSpiel"). Chance is one explicit chance node, the deal: outcome k is the engine's
seed k (`new_game(config, k)`, the deal of the PettingZoo ``reset(seed=k)``), and every later
shuffle comes from the engine's random streams, which the seed fixes. Actions are the pending
decision's legal-action indices (the PettingZoo `Discrete(MAX_ACTIONS)` indexing); observations
are the seat's `observe(seat)`, encoded by `referee.lab.encoding`. `resample_from_infostate`
asks the game's determinizer (`referee.games.determinize`) for a state from what the seat is
sent alone (its observation, and its legal actions when it is to act).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pyspiel  # type: ignore[import-not-found]  # a compiled module without stubs

from referee.core.conformance import MAX_STEPS
from referee.core.game import Game, canonical_json
from referee.games import game_class, game_names, game_spec
from referee.games.determinize import Sampler, sampler
from referee.lab.encoding import OBS_SIZE, encode_observation
from referee.lab.pz import MAX_ACTIONS, seat_rewards

__all__ = ["DEALS", "INFO_STATE_SIZE", "ArenaSpielGame", "ArenaSpielState", "register_openspiel"]

#: length of the information-state tensor: the encoded observation, then the encoded count of
#: each of the seat's own past actions
INFO_STATE_SIZE = 2 * OBS_SIZE

#: how many deals the chance node offers (equally likely): outcome k is the engine's seed k
DEALS = 2**16


def _short_name(game: str) -> str:
    return f"python_arena_{game}"


def _game_type(game: str) -> Any:
    spec = game_spec(game)
    return pyspiel.GameType(
        short_name=_short_name(game),
        long_name=f"Arena {spec.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=(pyspiel.GameType.Utility.IDENTICAL if spec.cooperative
                 else pyspiel.GameType.Utility.GENERAL_SUM),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=spec.max_players,
        min_num_players=spec.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={
            "players": max(2, spec.min_players),
            "max_steps": MAX_STEPS,
        },
    )


class _Engine:
    """Holds the engine game: copied with `Game.copy` (shared immutable content) rather than a
    generic deepcopy, pickled through its JSON."""

    __slots__ = ("game",)

    def __init__(self, game: Game) -> None:
        self.game = game

    def __deepcopy__(self, memo: dict[int, Any]) -> _Engine:
        return _Engine(self.game.copy())

    def __reduce__(self) -> tuple[Callable[..., _Engine], tuple[Any, ...]]:
        return (_restore_engine, (type(self.game), self.game.to_json()))


def _restore_engine(cls: type[Game], data: dict[str, Any]) -> _Engine:
    return _Engine(cls.from_json(data))


class _Past:
    """Each seat's own past actions, immutable: a clone shares it (deepcopy returns it), and a
    new action makes a new one, so cloning a long game copies nothing of its past."""

    __slots__ = ("seats",)

    def __init__(self, seats: tuple[tuple[tuple[int, str], ...], ...]) -> None:
        self.seats = seats

    def __deepcopy__(self, memo: dict[int, Any]) -> _Past:
        return self

    def add(self, seat: int, item: tuple[int, str]) -> _Past:
        """This past with `seat`'s action `item` (decision id, action key) added."""
        return _Past(tuple((*past, item) if s == seat else past for s, past in enumerate(self.seats)))


def _history_key(action_kind: str, action_args: tuple[Any, ...]) -> str:
    return canonical_json([action_kind, list(action_args)])


class ArenaSpielState(pyspiel.State):  # type: ignore[misc]
    """One game: first the deal (a chance node), then the engine's decisions."""

    def __init__(self, game: ArenaSpielGame) -> None:
        super().__init__(game)
        self._box: _Engine | None = None  # None: not dealt yet (the chance node)
        self._steps = 0
        self._truncated = False
        # per seat: the seat's own actions so far as (decision id, kind/args) keys; the
        # information state is the seat's current observation plus these (README.md)
        self._own = _Past(((),) * game.players)

    @property
    def engine(self) -> Game:
        """The engine game of this state (ValueError before the deal)."""
        if self._box is None:
            raise ValueError("the game is not dealt yet: apply a chance outcome (the deal) first")
        return self._box.game

    # --- the pyspiel.State API ------------------------------------------------------------

    def current_player(self) -> int:
        """CHANCE before the deal, then the seat of the pending decision, or TERMINAL."""
        if self._box is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        decision = self.engine.decision()
        assert decision is not None
        return decision.seat

    def is_terminal(self) -> bool:
        """The game ended, or was truncated after `max_steps` actions."""
        return self._box is not None and (self._truncated or self._box.game.is_over())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The deal: `DEALS` equally likely engine seeds."""
        assert self._box is None
        p = 1.0 / DEALS
        return [(k, p) for k in range(DEALS)]

    def _legal_actions(self, player: int) -> list[int]:
        decision = self.engine.decision()
        if decision is None or decision.seat != player:
            return []
        if len(decision.actions) > MAX_ACTIONS:
            raise RuntimeError(f"{len(decision.actions)} legal actions > {MAX_ACTIONS}")
        return list(range(len(decision.actions)))

    def _apply_action(self, action: int) -> None:
        g: ArenaSpielGame = self.get_game()
        if self._box is None:
            self._box = _Engine(g.engine_class.new_game(g.config, int(action)))
            return
        engine = self._box.game
        decision = engine.decision()
        assert decision is not None
        played = engine.apply_index(int(action))
        self._own = self._own.add(decision.seat, (decision.id, _history_key(played.kind, played.args)))
        self._steps += 1
        if not engine.is_over() and self._steps >= g.max_steps:
            self._truncated = True

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action}"
        decision = None if self._box is None or self.is_terminal() else self.engine.decision()
        if decision is not None and decision.seat == player and 0 <= action < len(decision.actions):
            chosen = decision.actions[action]
            return f"{action}: {chosen.text or _history_key(chosen.kind, chosen.args)}"
        return f"{action}"

    def returns(self) -> list[float]:
        """Per seat: 0 until the end; the PettingZoo rewards of the result (0 if truncated)."""
        g: ArenaSpielGame = self.get_game()
        if not self.is_terminal() or self._truncated:
            return [0.0] * g.players
        return seat_rewards(self.engine, g.cooperative)

    def __str__(self) -> str:
        if self._box is None:
            return "before the deal"
        engine = self._box.game
        decision = None if self.is_terminal() else engine.decision()
        if decision is None:
            head = "truncated" if self._truncated else f"over, places {list(engine.result().places)}"
        else:
            head = f"seat {decision.seat} to act ({decision.kind}): {decision.prompt}"
        return f"step {self._steps}, {head}; state {engine.digest()}"

    def resample_from_infostate(
        self, player_id: int, probability_sampler: Callable[[], float]
    ) -> ArenaSpielState:
        """A state drawn from `player_id`'s information state: the game's determinizer deals the
        hidden parts from what this seat is sent alone, its observation and, if it is to act, its
        legal actions (`referee.games.determinize`); `probability_sampler` (floats in [0, 1))
        seeds the draw."""
        g: ArenaSpielGame = self.get_game()
        state: ArenaSpielState = g.new_initial_state()
        if self._box is None:
            return state  # before the deal nothing is known, nothing to sample but the deal
        seed = int(probability_sampler() * 2**53) << 53 | int(probability_sampler() * 2**53)
        decision = self.engine.decision()
        # the seat to act is sent its legal actions beside its observation: they pin down what
        # one observation cannot (alien's may-ask, clank's cards acquired and redrawn this turn)
        legal = decision.actions if decision is not None and decision.seat == player_id else None
        sampled = g.sampler(self.engine.observe(player_id), player_id, random.Random(seed), legal)
        state._box = _Engine(sampled)
        state._steps = self._steps
        # the seat keeps its own past; the others' pasts are unknown to it, so they start empty
        # (their true actions would leak)
        state._own = _Past(tuple(self._own.seats[player_id] if seat == player_id else ()
                                 for seat in range(g.players)))
        return state

    # --- what a seat knows ----------------------------------------------------------------

    def information_state(self, player: int) -> tuple[dict[str, Any], tuple[tuple[int, str], ...]]:
        """The seat's information state: its observation now ({} before the deal) and its own
        past actions."""
        observation = {} if self._box is None else self._box.game.observe(player)
        return observation, self._own.seats[player]


class _Observer:
    """The PyObserver of OpenSpiel's observation API: the default observation (this seat's
    `observe`) or, with perfect_recall, the information state (observation + own actions)."""

    def __init__(self, iig_obs_type: Any, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
            raise ValueError("only a seat's own view is offered (public and single-player private info)")
        self.info_state = bool(iig_obs_type.perfect_recall)
        size = INFO_STATE_SIZE if self.info_state else OBS_SIZE
        self.tensor: npt.NDArray[np.float32] = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor[:OBS_SIZE]}
        if self.info_state:
            self.dict["own_actions"] = self.tensor[OBS_SIZE:]

    def set_from(self, state: ArenaSpielState, player: int) -> None:
        """Fill `tensor` with `player`'s view of `state`."""
        observation, own = state.information_state(player)
        self.tensor[:OBS_SIZE] = encode_observation(observation)
        if self.info_state:
            counts: dict[str, int] = {}
            for _, key in own:
                counts[key] = counts.get(key, 0) + 1
            self.tensor[OBS_SIZE:] = encode_observation({"own_actions": counts})

    def string_from(self, state: ArenaSpielState, player: int) -> str:
        """`player`'s view of `state` as text: the observation's canonical JSON, and for the
        information state the seat's own past actions (decision id, action) first."""
        observation, own = state.information_state(player)
        if not self.info_state:
            return canonical_json(observation)
        past = {"seat": player, "own_actions": [list(x) for x in own]}
        return f"{canonical_json(past)}\n{canonical_json(observation)}"


class ArenaSpielGame(pyspiel.Game):  # type: ignore[misc]
    """``python_arena_<game>`` for one registered game. Parameters: ``players``, ``max_steps``
    (a game still going after that many decisions ends there, every return 0)."""

    game_name = ""  # set on each game's subclass by `register_openspiel`

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        game_type = _game_type(self.game_name)
        defaults = game_type.parameter_specification
        self.players = int(params.get("players", defaults["players"]))
        spec = game_spec(self.game_name)
        if not spec.min_players <= self.players <= spec.max_players:
            raise ValueError(f"{self.game_name} seats {spec.min_players}..{spec.max_players} players, "
                             f"not {self.players}")
        self.max_steps = int(params.get("max_steps", defaults["max_steps"]))
        if self.max_steps < 1:
            raise ValueError(f"max_steps must be at least 1, not {self.max_steps}")
        self.cooperative = spec.cooperative
        info = pyspiel.GameInfo(
            num_distinct_actions=MAX_ACTIONS,
            max_chance_outcomes=DEALS,
            num_players=self.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=self.max_steps,
        )
        super().__init__(game_type, info, params)
        self.engine_class = game_class(self.game_name)
        self.config = self.engine_class.default_config(self.players)

    @property
    def sampler(self) -> Sampler:
        """The game's determinizer `sample_state(observation, seat, rng)` (KeyError: none)."""
        return sampler(self.game_name)

    def new_initial_state(self) -> ArenaSpielState:
        """A new game before the deal (a chance node)."""
        return ArenaSpielState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: dict[str, Any] | None = None) -> _Observer:
        """The observer of OpenSpiel's observation API (`_Observer`)."""
        return _Observer(iig_obs_type, params)


def register_openspiel() -> list[str]:
    """Register ``python_arena_<game>`` with `pyspiel` for every registered game (again: no-op);
    returns the short names, for ``pyspiel.load_game``."""
    names = []
    known = set(pyspiel.registered_names())
    for game in game_names():
        name = _short_name(game)
        if name not in known:
            cls = type(f"ArenaSpielGame_{game}", (ArenaSpielGame,), {"game_name": game})
            pyspiel.register_game(_game_type(game), cls)
        names.append(name)
    return names

