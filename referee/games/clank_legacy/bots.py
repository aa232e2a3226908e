"""A heuristic Clank! Legacy bot: play everything, grab the artifact worth the trip, go home.

It reads only its observation and the public content (board and card data), like any bot would.
Plan each decision:
1. pending choices: trash / discard the weakest starting cards, pick the richest option; in a
   group vote, the option worth most by the same taste (the first on a tie);
2. play every card in hand;
3. take tokens where it stands (an artifact if it carries none), drink or expend fruit when hurt;
4. move one path along the cheapest way to its target (the artifact whose value best outweighs
   the round trip, or HQ once it has one), spending Swords on monster icons when health is low;
5. buy the best card its Skill affords, fight the best monster its Swords beat, court the
   Patron, fight the Cultist;
6. end the turn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.core.effects import Effect
from referee.core.game import Action
from referee.games.clank_core.greedy import (
    RESOURCE_VALUE,
    GreedyBot,
    best_step,
    best_target,
    buy_or_fight,
    distances_to,
    effects_value,
    preferred,
)
from referee.games.clank_legacy.content import Board, CardDef, LegacyContent, default_content

__all__ = ["LegacyGreedyBot"]

_RESOURCE_VALUE = {
    **RESOURCE_VALUE,
    "minor_secret": 1.0,
    "major_secret": 2.0,
    "mystic_fruit": 1.0,
    "gain_ability": 2.0,
    "add_card": 0.2,
}


def _effects_value(effects: Sequence[Effect]) -> float:
    return effects_value(effects, _RESOURCE_VALUE, zero_counts_once=True)


def _card_value(card: CardDef) -> float:
    return _effects_value(card.play) + 0.3 * _effects_value(card.acquire) + 0.35 * card.points


class LegacyGreedyBot(GreedyBot):
    """The greedy reference bot for Clank! Legacy."""


    def __init__(self, content: LegacyContent | None = None) -> None:
        self.content = content or default_content()

    # --- path finding --------------------------------------------------------------------

    def _distances(
        self, board: Board, open_paths: Sequence[int], target: str, canoe: bool
    ) -> dict[str, float]:
        """Cost to reach `target` from every space (Boots, plus a little per monster icon)."""
        into: dict[str, list[tuple[str, float]]] = {}
        for i in open_paths:
            p = board.paths[i]
            if p.canoe and not canoe:
                continue
            cost = p.boots + 0.8 * p.monsters + (1.0 if board.spaces[p.b].forest else 0.0)
            into.setdefault(p.b, []).append((p.a, cost))
            if not p.one_way:
                back = p.boots + 0.8 * p.monsters + (1.0 if board.spaces[p.a].forest else 0.0)
                into.setdefault(p.a, []).append((p.b, back))
        return distances_to(target, lambda d, space: ((prev, d + cost) for prev, cost in into.get(space, [])))

    def _target(self, obs: dict[str, Any], board: Board, me: dict[str, Any], canoe: bool) -> str:
        if me["artifacts"]:
            return board.hq
        risk = 1.6 + 0.2 * obs["rage"] + (0.4 if me["health"] < 6 else 0.0)
        open_paths = obs["open_paths"]
        return best_target(
            obs["artifacts"],
            board.hq,
            me["space"],
            lambda to: self._distances(board, open_paths, to, canoe),
            risk,
        )

    # --- deciding ------------------------------------------------------------------------

    def _effects_value(self, effects: Sequence[Effect]) -> float:
        return _effects_value(effects)

    def _wanted_tokens(self, me: dict[str, Any]) -> tuple[str, ...]:
        return ("artifact",) * (not me["artifacts"]) + ("major_secret", "mystic_fruit")

    def _turn(
        self,
        obs: dict[str, Any],
        legal_actions: Sequence[Action],
        kinds: Mapping[str, list[int]],
        me: dict[str, Any],
    ) -> int:
        """Fruit, then the plan's moves, buys and fights, the Patron, the Cultist, the market
        (see the module docstring)."""
        pool = obs["pool"]
        if "expend_fruit" in kinds and (me["damage"] >= 1 or pool["boots"] == 0):
            return kinds["expend_fruit"][0]

        board = self.content.boards[obs["board"]]
        canoe = "canoe" in me["items"]
        target = self._target(obs, board, me, canoe)
        dist = self._distances(board, obs["open_paths"], target, canoe)
        space = me["space"]

        def edge(i: int) -> tuple[int, str]:
            path = board.paths[i]
            return path.monsters, path.b if path.a == space else path.a

        best_i = best_step(legal_actions, kinds, dist, space, me["health"], pool["swords"], edge)
        if best_i >= 0:
            return best_i

        best_i = buy_or_fight(obs, legal_actions, kinds, self.content.cards, _card_value, _effects_value)
        if best_i >= 0:
            return best_i
        if "patron" in kinds:
            return kinds["patron"][0]
        if "fight_cultist" in kinds:
            return kinds["fight_cultist"][0]
        if me["gold"] >= 10:
            return preferred(legal_actions, kinds, "buy_item", ("lucky_badge", "canoe"))
        return -1
