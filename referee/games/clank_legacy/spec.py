"""Clank! Legacy's registration: everything the platform needs to know of the game (see ../spec.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from referee.games.spec import GameSpec

if TYPE_CHECKING:
    from referee.core.game import Game

__all__ = ["SPEC", "static_content"]


def static_content(game: Game) -> dict[str, Any]:
    """The content objects as they are: both board sides (the Prologue picks one, possibly after
    a group vote, so it may not be known at GameStart), every card, token and Book passage a
    campaign can use. No campaign state: that is in the config and the observation."""
    from referee.games.clank_legacy.engine import ClankLegacyGame
    from referee.games.static_content import plain_data

    assert isinstance(game, ClankLegacyGame)
    data: dict[str, Any] = plain_data(game.content)
    return data


SPEC = GameSpec(
    name="clank_legacy",
    title="Clank! Legacy: Acquisitions Incorporated",
    engine="referee.games.clank_legacy.engine:ClankLegacyGame",
    min_players=2,
    max_players=4,
    campaign=True,
    passive_kinds=("end_turn", "skip"),
    observation_codec="referee.games.clank_legacy.codec:encode_observation",
    action_codec="referee.games.clank_legacy.codec:encode_action",
    static_content="referee.games.clank_legacy.spec:static_content",
    bots={
        "greedy": "referee.games.clank_legacy.bots:LegacyGreedyBot",
        "ismcts": "referee.bots.ismcts:IsmctsBot",
    },
    campaign_rules="referee.games.clank_legacy.campaign_rules:RULES",
    reference_bots=("random", "greedy", "ismcts"),
    outcome_columns=(
        ("escaped", ("escaped",)),
        ("knocked_out", ("knocked_out",)),
        # knocked out with nothing to show (no artifact, or in the Danger Zone), or forfeited
        ("lost", ("lost", "forfeited")),
    ),
    older_versions={"clank_legacy-1": "referee.games.clank_legacy.versions:ClankLegacy1"},
)
