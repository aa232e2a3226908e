"""A bot that picks a uniformly random legal action (seeded, so games are reproducible)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from referee.core.game import Action

__all__ = ["RandomBot"]


class RandomBot:
    """Uniformly random legal actions."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self._rnd = random.Random(seed)

    def act(self, observation: dict[str, Any], legal_actions: Sequence[Action]) -> int:
        """Any legal action, uniformly."""
        return self._rnd.randrange(len(legal_actions))
