"""A test-only engine version N+1 of Clank! ("clank-3"), registered by the upgrade tests in
place of the current one to play "the build's default moved on" without a real rules change."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

from referee.games.clank.engine import ClankGame


class ClankNext(ClankGame):
    """clank-3 for the tests: every player starts with 1 gold (a change every state shows)."""

    engine_version = "clank-3"
    __slots__ = ()

    @classmethod
    def new_game(cls, config: Mapping[str, Any], seed: int) -> Self:
        game = super().new_game(config, seed)
        for p in game.s.players:
            p.gold += 1
        return game
