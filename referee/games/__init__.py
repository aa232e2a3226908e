"""The game registry: the referee and the runners look games up by name, never import one."""

from __future__ import annotations

import importlib

from referee.core.game import Game

__all__ = ["GAMES", "game_class"]

#: name -> "module:Class" (imported lazily so a game's import cost is paid only when used)
GAMES: dict[str, str] = {
    "clank": "referee.games.clank.engine:ClankGame",
    "alien": "referee.games.alien.engine:AlienGame",
}


def game_class(name: str) -> type[Game]:
    """The engine class registered under `name`; KeyError names the known games."""
    try:
        target = GAMES[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r}; known: {', '.join(sorted(GAMES))}") from None
    module_name, _, attr = target.partition(":")
    cls = getattr(importlib.import_module(module_name), attr)
    assert isinstance(cls, type) and issubclass(cls, Game)
    return cls
