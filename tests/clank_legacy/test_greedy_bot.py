"""The greedy Clank! Legacy bot escapes in most games and is a registered built-in bot."""

from __future__ import annotations

from referee.bots import make_bot
from referee.core.game import Decision
from referee.games.clank_legacy.bots import LegacyGreedyBot
from referee.games.clank_legacy.engine import ClankLegacyGame

from .scenario import new_game, play_out


def test_greedy_escapes_in_most_four_player_games() -> None:
    """Four greedy bots: most seats escape (measured 86.2% over 200 games, with every-entry
    rewards and a random first player), every game ends."""
    bot = LegacyGreedyBot()
    escaped = seats = 0
    for seed in range(30):
        game = new_game(4, seed=seed)

        def choose(d: Decision, game: ClankLegacyGame = game) -> int:
            return bot.act(game.observe(d.seat), d.actions)

        play_out(game, seed=seed, chooser=choose)
        outcomes = game.result().outcomes
        escaped += outcomes.count("escaped")
        seats += len(outcomes)
    assert escaped / seats > 0.6


def test_greedy_is_a_built_in_bot() -> None:
    """`greedy` is the game's built-in bot by name (the spec lists it)."""
    assert isinstance(make_bot("clank_legacy", "greedy", 1), LegacyGreedyBot)
