"""Whole campaigns played through the engine: each game's Prologue is the one the previous
Mission Report named, and the group votes branch the campaign's components."""

from __future__ import annotations

from referee.core.game import Decision
from referee.core.rng import RandomStreams
from referee.games.clank_legacy.bots import LegacyGreedyBot
from referee.games.clank_legacy.campaign import CampaignState, new_campaign
from referee.games.clank_legacy.content import default_content
from referee.games.clank_legacy.engine import ClankLegacyGame

from .scenario import new_game, play_out


def _campaign(players: int, vote: int, seed: int) -> CampaignState:
    bot = LegacyGreedyBot()
    state = new_campaign(players)
    k = 0
    while not state.over:
        game = new_game(players, seed=seed * 100 + k, campaign=state)
        rng = RandomStreams(seed + k, {})

        def choose(d: Decision, game: ClankLegacyGame = game, rng: RandomStreams = rng) -> int:
            if d.kind == "vote":
                return min(vote, len(d.actions) - 1)
            if d.seat % 2 == 0:
                return bot.act(game.observe(d.seat), d.actions)
            return rng.below("bot", len(d.actions))

        play_out(game, seed, chooser=choose)
        assert game.s.prologue == state.next_prologue
        state = CampaignState.from_json(game.campaign_after().to_json())
        k += 1
        assert k <= 12
    return state


def test_a_campaign_of_at_least_ten_games_and_choices_branch() -> None:
    """The campaign: at least 10 games by the same seats, each Prologue named by the Mission
    Report of the game before; group choices permanently change the components."""
    content = default_content()
    guild = _campaign(3, 0, 1)
    grove = _campaign(3, 1, 1)
    for state in (guild, grove):
        assert len(state.reports) >= content.rules["campaign_min_games"]
        prologues = [r.prologue for r in state.reports]
        assert prologues[0] == content.first_prologue
        assert all(content.passages[p].game == i + 1 for i, p in enumerate(prologues))
    assert "sided_with_guild" in guild.facts and "sided_with_grove" in grove.facts
    assert guild.adventure_changes != grove.adventure_changes
    assert guild.abilities != grove.abilities
