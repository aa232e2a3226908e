"""Clank! Legacy rules: the checklist sections "Components" and "Setup".

Every line of those sections of `docs/rules/clank-legacy.md` has a test here, named after it,
with the line (in our words) in its docstring. Tests build a real game and act through the
public API (see `scenario.py`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from referee.core.effects import Effect
from referee.core.game import InvalidConfig
from referee.games.clank_legacy.campaign import apply_permanent, new_campaign
from referee.games.clank_legacy.content import default_content
from referee.games.clank_legacy.engine import ClankLegacyGame

from .scenario import new_game, player

CONTENT = default_content()


def test_board_side_is_chosen_by_the_prologue() -> None:
    """Components: the overworld board has two sides; the game's Prologue chooses the side."""
    first = new_game(2)
    assert first.s.prologue == 101 and first.s.board == "side_a"
    second = new_game(2, campaign=replace(new_campaign(2), next_prologue=102, game_index=1))
    assert second.s.board == "side_b"
    assert second.board.hq in second.board.spaces


def test_figures_start_on_hq_and_draw_five() -> None:
    """Setup: figures on HQ; draw 5."""
    game = new_game(4)
    for p in game.s.players:
        assert p.space == game.board.hq
        assert len(p.hand) == 5 and len(p.deck) == 5


def test_starting_deck_is_6_burgle_2_stumble_1_sidestep_1_scramble() -> None:
    """Components: starting deck per player: 6 Burgle, 2 Stumble, 1 Sidestep, 1 Scramble."""
    game = new_game(3)
    for p in game.s.players:
        assert Counter(p.hand + p.deck) == {"burgle": 6, "stumble": 2, "sidestep": 1, "scramble": 1}


def test_starting_deck_upgrades_from_promotions() -> None:
    """Campaign: a promotion grants a permanent starting-deck upgrade (one Burgle becomes the
    upgrade card in that seat's deck only)."""
    state = replace(new_campaign(2), promotions=(("seasoned_burgle",), ()))
    game = new_game(2, campaign=state)
    mine = Counter(game.s.players[0].hand + game.s.players[0].deck)
    theirs = Counter(game.s.players[1].hand + game.s.players[1].deck)
    assert mine["burgle"] == 5 and mine["seasoned_burgle"] == 1
    assert theirs["burgle"] == 6 and "seasoned_burgle" not in theirs


@pytest.mark.parametrize(("players", "space"), [(4, 0), (3, 1), (2, 2)])
def test_rage_start_by_player_count(players: int, space: int) -> None:
    """Setup: Rage: 4 players first space, 3 players second, 2 players third."""
    assert new_game(players).s.rage == space


def test_24_black_cubes_in_the_bag() -> None:
    """Components / Setup: 24 black cubes."""
    game = new_game(2)
    assert game.s.bag_black == 24 and sum(game.s.bag_cubes) == 0


def test_starting_clank_3_2_1_0() -> None:
    """Setup: 3/2/1/0 starting Clank! in turn order from the (random) first player."""
    for seed in range(8):
        game = new_game(4, seed=seed)
        order = [(game.s.first + k) % 4 for k in range(4)]
        assert [game.s.clank_area[seat] for seat in order] == [3, 2, 1, 0]
        assert [game.s.players[seat].supply for seat in order] == [27, 28, 29, 30]


def test_first_player_is_drawn_at_random_and_starts_every_round() -> None:
    """Setup: randomly choose a first player (seeded: the same seed, the same one); play goes
    round the table from them, and a round ends when play comes back to them."""
    firsts = {new_game(3, seed=seed).s.first for seed in range(30)}
    assert firsts == {0, 1, 2}
    assert new_game(3, seed=5).s.first == new_game(3, seed=5).s.first
    game = next(g for g in (new_game(3, seed=seed) for seed in range(30)) if g.s.first == 2)
    assert game.s.current == 2 and game.s.round == 1
    seen = []
    for _ in range(4):
        seen.append((game.s.current, game.s.round))
        player(game).hand = []
        game._decision = None
        game.apply(next(a for a in game.decision().actions if a.kind == "end_turn"))  # type: ignore[union-attr]
    assert seen == [(2, 1), (0, 1), (1, 1), (2, 2)]


def test_reserve_cultist_mercenary_explore_tome() -> None:
    """Components / Setup: Reserve: Cultist, Mercenary, Explore, Mysterious Tome."""
    game = new_game(2)
    assert set(game.s.reserve) == {"mercenary", "explore", "mysterious_tome"}
    assert CONTENT.cards[CONTENT.cultist].kind == "monster"
    game.s.pool.swords = 2
    game._decision = None
    assert any(a.kind == "fight_cultist" for a in game.decision().actions)  # type: ignore[union-attr]


def test_row_of_six_dealt_without_events_or_dragon_attacks() -> None:
    """Setup: deal 6 to the Adventure Row, setting aside Events and Dragon Attack cards,
    replacing them, then shuffling the set-aside cards back."""
    for seed in range(20):
        game = new_game(2, seed=seed)
        assert len(game.s.row) == 6 and all(c is not None for c in game.s.row)
        for c in game.s.row:
            assert c is not None
            assert CONTENT.cards[c].kind != "event" and not CONTENT.cards[c].dragon_attack
        assert len(game.s.adventure_deck) + 6 == sum(CONTENT.adventure.values())


def test_major_secrets_one_per_space_extras_to_the_bank() -> None:
    """Setup: major secrets one per space, extras face down in the Bank; minor secrets in the
    Bank face down."""
    game = new_game(2)
    spaces = [s.id for s in game.board.spaces.values() if s.major_secret]
    assert sorted(game.s.major_secrets) == sorted(spaces)
    assert all(len(v) == 1 for v in game.s.major_secrets.values())
    majors = sum(x.count for x in CONTENT.secrets.values() if x.size == "major")
    minors = sum(x.count for x in CONTENT.secrets.values() if x.size == "minor")
    assert len(game.s.bank_major) == majors - len(spaces)
    assert len(game.s.bank_minor) == minors


def test_fruit_artifacts_market_and_mugs_set_up() -> None:
    """Setup: Mugs by HQ (one per player), mystic fruit unexpended on their spaces, artifacts on
    their value spaces, market items on the Franchise Board."""
    game = new_game(3)
    board = game.board
    assert game.s.mugs == 3
    assert sorted(game.s.fruit_spaces) == sorted(s.id for s in board.spaces.values() if s.mystic_fruit)
    assert all(p.fruit == 0 and p.fruit_expended == 0 for p in game.s.players)
    assert game.s.artifacts == {s.id: s.artifact for s in board.spaces.values() if s.artifact}
    assert game.s.market == {i.id: i.count for i in CONTENT.market.values()}


def test_prologue_grants_patron_and_contracts() -> None:
    """Setup: read the Prologue (side, Patron, Contracts): game 1 grants its Patron and Contract."""
    game = new_game(2)
    assert game.s.patrons == ["lantern_duchess"]
    assert game.s.contracts == ["courier_run"]


def test_franchise_setup_and_first_turn_abilities() -> None:
    """Setup: the Franchise Board's abilities are in effect: a `setup` ability (2 gold each) and
    a `first_turn` ability (+2 Swords on each player's first turn only)."""
    state = new_campaign(2)
    state = apply_permanent(state, Effect(op="gain_ability", arg="petty_cash"))
    state = apply_permanent(state, Effect(op="gain_ability", arg="guild_charter"))
    game = new_game(2, campaign=state)
    assert [p.gold for p in game.s.players] == [2, 2]
    assert game.s.pool.swords == 2
    first = game.s.current
    player(game).hand = []
    game._decision = None
    game.apply(next(a for a in game.decision().actions if a.kind == "end_turn"))  # type: ignore[union-attr]
    assert game.s.current == 1 - first and game.s.pool.swords == 2
    player(game).hand = []
    game._decision = None
    game.apply(next(a for a in game.decision().actions if a.kind == "end_turn"))  # type: ignore[union-attr]
    assert game.s.current == first and game.s.pool.swords == 0


def test_bad_configs_are_refused_in_one_line() -> None:
    """Config: a wrong player count, a campaign of another size, an over campaign or a broken
    campaign JSON is an InvalidConfig naming the field."""
    with pytest.raises(InvalidConfig, match="players"):
        ClankLegacyGame.new_game({"players": 5}, 1)
    with pytest.raises(InvalidConfig, match="campaign"):
        ClankLegacyGame.new_game({"players": 2, "campaign": new_campaign(3).to_json()}, 1)
    with pytest.raises(InvalidConfig, match="over"):
        ClankLegacyGame.new_game({"players": 2, "campaign": replace(new_campaign(2), over=True).to_json()}, 1)
    with pytest.raises(InvalidConfig, match="campaign"):
        ClankLegacyGame.new_game({"players": 2, "campaign": {"players": 2}}, 1)
