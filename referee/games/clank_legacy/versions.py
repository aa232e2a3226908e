"""The Clank! Legacy engine versions before the current one, each the next version with what
changed overridden (../README.md "Engine versions"); a replay or a ladder that names one plays it.

clank_legacy-1 -> clank_legacy-2 (commits 250b420 to c1c907e, RULES_NOTES.md): rewards and
Waypoints trigger on every entry (rules.json), a card's "if you have a mystic fruit" counts
expended fruit, a random first player (state field `first`), an artifact may be taken whenever
the figure is on its space; campaign state JSON version 2 (Mission Reports name the next
Prologue).
"""

from __future__ import annotations

import dataclasses
from functools import cache
from typing import Any

from referee.core.effects import Effect
from referee.core.game import json_digest
from referee.core.rng import RandomStreams
from referee.games.clank_legacy.content import LegacyContent, default_content
from referee.games.clank_legacy.engine import ClankLegacyGame
from referee.games.clank_legacy.state import LegacyPlayer

__all__ = ["CONTENT_1", "ClankLegacy1"]

#: clank_legacy-1's content: today's with these values (what content/ held before 250b420 and
#: c9425c4); `version` is the digest of exactly that data (tests/test_engine_versions.py)
CONTENT_1: dict[str, Any] = {
    "version": "989c2aef9c40af43",
    "rules.json": {"waypoint_trigger": "first_entry_per_player", "reward_trigger": "first_entry_per_player"},
    "adventure.json": {
        "fruit_forager": (
            "+1 Skill. If you hold an unexpended mystic fruit at the end of your play: +2 Skill."
        ),
        "orchard_warden": "+1 Sword. If you hold an unexpended mystic fruit: heal 1, +1 Sword.",
    },
}


@cache
def _content_1() -> LegacyContent:
    today = default_content()
    texts: dict[str, str] = CONTENT_1["adventure.json"]
    cards = {k: dataclasses.replace(c, text=texts[k]) if k in texts else c for k, c in today.cards.items()}
    rules = {**today.rules, **CONTENT_1["rules.json"]}
    return dataclasses.replace(today, cards=cards, rules=rules, version=CONTENT_1["version"])


class ClankLegacy1(ClankLegacyGame):
    """clank_legacy-1: rewards and Waypoints trigger on a player's first entry of a space; "if
    you have a mystic fruit" counts unexpended fruit only; seat 0 plays first; every token,
    artifacts too, is one take per entry; campaign state JSON version 1."""

    engine_version = "clank_legacy-1"
    __slots__ = ()

    @classmethod
    def game_content(cls) -> LegacyContent:
        return _content_1()

    def _first_player(self, rng: RandomStreams, n: int) -> int:
        return 0  # no draw: the stream is never started

    def _takeable_tokens(self, p: LegacyPlayer) -> list[str]:
        return super()._takeable_tokens(p) if p.may_take else []

    def _game_condition(self, seat: int, e: Effect, source: str) -> bool:
        if e.cond == "has_fruit":
            return self.s.players[seat].fruit > 0
        return super()._game_condition(seat, e, source)

    def _campaign_digest(self, campaign: dict[str, Any]) -> str:
        return json_digest(_campaign_1(campaign))

    def to_json(self) -> dict[str, Any]:
        return _legacy_1_state(super().to_json())

    def digest(self) -> str:
        return json_digest(_legacy_1_state(self.s.json_view()))


def _campaign_1(campaign: dict[str, Any]) -> dict[str, Any]:
    """A campaign state's JSON as version 1: Mission Reports without `next_prologue`."""
    reports = [{k: v for k, v in r.items() if k != "next_prologue"} for r in campaign["reports"]]
    return {**campaign, "version": 1, "reports": reports}


def _legacy_1_state(view: dict[str, Any]) -> dict[str, Any]:
    """The state as clank_legacy-1 wrote it: no `first`, the campaign states as version 1."""
    out = {k: v for k, v in view.items() if k != "first"}
    out["campaign"] = _campaign_1(view["campaign"])
    out["campaign_now"] = _campaign_1(view["campaign_now"])
    return out
