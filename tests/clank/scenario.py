"""Scenario helpers for the Clank! rules tests.

A test builds a real game, edits its state into a precise situation (hand, pool, room, row...),
then acts only through the public API (`decision().actions`, `apply`) and checks the outcome.
Content is picked by property (a tunnel with two damage, a device that gives gold...) rather
than by id, so the tests survive content edits.

The game-independent ones (acting, the hand, the pool) come from `tests/clank_core/scenario.py`,
shared with Clank! Legacy's tests.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from referee.games.clank.content import Board, CardDef, Effect, Tunnel
from referee.games.clank.engine import ClankGame
from tests.clank_core.scenario import act, actions, can, player, refresh, set_hand, set_pool

__all__ = [
    "act",
    "actions",
    "can",
    "card_where",
    "cards_where",
    "new_game",
    "only_ops",
    "ops",
    "place",
    "player",
    "refresh",
    "set_hand",
    "set_pool",
    "tunnel_where",
    "tunnels_where",
]


def new_game(players: int = 2, seed: int = 7, board: str = "side_a") -> ClankGame:
    """A fresh game through the public constructor."""
    return ClankGame.new_game({"players": players, "board": board}, seed)


def place(game: ClankGame, room: str, seat: int | None = None, may_take: bool = False) -> None:
    """Put a pawn in `room` (without "entering" it unless may_take)."""
    p = player(game, seat)
    p.room = room
    p.may_take = may_take
    refresh(game)


# --- content lookup ---------------------------------------------------------------------------


def ops(effects: Iterable[Effect]) -> list[str]:
    """All ops in a list of effects, nested ones included."""
    out: list[str] = []
    for e in effects:
        out.append(e.op)
        out.extend(ops(e.then))
        for option in e.options:
            out.extend(ops(option))
    return out


def only_ops(effects: Iterable[Effect], allowed: set[str]) -> bool:
    """True when the effects are non-empty and use only `allowed` ops."""
    found = ops(effects)
    return bool(found) and set(found) <= allowed


def cards_where(
    game: ClankGame, test: Callable[[CardDef], bool], pool: Iterable[str] | None = None
) -> list[CardDef]:
    """Distinct card definitions (dungeon deck by default) passing `test`, sorted by id."""
    ids = sorted(set(game.content.dungeon if pool is None else pool))
    return [game.content.cards[i] for i in ids if test(game.content.cards[i])]


def card_where(
    game: ClankGame, test: Callable[[CardDef], bool], pool: Iterable[str] | None = None
) -> CardDef:
    """The first card definition passing `test` (the content must have one)."""
    found = cards_where(game, test, pool)
    assert found, "the content has no card for this scenario"
    return found[0]


def tunnels_where(board: Board, test: Callable[[Tunnel], bool]) -> list[int]:
    """Indices of the tunnels passing `test`."""
    return [i for i, t in enumerate(board.tunnels) if test(t)]


def tunnel_where(board: Board, test: Callable[[Tunnel], bool]) -> int:
    """The first tunnel passing `test` (the board must have one)."""
    found = tunnels_where(board, test)
    assert found, "the board has no tunnel for this scenario"
    return found[0]
