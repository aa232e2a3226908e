"""The engine contract every game implements.

A game is a pure state machine: no I/O, no clocks, no global randomness. The referee, the local
runner, the replay verifier and the conformance suite only ever talk to a game through this
interface, so none of them imports a particular game.

Flow::

    game = SomeGame.new_game(config, seed)
    while not game.is_over():
        d = game.decision()          # who acts, what kind of decision, the legal actions
        game.apply(d.actions[i])     # or game.apply_index(i)
    game.result()

Multi-step effects ("trash a card", "choose one") are pending choices held inside the state, so
at every point the state can be copied, hashed, serialised and resumed.
"""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

__all__ = [
    "Action",
    "Decision",
    "Game",
    "GameError",
    "IllegalAction",
    "InvalidConfig",
    "Result",
    "canonical_json",
    "json_digest",
]


class GameError(Exception):
    """Base class of engine errors.

    GameError
    ├── InvalidConfig   the config passed to new_game is not acceptable
    └── IllegalAction   the action is not among the current legal actions
    """


class InvalidConfig(GameError):
    """The game config is not acceptable (message names the field)."""


class IllegalAction(GameError):
    """The action is not legal in the current state."""


Arg = int | str


@dataclass(frozen=True, slots=True)
class Action:
    """One legal action: a kind, its arguments, and a stable human-readable text form.

    Two actions are equal when kind and args are equal; `text` is for people and logs.
    """

    kind: str
    args: tuple[Arg, ...] = ()
    text: str = field(default="", compare=False)

    def to_json(self) -> dict[str, Any]:
        """The action as a JSON-able dict."""
        return {"kind": self.kind, "args": list(self.args), "text": self.text}


@dataclass(frozen=True, slots=True)
class Decision:
    """What the game waits for: seat `seat` must pick one of `actions`.

    `id` is the number of actions applied so far, so it names this decision uniquely within
    a game (a bot answering an old decision id is answering the wrong question).
    """

    id: int
    seat: int
    kind: str
    prompt: str
    actions: tuple[Action, ...]


@dataclass(frozen=True, slots=True)
class Result:
    """The outcome of a finished game.

    `places` are 1-based final placings per seat; equal numbers are shared places (draws).
    `scores` are the game's points per seat. `outcomes` says, per seat, how it ended
    (e.g. "escaped", "rescued", "knocked_out"). `team_won` is set by cooperative games.
    """

    scores: tuple[int, ...]
    places: tuple[int, ...]
    outcomes: tuple[str, ...]
    team_won: bool | None = None
    details: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The result as a JSON-able dict."""
        return {
            "scores": list(self.scores),
            "places": list(self.places),
            "outcomes": list(self.outcomes),
            "team_won": self.team_won,
            "details": dict(self.details),
        }


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no whitespace: the byte-stable form digests are taken of."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def json_digest(value: Any) -> str:
    """SHA-256 (hex, first 32 chars) of the canonical JSON of `value`."""
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()[:32]


class Game(ABC):
    """A game engine instance (one game in progress)."""

    #: registry name of the game ("clank", "alien", ...)
    name: ClassVar[str]
    #: bumped whenever rules change the outcome of any action sequence
    engine_version: ClassVar[str]

    @classmethod
    @abstractmethod
    def new_game(cls, config: Mapping[str, Any], seed: int) -> Self:
        """Set up a new game. Raises InvalidConfig for a bad config."""

    @classmethod
    @abstractmethod
    def default_config(cls, players: int) -> dict[str, Any]:
        """A complete config for `players` players."""

    @property
    @abstractmethod
    def num_seats(self) -> int:
        """How many seats play."""

    @property
    @abstractmethod
    def content_version(self) -> str:
        """A digest of the content data (cards, board...) this game was set up with."""

    # The pending decision is computed once per state and cached here; anything that changes
    # the state outside apply() (forfeit, hidden_variant, tests editing the state) must reset
    # it to None. Subclasses set it in __init__.
    _decision: Decision | None

    def decision(self) -> Decision | None:
        """The pending decision, or None when the game is over."""
        if self.is_over():
            return None
        if self._decision is None:
            self._decision = self._make_decision()
        return self._decision

    def apply(self, action: Action) -> None:
        """Apply a legal action of the pending decision. Raises IllegalAction otherwise.

        The check lives here, once for every game: an engine only ever sees legal actions.
        """
        d = self.decision()
        if d is None:
            raise IllegalAction("the game is over")
        if action not in d.actions:
            raise IllegalAction(f"{action.kind} {list(action.args)} is not a legal action now")
        self._decision = None
        self._apply(d, action)

    @abstractmethod
    def _make_decision(self) -> Decision:
        """The pending decision of a game that is not over."""

    @abstractmethod
    def _apply(self, decision: Decision, action: Action) -> None:
        """Apply `action`, already checked to be one of `decision`'s legal actions."""

    def apply_index(self, index: int) -> Action:
        """Apply the `index`-th legal action of the pending decision and return it."""
        d = self.decision()
        if d is None:
            raise IllegalAction("the game is over")
        if not 0 <= index < len(d.actions):
            raise IllegalAction(f"index {index} out of range 0..{len(d.actions) - 1}")
        action = d.actions[index]
        # taken from the pending decision's own actions: apply()'s legality check (a scan
        # comparing actions) would only say yes
        self._decision = None
        self._apply(d, action)
        return action

    #: the kinds of the game's most passive actions, the most passive first (`default_index`)
    passive_kinds: ClassVar[tuple[str, ...]] = ()

    def default_index(self, decision: Decision) -> int:
        """The index of the action played for a seat that did not answer in time (or is out of
        the game): the first legal action of the first of `passive_kinds` that has one, else
        the first action. A game overrides `passive_kinds` (or this) with its own choice."""
        for kind in self.passive_kinds:
            for i, action in enumerate(decision.actions):
                if action.kind == kind:
                    return i
        return 0

    @abstractmethod
    def forfeit(self, seat: int) -> None:
        """Remove `seat` from play by referee decision (the game documents what that means).

        Replays record forfeits between actions, so re-simulation reproduces them.
        """

    @abstractmethod
    def hidden_variant(self, seat: int, seed: int) -> Self:
        """A copy in which everything `seat` may not know is re-dealt at random.

        Used by the conformance suite: `observe(seat)` must be the same on the original and on
        every variant, or the observation leaks hidden information.
        """

    @abstractmethod
    def observe(self, seat: int) -> dict[str, Any]:
        """What seat `seat` may know now, as a JSON-able dict (hidden information removed)."""

    def summarize(self, observation: dict[str, Any]) -> list[str]:
        """Readable lines of an observation (replay viewers); games override this."""
        return [canonical_json(observation)]

    @abstractmethod
    def observe_all(self) -> dict[str, Any]:
        """The whole state for spectators of a finished game and for replay viewers."""

    @abstractmethod
    def is_over(self) -> bool:
        """True when the game has ended."""

    @abstractmethod
    def result(self) -> Result:
        """The result of a finished game."""

    @abstractmethod
    def copy(self) -> Self:
        """An independent copy: changing either never changes the other."""

    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        """The full state as JSON-able data; from_json(to_json()) resumes the same game."""

    @classmethod
    @abstractmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        """Rebuild a game from to_json() output."""

    def digest(self) -> str:
        """A stable digest of the full state (same state -> same digest on every machine)."""
        return json_digest(self.to_json())
