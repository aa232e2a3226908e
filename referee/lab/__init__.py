"""The games as standard research environments (README.md): PettingZoo and Gymnasium.

Needs the ``lab`` extra (pettingzoo, gymnasium, numpy); importing this package without it fails
with ImportError naming the extra.
"""

from __future__ import annotations

from referee.lab.pz import ArenaAECEnv, pettingzoo_env

__all__ = ["ArenaAECEnv", "pettingzoo_env"]
