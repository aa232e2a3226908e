"""Clank!'s registration: everything the platform needs to know of the game (see ../spec.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from referee.games.spec import GameSpec

if TYPE_CHECKING:
    from referee.core.game import Game

__all__ = ["SPEC", "board_side", "static_content"]


def static_content(game: Game) -> dict[str, Any]:
    """The content objects with `boards` replaced by `board`, the side this match is played on."""
    from referee.games.clank.engine import ClankGame
    from referee.games.static_content import plain_data

    assert isinstance(game, ClankGame)
    data: dict[str, Any] = plain_data(game.content)
    del data["boards"]
    data["board"] = plain_data(game.board)
    return data


def board_side(game: Game) -> str:
    """The board side a match plays on: its static content differs by side."""
    from referee.games.clank.engine import ClankGame

    assert isinstance(game, ClankGame)
    return game.board.id

SPEC = GameSpec(
    name="clank",
    title="Clank! A Deck-Building Adventure",
    engine="referee.games.clank.engine:ClankGame",
    min_players=2,
    max_players=4,
    passive_kinds=("end_turn", "skip"),
    observation_codec="referee.games.clank.codec:encode_observation",
    action_codec="referee.games.clank.codec:encode_action",
    bots={"greedy": "referee.games.clank.bots:ClankGreedyBot", "ismcts": "referee.bots.ismcts:IsmctsBot"},
    board="referee.games.clank.board:draw",
    reference_bots=("random", "greedy", "ismcts"),
    static_content="referee.games.clank.spec:static_content",
    content_variant="referee.games.clank.spec:board_side",
    outcome_columns=(
        ("escaped", ("escaped",)),
        ("rescued", ("rescued",)),
        # a forfeited seat stays in the dungeon: it counts as knocked out
        ("knocked_out", ("knocked_out", "forfeited")),
    ),
    older_versions={"clank-1": "referee.games.clank.versions:Clank1"},
    default=True,
)
