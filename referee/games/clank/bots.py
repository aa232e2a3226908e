"""A heuristic Clank! bot: play everything, buy well, grab an artifact it can bring home, get out.

It reads only its observation and the public content (board and card data), like any bot would.
Plan each decision:
1. pending choices: trash/discard the weakest starting cards, pick the richest option;
2. play every card in hand;
3. take tokens where it stands (artifact if it has none yet);
4. move one tunnel along the cheapest path to its target (artifact, or the exit once it has
   one), spending Swords to avoid tunnel damage when health is low;
5. buy the best card its Skill affords, fight the best monster its Swords beat;
6. end the turn.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from referee.core.game import Action
from referee.games.clank.content import (
    Board,
    CardDef,
    ClankContent,
    Effect,
    default_content,
)
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

__all__ = ["ClankGreedyBot"]

_RESOURCE_VALUE = {**RESOURCE_VALUE, "clank_all": 0.0, "rage": 0.0}


def _effects_value(effects: Sequence[Effect]) -> float:
    return effects_value(effects, _RESOURCE_VALUE, zero_counts_once=False)


def _card_value(card: CardDef) -> float:
    """How much a card is worth owning (or, for devices, using now), per the bot's taste."""
    if card.kind == "device":
        return _effects_value(card.use)
    value = _effects_value(card.play) + 0.3 * _effects_value(card.acquire) + 0.35 * card.points
    return value


class ClankGreedyBot(GreedyBot):
    """The greedy reference bot for Clank!."""


    def __init__(self, content: ClankContent | None = None) -> None:
        self.content = content or default_content()

    # --- path finding --------------------------------------------------------------------

    def _distances(self, board: Board, target: str, has_key: bool) -> dict[str, float]:
        """Cost to reach `target` from every room (Boots, plus a little per monster icon)."""

        def steps_into(d: float, room: str) -> Iterator[tuple[str, float]]:
            # walk tunnels backwards: from `prev` one can move into `room`
            for t_index in board.touching[room]:
                t = board.tunnels[t_index]
                prev = board.other_end(t_index, room)
                if t.one_way and t.b != room:
                    continue
                if t.locked and not has_key:
                    continue
                yield prev, d + t.boots + 0.7 * t.monsters

        return distances_to(target, steps_into)

    def _target(self, obs: dict[str, Any], board: Board, me: dict[str, Any], has_key: bool) -> str:
        if me["artifacts"]:
            return board.start
        # deeper is worth more but the way back is the risk; health and rage temper greed
        risk = 1.2 + 0.15 * obs["rage"] + (0.3 if me["health"] < 6 else 0.0)
        return best_target(
            obs["artifacts"], board.start, me["room"], lambda to: self._distances(board, to, has_key), risk
        )

    # --- deciding ------------------------------------------------------------------------

    def _effects_value(self, effects: Sequence[Effect]) -> float:
        return _effects_value(effects)

    def _wanted_tokens(self, me: dict[str, Any]) -> tuple[str, ...]:
        # an artifact if it carries none (or has a Backpack for a second one)
        artifact = not me["artifacts"] or "backpack" in me["items"]
        return ("artifact",) * artifact + ("major_secret", "minor_secret", "monkey_idol")

    def _turn(
        self,
        obs: dict[str, Any],
        legal_actions: Sequence[Action],
        kinds: Mapping[str, list[int]],
        me: dict[str, Any],
    ) -> int:
        """Items, then the plan's moves, buys and fights, the Goblin (see the module docstring)."""
        best_i = preferred(legal_actions, kinds, "buy_item", ("crown", "master_key", "backpack"))
        if best_i >= 0:
            return best_i

        board = self.content.boards[obs["board"]]
        has_key = "master_key" in me["items"]
        target = self._target(obs, board, me, has_key)
        dist = self._distances(board, target, has_key)
        room = me["room"]

        def edge(t_index: int) -> tuple[int, str]:
            return board.tunnels[t_index].monsters, board.other_end(t_index, room)

        best_i = best_step(legal_actions, kinds, dist, room, me["health"], obs["pool"]["swords"], edge)
        if best_i >= 0:
            return best_i

        best_i = buy_or_fight(obs, legal_actions, kinds, self.content.cards, _card_value, _effects_value)
        if best_i >= 0:
            return best_i
        return kinds["fight_goblin"][0] if "fight_goblin" in kinds else -1
