"""The games as standard research environments (README.md): PettingZoo and Gymnasium, and the
determinizers (`sample_state`: a full state consistent with one seat's observation).

Needs the ``lab`` extra (pettingzoo, gymnasium, numpy).
"""

from __future__ import annotations

from referee.games.determinize import DeterminizeError, sample_state
from referee.lab.gym import ArenaGymEnv, gymnasium_env
from referee.lab.pz import ArenaAECEnv, pettingzoo_env

__all__ = [
    "ArenaAECEnv",
    "ArenaGymEnv",
    "DeterminizeError",
    "gymnasium_env",
    "pettingzoo_env",
    "sample_state",
]
