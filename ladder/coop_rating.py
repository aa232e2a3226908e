"""Ratings for cooperative games: the team plays the scenario, and the scenario is rated too.

In a cooperative game (Legendary Encounters: Alien) the seated bots win or lose together against
the game itself. Each *scenario* (a location, its objectives, the player count) gets a rating of
its own and is treated as the opponent, the way chess sites rate puzzles: a team that beats a
scenario gains rating and the scenario loses some; a team that loses to it hands it rating.

For a team of bots with ratings r_1..r_n playing scenario s rated R_s::

    T       = (r_1 + ... + r_n) / n                    team strength: the mean (see below)
    E       = 1 / (1 + 10 ** ((R_s - T) / SCALE))      the team's expected score
    S       = 1 if the team won else 0
    delta_i = K_i * (S - E)                            each bot, its own K (RatingPolicy.k_factor)
    delta_s = -K_s * (S - E)                           the scenario (scenario_k_factor)

Why the mean: it keeps the team on the same scale as a single bot (a sum would grow with the
player count and put a 4-player team near 6000), so a rating means the same on a 2- and a
4-player ladder; and it credits every member alike for a shared result, which is all a team
result can tell us. Player count is part of the scenario, so a 2-player and a 4-player game are
different opponents and the mean never has to compare teams of different sizes. (The weakest
link, ``min``, was considered: it ignores every member but one, and the rating of the strongest
bot would never move with its team's wins.)

Constants (also in ``ladder/RATINGS.md``): bots use their ladder's K (``ladder.rating_policy``;
by default 40 for their first 20 games on a ladder, then 20). Scenarios start at
:data:`INITIAL_SCENARIO_RATING` = 1500, with
:data:`K_SCENARIO_PROVISIONAL` = 32 for their first :data:`SCENARIO_PROVISIONAL_GAMES` = 30
games and :data:`K_SCENARIO_ESTABLISHED` = 16 afterwards. A scenario is played by every team on
its ladder, so it collects games fast; a smaller K keeps its rating from swinging with each one.

Pure functions: no I/O, no clock, no randomness.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ladder import elo

__all__ = [
    "INITIAL_SCENARIO_RATING",
    "K_SCENARIO_ESTABLISHED",
    "K_SCENARIO_PROVISIONAL",
    "SCENARIO_PROVISIONAL_GAMES",
    "CoopDeltas",
    "Scenario",
    "coop_deltas",
    "expected_team_score",
    "scenario_from_config",
    "scenario_is_provisional",
    "scenario_k_factor",
    "scenario_key",
    "team_strength",
]

INITIAL_SCENARIO_RATING: Final = 1500.0
K_SCENARIO_PROVISIONAL: Final = 32.0
K_SCENARIO_ESTABLISHED: Final = 16.0
SCENARIO_PROVISIONAL_GAMES: Final = 30

# ids in a scenario key: no separators, so the key reads back unambiguously
_ID: Final = re.compile(r"[A-Za-z0-9_.-]+")


def team_strength(ratings: Sequence[float]) -> float:
    """The strength of a team: the mean of its members' ratings. ValueError for no members."""
    if not ratings:
        raise ValueError("a team needs at least one member")
    return sum(ratings) / len(ratings)


def expected_team_score(team: float, scenario: float) -> float:
    """The expected score (0..1) of a team of strength `team` against a scenario rated `scenario`."""
    return elo.expected_score(team, scenario)


def scenario_is_provisional(games_played: int) -> bool:
    """True while a scenario has been played fewer than SCENARIO_PROVISIONAL_GAMES times."""
    return games_played < SCENARIO_PROVISIONAL_GAMES


def scenario_k_factor(games_played: int) -> float:
    """The K of a scenario played `games_played` times before this game."""
    return K_SCENARIO_PROVISIONAL if scenario_is_provisional(games_played) else K_SCENARIO_ESTABLISHED


@dataclass(frozen=True, slots=True)
class CoopDeltas:
    """The rating changes from one cooperative game."""

    team_strength: float
    expected: float
    #: per member, in the order given
    members: tuple[float, ...]
    scenario: float


def coop_deltas(
    ratings: Sequence[float],
    k_factors: Sequence[float],
    scenario_rating: float,
    scenario_k: float,
    team_won: bool,
) -> CoopDeltas:
    """The rating changes of a team (`ratings`, each member's K in `k_factors`) and the scenario.

    Raises ValueError for an empty team or sequences of different lengths.
    """
    if len(k_factors) != len(ratings):
        raise ValueError(f"ratings and k_factors differ in length: {len(ratings)}, {len(k_factors)}")
    team = team_strength(ratings)
    expected = expected_team_score(team, scenario_rating)
    surprise = (1.0 if team_won else 0.0) - expected
    return CoopDeltas(
        team_strength=team,
        expected=expected,
        members=tuple(k * surprise for k in k_factors),
        scenario=-scenario_k * surprise,
    )


@dataclass(frozen=True, slots=True)
class Scenario:
    """What a cooperative game is played against: a location, its objectives in order, a team size."""

    location: str
    objectives: tuple[str, ...]
    players: int

    def __post_init__(self) -> None:
        if not _ID.fullmatch(self.location):
            raise ValueError(f"scenario location: letters, digits, '_', '.', '-' only: {self.location!r}")
        if not self.objectives:
            raise ValueError("scenario objectives: at least one")
        for objective in self.objectives:
            if not _ID.fullmatch(objective):
                raise ValueError(f"scenario objective: letters, digits, '_', '.', '-' only: {objective!r}")
        if isinstance(self.players, bool) or not isinstance(self.players, int) or self.players < 1:
            raise ValueError(f"scenario players: a positive integer, got {self.players!r}")

    @property
    def key(self) -> str:
        """The canonical key, e.g. ``location=calder_station;objectives=a,b,c;players=2``."""
        return scenario_key(self)


def scenario_key(scenario: Scenario) -> str:
    """The canonical string naming `scenario`: one row per scenario per ladder.

    Objectives keep their order (they are played in order, so a different order is a different
    scenario); nothing else of the game config (roles, characters, seed) is part of it.
    """
    objectives = ",".join(scenario.objectives)
    return f"location={scenario.location};objectives={objectives};players={scenario.players}"


def scenario_from_config(config: Mapping[str, Any] | None, defaults: Scenario) -> Scenario:
    """The scenario a game config sets up: its ``location``, ``objectives`` and ``players``.

    Fields the config leaves out (or a None config) come from `defaults` (the game's bundled
    location and objectives, the ladder's player count). Other fields are ignored. Raises
    ValueError for fields of the wrong type.
    """
    config = config or {}
    location = config.get("location", defaults.location)
    objectives = config.get("objectives", defaults.objectives)
    players = config.get("players", defaults.players)
    if not isinstance(location, str):
        raise ValueError(f"config.location: a string, got {location!r}")
    if isinstance(objectives, str) or not isinstance(objectives, Sequence):
        raise ValueError(f"config.objectives: a list of ids, got {objectives!r}")
    if not all(isinstance(o, str) for o in objectives):
        raise ValueError(f"config.objectives: a list of ids, got {objectives!r}")
    return Scenario(location=location, objectives=tuple(objectives), players=players)
