"""Built-in bots: they run in-process with the engine (the local runner, the benches, tests, the
workers' `builtin:<name>` seats, the demo ladder).

They live beside the engines because they read the games' content classes; `bots/` keeps only what
speaks the wire contract. They implement the same one method as SDK bots (`act(observation,
legal_actions) -> int`); `bots/python/examples/` holds SDK-only ports of `greedy` and `coop` that
choose exactly as these do (`tests/test_bots.py`).
"""

from __future__ import annotations

from collections.abc import Callable

from referee.bots.base import LocalBot
from referee.bots.random_bot import RandomBot

__all__ = ["LocalBot", "RandomBot", "available", "make_bot"]


def _greedy_clank(seed: int) -> LocalBot:
    from referee.bots.clank_greedy import ClankGreedyBot

    return ClankGreedyBot()


#: (game, bot name) -> factory(seed)
_FACTORIES: dict[tuple[str, str], Callable[[int], LocalBot]] = {
    ("*", "random"): RandomBot,
    ("clank", "greedy"): _greedy_clank,
    ("alien", "coop"): lambda seed: __import__("referee.bots.alien_coop", fromlist=["*"]).AlienCoopBot(),
}


def available(game: str) -> list[str]:
    """Names of the built-in bots that can play `game`."""
    return sorted({name for (g, name) in _FACTORIES if g in (game, "*")})


def make_bot(game: str, name: str, seed: int) -> LocalBot:
    """A fresh built-in bot; ValueError names the bots available for the game."""
    factory = _FACTORIES.get((game, name)) or _FACTORIES.get(("*", name))
    if factory is None:
        raise ValueError(f"no built-in bot {name!r} for {game}; available: {', '.join(available(game))}")
    return factory(seed)
