"""Determinization of every game: `sample_state(game, observation, seat, rng)`.

A game that can be determinized has a module ``referee/games/<game>/determinize.py`` with
``sample_state(observation, seat, rng, legal_actions=None) -> Game``: a full engine state whose
``observe(seat)`` equals the observation, its hidden parts dealt at random. The function receives
what the seat is sent and nothing else (never a game state): the observation dict and, when the
seat is the one to act, optionally its decision's legal actions (the leak check covers both), so
a sample owes nothing to the true hidden cards; each game's DETERMINIZE.md says how it deals them.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, cast

from referee.core.determinize import DeterminizeError
from referee.core.game import Action, Game
from referee.games import game_spec

__all__ = ["DeterminizeError", "Sampler", "sample_state", "sampler"]



class Sampler(Protocol):
    """A game's `sample_state`."""

    def __call__(
        self,
        observation: Mapping[str, Any],
        seat: int,
        rng: random.Random,
        legal_actions: Sequence[Action] | None = None,
    ) -> Game:
        """A state consistent with `observation` (and `legal_actions`, when given)."""


def sampler(game: str) -> Sampler:
    """The `sample_state(observation, seat, rng)` of a registered game; KeyError for an unknown
    game or one without a determinizer."""
    game_spec(game)  # an unknown name is a KeyError naming the known games, never an import
    try:
        module = importlib.import_module(f"referee.games.{game}.determinize")
    except ModuleNotFoundError:
        raise KeyError(f"game {game!r} has no determinizer (referee/games/{game}/determinize.py)") from None
    return cast(Sampler, module.sample_state)


def sample_state(
    game: str,
    observation: Mapping[str, Any],
    seat: int,
    rng: random.Random,
    legal_actions: Sequence[Action] | None = None,
) -> Game:
    """A full state of `game` consistent with what `seat` sees in `observation` (the dict
    `Game.observe(seat)` returned), hidden parts drawn from `rng`. `legal_actions`, the seat's
    own decision's actions when it is the one to act (what a bot is sent with the observation),
    pins down what the observation alone does not (DETERMINIZE.md): the sample then offers the
    seat exactly those actions. Raises DeterminizeError when no state of the game gives that
    observation."""
    return sampler(game)(observation, seat, rng, legal_actions)
