"""The in-process bot interface."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from referee.core.game import Action

__all__ = ["LocalBot"]


class LocalBot(Protocol):
    """A bot called directly by the local runner."""

    name: str

    def act(self, observation: dict[str, Any], legal_actions: Sequence[Action]) -> int:
        """Index of the chosen action in `legal_actions`."""
        ...
