"""Clank!'s registration: everything the platform needs to know of the game (see ../spec.py)."""

from __future__ import annotations

from referee.games.spec import GameSpec

__all__ = ["SPEC"]

SPEC = GameSpec(
    name="clank",
    title="Clank! A Deck-Building Adventure",
    engine="referee.games.clank.engine:ClankGame",
    min_players=2,
    max_players=4,
    passive_kinds=("end_turn", "skip"),
    observation_codec="referee.server.codecs.clank:encode_observation",
    action_codec="referee.server.codecs.clank:encode_action",
    bots={"greedy": "referee.bots.clank_greedy:ClankGreedyBot"},
    reference_bots=("random", "greedy"),
    outcome_columns=(
        ("escaped", ("escaped",)),
        ("rescued", ("rescued",)),
        # a forfeited seat stays in the dungeon: it counts as knocked out
        ("knocked_out", ("knocked_out", "forfeited")),
    ),
)
