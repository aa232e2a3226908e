"""Built-in bots: they run in-process with the engine (the local runner, the benches, tests, the
workers' `builtin:<name>` seats, `arena match --bot builtin:<name>`, the demo ladder).

Here: the machinery, `random`, the bot every game has, and `ismcts` (ISMCTS.md), the search bot
a game lists in its spec once it has a determinizer. A game's own bots live in its folder
(`referee/games/<name>/bots.py`, named in its spec's `bots`) because they read its content
classes; `bots/` keeps only what speaks the wire contract. They implement the same one method
as SDK bots (`act(observation, legal_actions) -> int`); `bots/python/examples/` holds SDK-only
ports of `greedy` and `coop` that choose exactly as these do (`tests/test_bots.py`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

from referee.bots.base import LocalBot
from referee.bots.random_bot import RandomBot

__all__ = ["LocalBot", "RandomBot", "available", "make_bot"]


#: the bot every game has: it needs no knowledge of the game (each game's own bots are in its spec)
_UNIVERSAL: dict[str, Callable[[int], LocalBot]] = {"random": RandomBot}


def available(game: str) -> list[str]:
    """Names of the built-in bots that can play `game` (its spec's bots and the universal ones)."""
    from referee.games import game_spec

    try:
        own = game_spec(game).bots
    except KeyError:
        own = {}
    return sorted({*_UNIVERSAL, *own})


def make_bot(game: str, name: str, seed: int) -> LocalBot:
    """A fresh built-in bot; ValueError names the bots available for the game.

    A game's own bots are made by the factory its spec names, given `game` and `seed` as keyword
    arguments when it has parameters of those names (a bot that serves several games, a
    searching bot's random choices), else called with no arguments; the universal ones get
    `seed`."""
    from referee.games import game_spec
    from referee.games.spec import load

    try:
        target = game_spec(game).bots.get(name)
    except KeyError:
        target = None
    if target is not None:
        factory = load(target)
        takes = inspect.signature(factory).parameters
        given = {k: v for k, v in (("game", game), ("seed", seed)) if k in takes}
        bot: LocalBot = factory(**given)
        return bot
    universal = _UNIVERSAL.get(name)
    if universal is None:
        raise ValueError(f"no built-in bot {name!r} for {game}; available: {', '.join(available(game))}")
    return universal(seed)
