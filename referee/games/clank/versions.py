"""The Clank! engine versions before the current one, each the next version with what changed
overridden (README.md "Engine versions"); a replay or a ladder that names one plays it.

clank-1 -> clank-2 (commit 9ab19a1, RULES_NOTES.md): clank-2 follows the seed where clank-1's
notes departed. Everything clank-1 did otherwise is the current engine's code.
"""

from __future__ import annotations

from typing import Any

from referee.core.game import json_digest
from referee.games.clank.engine import ClankGame
from referee.games.clank.state import PlayerState
from referee.games.clank_core.state import CorePlayer

__all__ = ["Clank1"]

#: the state fields clank-2 added (cards acquired this turn): clank-1's state has none of them
_NEW_CARD_FIELDS = ("new_discard", "new_deck", "new_hand")


class Clank1(ClankGame):
    """clank-1: a token may be taken on a later turn in the room entered (the take lasted until
    the pawn left); market items are not tokens (several per visit, one of each item, Backpacks
    too); newly acquired cards redrawn the same turn may be played; zero scorers share a place
    whatever artifacts they carry."""

    engine_version = "clank-1"
    __slots__ = ()

    def _gain(self, p: CorePlayer, card_id: str) -> None:
        p.discard.append(card_id)  # never new: the new_* lists stay empty, every draw as before

    def _market_offers(self, p: PlayerState) -> list[str]:
        return [i for i, left in self.s.market.items() if left > 0 and i not in p.items]

    def _buy_item(self, p: PlayerState, item: str) -> None:
        may_take = p.may_take
        super()._buy_item(p, item)
        p.may_take = may_take  # buying used no take

    def _end_turn(self) -> None:
        p = self.s.players[self.s.current]
        may_take = p.may_take
        super()._end_turn()
        p.may_take = may_take  # the take lasted until the pawn left, across turns

    def _best_artifacts(self) -> list[int]:
        best = super()._best_artifacts()
        return [b if self.score(seat) > 0 else 0 for seat, b in enumerate(best)]

    def to_json(self) -> dict[str, Any]:
        return _clank_1_state(super().to_json())

    def digest(self) -> str:
        return json_digest(_clank_1_state(self.s.json_view()))


def _clank_1_state(view: dict[str, Any]) -> dict[str, Any]:
    """The state as clank-1 wrote it: the players without clank-2's new-card fields."""
    players = [{k: v for k, v in p.items() if k not in _NEW_CARD_FIELDS} for p in view["players"]]
    return {**view, "players": players}
