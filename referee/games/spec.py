"""What a game tells the platform about itself: one `GameSpec` per game folder.

A game folder ``referee/games/<name>/`` exports ``SPEC`` (from its ``spec.py`` or its
``__init__.py``), and that is the only place the game is registered: the registry
(`referee.games.all_specs`) finds the folders, and the referee (engine, default action on a
timeout, codecs), the built-in bots, the CLI, the ladder (cooperative scenarios) and the
conformance and leak tests all read the spec. README.md "Adding a game" lists the files.

Everything heavy is named by a ``"module:attribute"`` string and imported only when used
(`load`), so discovering every game costs a few small imports, not the engines'.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from referee.core.game import Game

__all__ = ["BoardDrawing", "CampaignRules", "GameSpec", "ScenarioDefaults", "load"]

#: (a game in progress, an observation dict: a seat's or the whole state) -> HTML with inline SVG,
#: drawn from the observation and the game's public content only (`referee/games/board_html.py`)
BoardDrawing = Callable[["Game", Mapping[str, Any]], str]

_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")
_TARGET = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*\Z")


def load(target: str) -> Any:
    """The attribute a ``"module:attribute"`` string names (its module imported now)."""
    module_name, _, attr = target.partition(":")
    return getattr(importlib.import_module(module_name), attr)


@dataclass(frozen=True, slots=True)
class ScenarioDefaults:
    """What a cooperative game's scenario hook returns for a player count: the scenario a match
    plays when its config names none, and display names of the ids in it.

    Plain data, so the referee layer needs nothing of the ladder's `Scenario` type."""

    location: str
    objectives: tuple[str, ...]
    names: Mapping[str, str] = field(default_factory=dict)


class CampaignRules(Protocol):
    """A campaign game's campaign state as the platform outside the game handles it: JSON in and
    out, so the ladder and the workers start, store and report campaigns without importing the
    game (`GameSpec.campaign_rules` names the object; Clank! Legacy's: its campaign_rules.py)."""

    def default_names(self, players: int) -> list[str]:
        """The seats' names in a campaign nobody named."""
        ...

    def new_state(self, players: int, names: Sequence[str]) -> dict[str, Any]:
        """The campaign state before game 1, as JSON (ValueError for what the game refuses)."""
        ...

    def game_summary(self, state: Mapping[str, Any], index: int) -> dict[str, Any]:
        """Game `index` (1-based) as the campaign state `state` logged it, as JSON."""
        ...

    def summary(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """The campaign as a whole as JSON; holds ``over`` (bool) and ``promotions`` (per seat)."""
        ...

    def changes(self, before: Mapping[str, Any], after: Mapping[str, Any]) -> list[dict[str, str]]:
        """What one game changed, `before` the state it started from and `after` the state after
        it: lines ``{"kind": ..., "text": ...}`` for a page to list (ValueError for a state the
        game refuses, or `after` not one game after `before`)."""
        ...


@dataclass(frozen=True, slots=True)
class GameSpec:
    """One game, as every part of the platform needs to know it.

    `name` is the registry name and the folder's name; it is also the name of the game's field
    in the wire's ``Observation.game`` and ``LegalAction.typed`` oneofs.
    """

    #: registry name ("clank"), the folder under referee/games
    name: str
    #: one line for people ("Clank! A Deck-Building Adventure")
    title: str
    #: the engine class, "module:Class" (a `referee.core.game.Game` subclass): the current rules,
    #: played by new matches and ladders
    engine: str
    #: the player counts the engine accepts, inclusive
    min_players: int
    max_players: int
    #: a team game: the seats win or lose together; rated per scenario on a "coop" ladder
    cooperative: bool = False
    #: cooperative games only: "module:function" (players) -> ScenarioDefaults; the function
    #: raises ValueError for a player count the scenario cannot seat
    scenario: str | None = None
    #: a campaign game: a game is one of a campaign's games by the same seats, played from the
    #: campaign state before it (Clank! Legacy); its ladders are kind "campaign" and rate whole
    #: campaigns (``ladder.campaigns``), never single games
    campaign: bool = False
    #: campaign games only: "module:attribute", a `CampaignRules` (new campaign states, reports)
    campaign_rules: str | None = None
    #: the kinds of the game's most passive actions, the most passive first: the action played
    #: for a seat that timed out or left (`Game.default_index`); the engine class states the
    #: same tuple as its `passive_kinds` (`engine_class` refuses an engine that disagrees)
    passive_kinds: tuple[str, ...] = ()
    #: "module:function" (observation dict) -> bot_pb2.Observation; None: sent as JSON
    observation_codec: str | None = None
    #: "module:function" (Action, observation dict) -> the game's typed action message;
    #: None: actions go with kind/args only
    action_codec: str | None = None
    #: built-in bots for this game only: name -> "module:factory", the factory called with no
    #: arguments, or with `game` and `seed` (keywords) when it has parameters of those names
    #: (`referee.bots.make_bot`), returns a `referee.bots.LocalBot` (``random`` plays every game
    #: and is not listed)
    bots: Mapping[str, str] = field(default_factory=dict)
    #: the built-in bots `arena ladder create --reference-bots` seats on a ladder of the game
    reference_bots: tuple[str, ...] = ("random",)
    #: "module:function", a `BoardDrawing`: the web viewer's board; None: the observation's JSON
    board: str | None = None
    #: "module:function" (a game in progress) -> its static content as plain JSON data
    #: (`referee.games.static_content.plain_data` of its content objects): what GameStart's
    #: content_json carries (PROTOCOL.md "Static content"); None: the game sends none yet
    static_content: str | None = None
    #: "module:function" (a game in progress) -> what its static content depends on besides the
    #: content version (Clank!: the board side), a cache key; None: nothing
    content_variant: str | None = None
    #: `arena play`'s outcome columns: (column, the engine outcomes it counts), in order
    outcome_columns: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: lines `arena replay show` prints once to explain the notation of its summaries
    legend: tuple[str, ...] = ()
    #: every engine version released before the current one, oldest first: version string ->
    #: "module:Class", each a subclass of the next that overrides only what changed (README.md
    #: "Engine versions"); a replay or a ladder names the version it plays
    older_versions: Mapping[str, str] = field(default_factory=dict)
    #: the game a command plays when none is named (`arena bot check`, `arena demo`'s ladder, a
    #: bot registered before bots named their game): at most one game declares it
    #: (`referee.games.default_game`)
    default: bool = False

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise ValueError(f"game spec name {self.name!r}: lower-case letters, digits and _")
        if not 1 <= self.min_players <= self.max_players:
            raise ValueError(f"game spec {self.name}: players {self.min_players}..{self.max_players}")
        if self.cooperative != (self.scenario is not None):
            raise ValueError(f"game spec {self.name}: a cooperative game has a scenario hook, others none")
        if self.cooperative and self.campaign:
            raise ValueError(f"game spec {self.name}: a campaign game is not cooperative")
        if self.campaign != (self.campaign_rules is not None):
            raise ValueError(f"game spec {self.name}: a campaign game names its campaign_rules, others none")
        targets = [
            self.engine,
            self.scenario,
            self.observation_codec,
            self.action_codec,
            self.static_content,
            self.content_variant,
            self.campaign_rules,
            self.board,
            *self.bots.values(),
            *self.older_versions.values(),
        ]
        for target in targets:
            if target is not None and not _TARGET.match(target):
                raise ValueError(f"game spec {self.name}: {target!r} is not 'module:attribute'")
        unknown = [b for b in self.reference_bots if b != "random" and b not in self.bots]
        if unknown or not self.reference_bots:
            raise ValueError(f"game spec {self.name}: reference bots must be built-in bots, got {unknown}")
        if "random" in self.bots:
            raise ValueError(f"game spec {self.name}: 'random' is every game's bot already")
        # a read-only copy: the spec is shared by every caller in the process
        object.__setattr__(self, "bots", MappingProxyType(dict(self.bots)))
        object.__setattr__(self, "older_versions", MappingProxyType(dict(self.older_versions)))

    def engine_class(self, version: str | None = None) -> type[Game]:
        """The engine class playing `version` (None: the current one), imported on first use.

        KeyError names the versions this build has for a version it does not."""
        from referee.core.game import Game

        target = self.engine if version is None else self.older_versions.get(version, self.engine)
        cls = load(target)
        if not (isinstance(cls, type) and issubclass(cls, Game)):
            raise TypeError(f"game spec {self.name}: {target} is not a Game subclass")
        if version in self.older_versions and cls.engine_version != version:
            raise TypeError(f"game spec {self.name}: {target} plays {cls.engine_version}, not {version}")
        if version is not None and cls.engine_version != version:
            known = ", ".join(self.versions())
            raise KeyError(f"{self.name} has no engine {version}; this build has {known}")
        if cls.passive_kinds != self.passive_kinds:
            raise TypeError(
                f"game spec {self.name}: passive_kinds {self.passive_kinds} but {target} "
                f"plays {cls.passive_kinds} on a timeout"
            )
        return cls

    def current_version(self) -> str:
        """The version new matches and new ladders play (the `engine` class's)."""
        return self.engine_class().engine_version

    def versions(self) -> tuple[str, ...]:
        """Every engine version this build plays, oldest first, the current one last."""
        return (*self.older_versions, self.current_version())

    def board_drawing(self) -> BoardDrawing | None:
        """The game's board drawing (`board`), imported on first use; None if it has none."""
        if self.board is None:
            return None
        draw: BoardDrawing = load(self.board)
        return draw

    def campaign_state_rules(self) -> CampaignRules:
        """The campaign rules (`campaign_rules`) of a campaign game; ValueError for another game."""
        if self.campaign_rules is None:
            raise ValueError(f"{self.name} is not played in campaigns")
        rules: CampaignRules = load(self.campaign_rules)
        return rules

    def scenario_defaults(self, players: int) -> ScenarioDefaults:
        """The cooperative scenario played by `players` players when a config names none.

        ValueError for a game that is not cooperative or a player count it cannot seat."""
        if self.scenario is None:
            raise ValueError(f"{self.name} is not cooperative")
        if not self.min_players <= players <= self.max_players:
            raise ValueError(
                f"players: {self.name} is for {self.min_players} to {self.max_players} players, got {players}"
            )
        hook: Callable[[int], ScenarioDefaults] = load(self.scenario)
        return hook(players)
