"""The games as standard research environments (README.md): PettingZoo, Gymnasium and OpenSpiel,
and the determinizers (`sample_state`: a full state consistent with one seat's observation).

Needs the ``lab`` extra (pettingzoo, gymnasium, numpy, open_spiel).
"""

from __future__ import annotations

from referee.games.determinize import DeterminizeError, sample_state
from referee.lab.gym import ArenaGymEnv, gymnasium_env
from referee.lab.pz import ArenaAECEnv, pettingzoo_env


def register_openspiel() -> list[str]:
    """Register ``python_arena_<game>`` with OpenSpiel's `pyspiel` for every game (README.md
    "OpenSpiel"); returns the names for ``pyspiel.load_game``. OpenSpiel is imported here, not
    with `referee.lab`, so the other environments do not load it."""
    from referee.lab.spiel import register_openspiel as register

    return register()


__all__ = [
    "ArenaAECEnv",
    "ArenaGymEnv",
    "DeterminizeError",
    "gymnasium_env",
    "pettingzoo_env",
    "register_openspiel",
    "sample_state",
]
