"""The games as standard research environments (README.md): PettingZoo and Gymnasium.

Needs the ``lab`` extra (pettingzoo, gymnasium, numpy).
"""

from __future__ import annotations

from referee.lab.gym import ArenaGymEnv, gymnasium_env
from referee.lab.pz import ArenaAECEnv, pettingzoo_env

__all__ = ["ArenaAECEnv", "ArenaGymEnv", "gymnasium_env", "pettingzoo_env"]
