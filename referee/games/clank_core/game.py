"""The `Game` accessors Clank! and Clank! Legacy share, as a base of their engines.

`ClankGameBase` answers the parts of the `Game` contract that read the state the same way in
both games: the seat count, the content version, whether the game is over, copying, JSON and
the digest, and the tie-break of the result (the most valuable artifact). Each game keeps what
differs: its setup, its board and card types (`board`, `card`), `from_json` (its own state
class and content, checked with `check_content_version`), forfeits, observations and scoring.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, Self

from referee.core.game import Decision, Game, InvalidConfig, json_digest
from referee.games.clank_core.rules import ClankCore, CoreContent
from referee.games.clank_core.state import CorePlayer, CoreState

__all__ = ["ClankGameBase", "GamePlayer", "GameState", "check_content_version"]


class GamePlayer(CorePlayer, Protocol):
    """What the shared accessors read of a player, beyond the core rules' shape."""

    #: a forfeited seat scores zero and its artifacts break no tie
    forfeited: bool


class GameState(CoreState, Protocol):
    """What the shared accessors read of a game state, beyond the core rules' shape."""

    content_version: str

    @property
    def players(self) -> Sequence[GamePlayer]:
        """The players in seat order."""

    @property
    def over(self) -> bool:
        """The game has ended."""

    def copy(self) -> Self:
        """A deep, independent copy."""

    def json_view(self) -> dict[str, Any]:
        """The state as nested dicts and lists sharing the state's own lists (read-only use)."""

    def to_json(self) -> dict[str, Any]:
        """The state as JSON-able data (an independent copy)."""


def check_content_version(state_version: str, build_version: str) -> None:
    """Refuse a saved state made with other content than this build's (InvalidConfig)."""
    if state_version != build_version:
        raise InvalidConfig(f"state was made with content {state_version}, this build has {build_version}")


class ClankGameBase(ClankCore, Game):
    """The `Game` accessors both Clank! engines share (the shared rules come from `ClankCore`)."""

    __slots__ = ()

    s: GameState
    content: CoreContent

    def __init__(self, state: GameState, content: CoreContent) -> None:
        self.s = state
        self.content = content
        self._decision: Decision | None = None

    @property
    def num_seats(self) -> int:
        return self.s.players_n

    @property
    def content_version(self) -> str:
        return self.s.content_version

    def is_over(self) -> bool:
        return self.s.over

    def copy(self) -> Self:
        return type(self)(self.s.copy(), self.content)

    def to_json(self) -> dict[str, Any]:
        return self.s.to_json()

    def digest(self) -> str:
        return json_digest(self.s.json_view())

    def _best_artifacts(self) -> list[int]:
        """Each seat's tie-break: its most valuable artifact ("the tied player with the more
        valuable artifact wins"); 0 for a forfeited seat, whose artifacts break no tie."""
        return [0 if p.forfeited else max(p.artifacts, default=0) for p in self.s.players]
