"""State pieces shared by the Clank! games: plain data, JSON-able.

`TurnPool` is the resources of the turn in progress. `CorePlayer` and `CoreState` are the shapes
the shared rules (`rules.py`) read and write; each game's own dataclasses have these fields (and
more), so the core never needs to know which game it serves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["ESCAPED", "KNOCKED_OUT", "PLAYING", "CorePlayer", "CoreState", "TurnPool"]

PLAYING = "playing"
ESCAPED = "escaped"
KNOCKED_OUT = "knocked_out"


@dataclass(slots=True)
class TurnPool:
    """Resources of the turn in progress; all lost at turn end."""

    skill: int = 0
    swords: int = 0
    boots: int = 0
    teleports: int = 0
    #: unused negative Clank! that may offset positive Clank! later this turn
    negative_clank: int = 0
    #: entered a space that exhausts (crystal cave, forest): no more Boot movement this turn
    exhausted: bool = False


class CorePlayer(Protocol):
    """What the shared rules read and write of a player."""

    deck: list[str]
    hand: list[str]
    play: list[str]
    discard: list[str]
    damage: int
    supply: int
    gold: int
    items: list[str]
    artifacts: list[int]
    status: str
    may_take: bool
    potions: list[str]
    kept_secrets: list[str]
    new_discard: list[str]
    new_deck: list[str]
    new_hand: list[str]
    trashed: int


class CoreState(Protocol):
    """What the shared rules read and write of a game state."""

    seed: int
    players_n: int
    rng: dict[str, int]
    step: int
    round: int
    current: int
    row: list[str | None]
    reserve: dict[str, int]
    last_attack: dict[str, Any]
    clank_area: list[int]
    bag_black: int
    bag_cubes: list[int]
    rage: int
    stack: list[dict[str, Any]]
    #: artifacts on the board, by room or space
    artifacts: dict[str, int]

    @property
    def players(self) -> Sequence[CorePlayer]:
        """The players in seat order."""

    @property
    def pool(self) -> TurnPool:
        """The active player's turn pool."""
