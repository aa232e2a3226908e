"""Clank! Legacy's campaign as the platform outside the game handles it (`SPEC.campaign_rules`):
campaign states as JSON in and out, so the ladder and the workers start, store and report
campaigns without importing this game (the rules themselves: `campaign.py`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from referee.games.clank_legacy.campaign import DEFAULT_NAMES, CampaignState, close_game, new_campaign

__all__ = ["RULES", "LegacyCampaignRules"]


class LegacyCampaignRules:
    """The `referee.games.spec.CampaignRules` of Clank! Legacy (see there for each method)."""

    def default_names(self, players: int) -> list[str]:
        """The deck boxes' names a campaign gets when nobody names them."""
        return list(DEFAULT_NAMES[:players])

    def new_state(self, players: int, names: Sequence[str]) -> dict[str, Any]:
        """The campaign state before game 1 (ValueError for a player count or names it refuses)."""
        return new_campaign(players, names).to_json()

    def game_summary(self, state: Mapping[str, Any], index: int) -> dict[str, Any]:
        """Game `index` (1-based) of the campaign as `state` (after it) logged it: its passages,
        board side, MVP, group choices and the checkmarks each seat held after it."""
        campaign = CampaignState.from_json(state)
        report = campaign.reports[index - 1]
        return {
            "prologue": report.prologue,
            "epilogue": report.epilogue,
            "board": report.board,
            "mvp": report.mvp,
            "choices": list(report.choices),
            "checkmarks": _checkmarks_after(campaign, index),
        }

    def summary(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """The campaign as a whole: over or not, each seat's promotions, facts and abilities."""
        campaign = CampaignState.from_json(state)
        return {
            "over": campaign.over,
            "promotions": [list(p) for p in campaign.promotions],
            "facts": sorted(campaign.facts),
            "abilities": list(campaign.abilities),
        }


def _checkmarks_after(state: CampaignState, index: int) -> list[int]:
    """Checkmarks each seat held after game `index`: the Employee Reviews of the first `index`
    Mission Reports folded again with ``close_game`` (only the reviews: the state carries the
    reports, not the counters after each)."""
    folded = new_campaign(state.players, state.names)
    for report in state.reports[:index]:
        folded = close_game(replace(folded, over=True), report)
    return list(folded.checkmarks)


#: the object the spec names
RULES = LegacyCampaignRules()
