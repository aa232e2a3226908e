"""Scenario helpers both Clank! games' rules tests share (`tests/clank/scenario.py`,
`tests/clank_legacy/scenario.py` re-export them beside their own).

A test builds a real game, edits its state into a precise situation, then acts only through the
public API (`decision().actions`, `apply`) and checks the outcome. These helpers read and edit
only what both engines have alike (`game.s.players`, `game.s.current`, `game.s.pool`, the hand,
the cached decision); each game's module adds its own constructor and board lookups.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from referee.core.game import Action
from referee.games.clank_core.game import ClankGameBase

__all__ = ["act", "actions", "can", "player", "refresh", "set_hand", "set_pool"]


#: either Clank! game (the helpers read nothing of its board or card types)
Game = ClankGameBase[Any, Any]


def refresh(game: Game) -> None:
    """Drop the cached decision after editing the state directly."""
    game._decision = None


def player(game: Game, seat: int | None = None) -> Any:
    """A player's state (the current player by default), as the game's own player class."""
    return game.s.players[game.s.current if seat is None else seat]


def actions(game: Game, kind: str | None = None) -> list[Action]:
    """The legal actions now, optionally only those of one kind."""
    d = game.decision()
    assert d is not None, "the game is over"
    return [a for a in d.actions if kind is None or a.kind == kind]


def can(game: Game, kind: str, *args: int | str) -> bool:
    """Whether `kind args` is a legal action now."""
    return any(a.args == tuple(args) for a in actions(game, kind))


def act(game: Game, kind: str, *args: int | str) -> None:
    """Apply the legal action `kind args`, failing the test with the legal list if it is absent."""
    for a in actions(game, kind):
        if a.args == tuple(args):
            game.apply(a)
            return
    legal = [(a.kind, *a.args) for a in actions(game)]
    raise AssertionError(f"{kind} {args} is not legal; legal: {legal}")


def set_hand(game: Game, cards: Iterable[str], seat: int | None = None) -> None:
    """Replace a player's hand."""
    player(game, seat).hand = list(cards)
    refresh(game)


def set_pool(game: Game, **values: int | bool) -> None:
    """Set fields of the turn pool (skill, swords, boots, teleports, negative_clank, exhausted)."""
    for name, value in values.items():
        setattr(game.s.pool, name, value)
    refresh(game)
