"""The `Game` accessors every engine answers the same way, as a base of their engines.

An engine keeps its whole game state in one object (`s`: a seat count, a content version, an
`over` flag, deep copies, JSON and a JSON view to digest) beside its fixed content (`content`).
`StateGame` answers the contract's parts that only read that object; each engine keeps its
setup, rules, observations and scoring. `from_json` is shared too: an engine names its state
class (`state_type`) and the content its games are set up from (`game_content`), and a saved
state made with other content is refused (`check_content_version`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Protocol, Self

from referee.core.game import Decision, Game, InvalidConfig, json_digest

__all__ = ["GameStateLike", "StateGame", "StateType", "check_content_version"]


class GameStateLike(Protocol):
    """What the shared accessors read of an engine's state object."""

    players_n: int
    content_version: str

    @property
    def over(self) -> bool:
        """The game has ended."""

    def copy(self) -> Self:
        """A deep, independent copy."""

    def json_view(self) -> dict[str, Any]:
        """The state as nested dicts and lists sharing the state's own lists (read-only use)."""

    def to_json(self) -> dict[str, Any]:
        """The state as JSON-able data (an independent copy)."""


class StateType(Protocol):
    """An engine's state class, as `from_json` reads it: it rebuilds a state from JSON."""

    def from_json(self, data: dict[str, Any], /) -> GameStateLike:
        """The state `to_json()` gave, rebuilt (sharing nothing with `data`)."""


class Content(Protocol):
    """What `from_json` reads of an engine's content: its version."""

    @property
    def version(self) -> str:
        """The content's digest (a saved state names the one it was made with)."""


def check_content_version(state_version: str, build_version: str) -> None:
    """Refuse a saved state made with other content than this build's (InvalidConfig)."""
    if state_version != build_version:
        raise InvalidConfig(f"state was made with content {state_version}, this build has {build_version}")


class StateGame(Game):
    """A `Game` whose state is the object `s` and whose fixed content is `content`: the seat
    count, content version, end, copy, JSON and digest read `s` alone."""

    __slots__ = ()

    s: GameStateLike
    content: Any
    #: the engine's state class (`from_json` rebuilds a saved state with it)
    state_type: ClassVar[StateType]

    def __init__(self, state: GameStateLike, content: Any) -> None:
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

    @classmethod
    def game_content(cls) -> Content:
        """The content this engine version's games are set up from (the bundled content)."""
        raise NotImplementedError

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        content = cls.game_content()
        state = cls.state_type.from_json(dict(data))
        check_content_version(state.content_version, content.version)
        return cls(state, content)

    def copy(self) -> Self:
        # the content is immutable and shared; the state is deep-copied
        return type(self)(self.s.copy(), self.content)

    def to_json(self) -> dict[str, Any]:
        return self.s.to_json()

    def digest(self) -> str:
        return json_digest(self.s.json_view())
