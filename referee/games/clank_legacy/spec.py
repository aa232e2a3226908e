"""Clank! Legacy's registration: everything the platform needs to know of the game (see ../spec.py)."""

from __future__ import annotations

from referee.games.spec import GameSpec

__all__ = ["SPEC"]

SPEC = GameSpec(
    name="clank_legacy",
    title="Clank! Legacy: Acquisitions Incorporated",
    engine="referee.games.clank_legacy.engine:ClankLegacyGame",
    min_players=2,
    max_players=4,
    campaign=True,
    passive_kinds=("end_turn", "skip"),
    observation_codec="referee.server.codecs.clank_legacy:encode_observation",
    action_codec="referee.server.codecs.clank_legacy:encode_action",
    bots={"greedy": "referee.games.clank_legacy.bots:LegacyGreedyBot"},
    reference_bots=("random", "greedy"),
    outcome_columns=(
        ("escaped", ("escaped",)),
        ("knocked_out", ("knocked_out",)),
        # knocked out with nothing to show (no artifact, or in the Danger Zone), or forfeited
        ("lost", ("lost", "forfeited")),
    ),
)
