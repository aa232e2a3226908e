"""Alien's registration: everything the platform needs to know of the game (see ../spec.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from referee.games.spec import GameSpec, ScenarioDefaults

if TYPE_CHECKING:
    from referee.core.game import Game

__all__ = ["SPEC", "scenario_defaults", "static_content"]


def static_content(game: Game) -> dict[str, Any]:
    """The content objects (location, objectives, cards...) as they are."""
    from referee.games.alien.engine import AlienGame
    from referee.games.static_content import plain_data

    assert isinstance(game, AlienGame)
    data: dict[str, Any] = plain_data(game.content)
    return data


def scenario_defaults(players: int) -> ScenarioDefaults:
    """The scenario a match plays when its config names none: the bundled content has one
    location and plays its objectives in order, so only the player count varies."""
    from referee.games.alien.content import default_content

    del players  # every player count plays the same location and objectives
    content = default_content()
    names = {content.location.id: content.location.name}
    names.update({o.id: o.name for o in content.objectives})
    return ScenarioDefaults(
        location=content.location.id,
        objectives=tuple(o.id for o in content.objectives),
        names=names,
    )


SPEC = GameSpec(
    name="alien",
    title="Legendary Encounters: Alien",
    engine="referee.games.alien.engine:AlienGame",
    min_players=1,
    max_players=5,
    cooperative=True,
    scenario="referee.games.alien.spec:scenario_defaults",
    passive_kinds=("end_turn", "pass"),
    observation_codec="referee.games.alien.codec:encode_observation",
    action_codec="referee.games.alien.codec:encode_action",
    bots={"coop": "referee.games.alien.bots:AlienCoopBot", "ismcts": "referee.bots.ismcts:IsmctsBot"},
    # a cooperative game: a candidate shows it can keep a team of good players alive
    board="referee.games.alien.board:draw",
    reference_bots=("coop", "ismcts"),
    static_content="referee.games.alien.spec:static_content",
    outcome_columns=(("survived", ("survived",)), ("died", ("died",)), ("forfeited", ("forfeited",))),
    older_versions={
        "alien-1": "referee.games.alien.versions:Alien1",
        "alien-2": "referee.games.alien.versions:Alien2",
    },
    legend=(
        "legend: complex = the 5 rooms from the first to the Airlock, each '??' (a face-down "
        "Hive card, scan it to see), '-' (empty) or a face-up card's name; a card pushed past "
        "the Airlock enters combat",
    ),
)
