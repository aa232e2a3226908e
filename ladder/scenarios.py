"""Which games are cooperative, and the scenario a match of one plays.

Both come from the games' specs (`referee.games.spec.GameSpec.cooperative` and its scenario
hook): the ladder has no list of games of its own.

A cooperative ladder (``ladders.kind = 'coop'``) rates each scenario like an opponent (see
:mod:`ladder.coop_rating`). The scenario comes from the match's game config (``matches.config``)
with the gaps filled from the game's bundled content: today the Alien engine has one location
and always plays its three objectives in order, so the key of an Alien match depends on its
player count only, and a config naming a ``location`` or ``objectives`` gets its own scenario.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ladder.coop_rating import Scenario, scenario_from_config
from ladder.errors import InvalidInput
from referee.games import all_specs

__all__ = ["ScenarioInfo", "check_coop_game", "coop_games", "match_scenario"]


def coop_games() -> tuple[str, ...]:
    """The games that can have a cooperative (scenario-rated) ladder: those whose spec says so."""
    return tuple(spec.name for spec in all_specs() if spec.cooperative)


@dataclass(frozen=True, slots=True)
class ScenarioInfo:
    """A scenario and its description for people (e.g. "Drift Station Calder: A, B, C; 2 players")."""

    scenario: Scenario
    description: str


def _defaults(game: str, players: int) -> tuple[Scenario, Mapping[str, str]]:
    spec = next((s for s in all_specs() if s.name == game and s.cooperative), None)
    if spec is None:
        raise InvalidInput(f"game {game!r} is not cooperative; cooperative games: {', '.join(coop_games())}")
    try:
        found = spec.scenario_defaults(players)
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc
    return Scenario(location=found.location, objectives=found.objectives, players=players), found.names


def check_coop_game(game: str, players: int) -> None:
    """Raise InvalidInput unless `game` can have a cooperative ladder for `players` players."""
    _defaults(game, players)


def match_scenario(game: str, players: int, config: Mapping[str, Any] | None) -> ScenarioInfo:
    """The scenario a match of `game` on a `players`-player ladder with game `config` plays.

    `config` is the match's stored game config (None: the ladder's defaults). Raises
    InvalidInput for a game that is not cooperative or a config that names no valid scenario.
    """
    defaults, names = _defaults(game, players)
    try:
        scenario = scenario_from_config(config, defaults)
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc
    if scenario.players != players:
        raise InvalidInput(f"config.players: the ladder seats {players}, got {scenario.players}")
    objectives = ", ".join(names.get(o, o) for o in scenario.objectives)
    plural = "player" if players == 1 else "players"
    description = f"{names.get(scenario.location, scenario.location)}: {objectives}; {players} {plural}"
    return ScenarioInfo(scenario=scenario, description=description)

