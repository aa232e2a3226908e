"""Determinization of every game: `sample_state(game, observation, seat, rng)`.

A game that can be determinized has a module ``referee/games/<game>/determinize.py`` with
``sample_state(observation, seat, rng) -> Game``: a full engine state whose ``observe(seat)``
equals the observation, its hidden parts dealt at random. The function receives the observation
dict only (never a game state), so a sample owes nothing to the true hidden cards; each game's
DETERMINIZE.md says how it deals them.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Mapping
from typing import Any, cast

from referee.core.determinize import DeterminizeError
from referee.core.game import Game
from referee.games import game_spec

__all__ = ["DeterminizeError", "Sampler", "sample_state", "sampler"]

Sampler = Callable[[Mapping[str, Any], int, random.Random], Game]


def sampler(game: str) -> Sampler:
    """The `sample_state(observation, seat, rng)` of a registered game; KeyError for an unknown
    game or one without a determinizer."""
    game_spec(game)  # an unknown name is a KeyError naming the known games, never an import
    try:
        module = importlib.import_module(f"referee.games.{game}.determinize")
    except ModuleNotFoundError:
        raise KeyError(f"game {game!r} has no determinizer (referee/games/{game}/determinize.py)") from None
    return cast(Sampler, module.sample_state)


def sample_state(game: str, observation: Mapping[str, Any], seat: int, rng: random.Random) -> Game:
    """A full state of `game` consistent with what `seat` sees in `observation` (the dict
    `Game.observe(seat)` returned), hidden parts drawn from `rng`. Raises DeterminizeError when
    no state of the game gives that observation."""
    return sampler(game)(observation, seat, rng)
