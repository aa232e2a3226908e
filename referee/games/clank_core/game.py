"""The `Game` parts Clank! and Clank! Legacy share, as a base of their engines.

`ClankGameBase` adds to `referee.core.state_game.StateGame` (the seat count, the content
version, whether the game is over, copying, JSON and the digest, which every engine answers
alike) the tie-break of the result both Clank! games use (the most valuable artifact). Each game
keeps what differs: its setup, its board and card types (`board`, `card`), `from_json` (its own
state class and content, checked with `check_content_version`), forfeits, observations and
scoring.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from referee.core.state_game import GameStateLike, StateGame, check_content_version
from referee.games.clank_core.rules import ClankCore, CoreContent
from referee.games.clank_core.state import CorePlayer, CoreState

__all__ = ["ClankGameBase", "GamePlayer", "GameState", "check_content_version"]


class GamePlayer(CorePlayer, Protocol):
    """What the shared accessors read of a player, beyond the core rules' shape."""

    #: a forfeited seat scores zero and its artifacts break no tie
    forfeited: bool


class GameState(CoreState, GameStateLike, Protocol):
    """What the shared accessors read of a game state, beyond the core rules' shape."""

    @property
    def players(self) -> Sequence[GamePlayer]:
        """The players in seat order."""


class ClankGameBase(ClankCore, StateGame):
    """The `Game` parts both Clank! engines share (the shared rules come from `ClankCore`)."""

    __slots__ = ()

    s: GameState
    content: CoreContent

    def _best_artifacts(self) -> list[int]:
        """Each seat's tie-break: its most valuable artifact ("the tied player with the more
        valuable artifact wins"); 0 for a forfeited seat, whose artifacts break no tie."""
        return [0 if p.forfeited else max(p.artifacts, default=0) for p in self.s.players]
