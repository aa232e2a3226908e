"""Clank! rules: one test (or more) per question of the seed's "Frequently confused rules".

Source: `shared/seeds/003_0ec42bade23463ab.txt`. Situations are arranged by editing the state
(see `scenario_tools`), then played through the public API.
"""

from __future__ import annotations

from collections import Counter

import pytest

from tests.clank.scenario_tools import (
    KNOCKED_OUT,
    act,
    arranged,
    card_where,
    discard_hand,
    has_action,
    make_game,
    move,
    plain_card,
    quiet_dragon,
    two_way_step,
)

# --- Q. May I keep cards in my hand for later? No. -------------------------------------------


def test_faq_cannot_keep_cards_in_hand_for_later() -> None:
    """The turn cannot end while cards remain in hand; at the end every played card is discarded
    and a new hand of five is drawn (nothing carries over)."""
    game = make_game(2)
    p = game.s.players[0]
    old_hand = Counter(p.hand)
    old_deck = Counter(p.deck)
    assert len(p.hand) == 5
    while p.hand:
        assert not has_action(game, "end_turn")
        act(game, "play", p.hand[0])
        d = game.decision()
        assert d is not None and d.kind == "turn"  # starting cards push no choices
    assert has_action(game, "end_turn")
    act(game, "end_turn")
    assert p.play == []
    assert Counter(p.discard) == old_hand
    assert Counter(p.hand) == old_deck
    assert len(p.hand) == 5


# --- Q. Can I use a newly acquired card immediately? No. ---------------------------------------


def test_faq_newly_acquired_card_cannot_be_used_this_turn() -> None:
    """An acquired card goes to the discard pile: it is not in hand, cannot be played, and its
    play effects do not happen."""
    game = make_game(2)
    s = game.s
    card = card_where(
        game,
        lambda c: (
            c.kind == "card"
            and not c.acquire
            and not c.danger
            and not c.dragon_attack
            and any(e.op == "boots" for e in c.play)
        ),
    )
    s.row[0] = card
    s.pool.skill = game.card(card).cost
    discard_hand(game, 0)
    act(game, "acquire", 0)
    p = s.players[0]
    assert p.discard.count(card) == 1
    assert card not in p.hand
    assert not has_action(game, "play", card)
    assert (s.pool.skill, s.pool.boots) == (0, 0)
    assert s.row[0] is None  # not refilled before the turn ends


def test_faq_device_resolves_at_once_and_never_enters_deck() -> None:
    """A Device's effect happens the moment it is bought; the card goes to the dungeon discard,
    never into the buyer's cards."""
    game = make_game(2)
    s = game.s
    device = card_where(game, lambda c: c.kind == "device" and [e.op for e in c.use] == ["gold"])
    gold = game.card(device).use[0].n
    s.row[0] = device
    s.pool.skill = game.card(device).cost
    arranged(game)
    p = s.players[0]
    before = p.gold
    act(game, "acquire", 0)
    assert p.gold == before + gold
    assert s.dungeon_discard == [device]
    assert device not in p.deck + p.hand + p.play + p.discard


# --- Q. Can I take two tokens from one room at once? No. ---------------------------------------


def test_faq_one_token_per_entry_leave_and_reenter_for_another() -> None:
    """Entering a room allows one token; a second token in the same room needs leaving and
    entering again."""
    game = make_game(2)
    s = game.s
    here, room, _ = two_way_step(game, lambda r: r.minor_secrets == 2 and not r.depths)
    purse = sorted(
        x.id
        for x in game.content.secrets.values()
        if x.size == "minor" and not x.potion and [e.op for e in x.effects] == ["gold"]
    )[0]
    gold = game.content.secrets[purse].effects[0].n
    s.minor_secrets[room] = [purse, purse]
    p = s.players[0]
    p.room = here
    p.gold = 0
    s.pool.boots = 3
    arranged(game)
    move(game, room)
    act(game, "take", "minor_secret")
    assert p.gold == gold
    assert s.minor_secrets[room] == [purse]
    assert not has_action(game, "take")
    move(game, here)
    move(game, room)
    act(game, "take", "minor_secret")
    assert p.gold == 2 * gold
    assert s.minor_secrets[room] == []


# --- Q. Can I exchange my artifact if I have no Backpack? No. --------------------------------


def test_faq_no_artifact_exchange_without_backpack() -> None:
    """Carrying an artifact and no Backpack, a player may not take (or swap for) another one;
    with a Backpack the player keeps the first and takes a second."""
    game = make_game(2)
    s = game.s
    here, room, _ = two_way_step(game, lambda r: r.id in s.artifacts)
    on_board = s.artifacts[room]
    carried = next(v for v in game.content.artifacts if v != on_board)
    p = s.players[0]
    p.room = here
    p.artifacts = [carried]
    s.pool.boots = 1
    arranged(game)
    move(game, room)
    assert not has_action(game, "take", "artifact")
    d = game.decision()
    assert d is not None
    assert {a.kind for a in d.actions} <= {"play", "acquire", "fight", "buy_reserve", "fight_goblin", "move"}
    assert p.artifacts == [carried] and s.artifacts[room] == on_board

    p.items.append("backpack")
    arranged(game)
    act(game, "take", "artifact")
    assert p.artifacts == [carried, on_board]
    assert room not in s.artifacts


# --- Q. Do several new Dragon Attack symbols cause several attacks? No. -----------------------


def test_one_refill_with_several_dragon_symbols_is_one_attack() -> None:
    """However many Dragon Attack cards a refill reveals, the dragon attacks once."""
    game = make_game(2)
    quiet_dragon(game, black=24, rage_draws=2)
    s = game.s
    plain = plain_card(game)
    dragons = sorted(
        c
        for c in set(game.content.dungeon)
        if game.card(c).dragon_attack and not game.card(c).danger and not game.card(c).arrive
    )[:3]
    assert len(dragons) == 3
    s.row[:3] = [plain] * 3
    s.dungeon_deck.extend(dragons)
    s.pool.skill = 3 * game.card(plain).cost
    discard_hand(game, 0)
    for slot in range(3):
        act(game, "acquire", slot)
    act(game, "end_turn")
    assert sorted(c for c in s.row[:3] if c is not None) == dragons
    assert s.bag_black == 24 - 2  # one attack of 2 cubes, not three
    assert s.last_attack["cubes"] == 2


# --- Q. Does an artifact guarantee rescue anywhere? No. ---------------------------------------


@pytest.mark.parametrize("in_depths", [False, True])
def test_faq_artifact_does_not_guarantee_rescue_in_depths(in_depths: bool) -> None:
    """Knocked out with an artifact: rescued (scores normally) outside the Depths, 0 points in
    the Depths."""
    game = make_game(2)
    quiet_dragon(game, black=0, rage_draws=2)
    s = game.s
    victim = s.players[1]
    victim.room = next(
        r.id for r in game.board.rooms.values() if r.depths == in_depths and r.id != game.board.start
    )
    artifact = game.content.artifacts[2]
    victim.artifacts = [artifact]
    victim.gold = 4
    victim.damage = game.content.rules["health"] - 1
    victim.supply -= victim.damage
    s.clank_area[1], victim.supply = 3, victim.supply - 3
    plain = plain_card(game)
    s.row[0] = plain
    s.dungeon_deck.append(
        sorted(
            c
            for c in set(game.content.dungeon)
            if game.card(c).dragon_attack and not game.card(c).danger and not game.card(c).arrive
        )[0]
    )
    s.pool.skill = game.card(plain).cost
    discard_hand(game, 0)
    act(game, "acquire", 0)
    act(game, "end_turn")
    assert victim.status == KNOCKED_OUT
    cards = sum(game.card(c).points for c in victim.deck + victim.hand + victim.play + victim.discard)
    if in_depths:
        assert (game.outcome(1), game.score(1)) == ("knocked_out", 0)
    else:
        assert (game.outcome(1), game.score(1)) == ("rescued", artifact + 4 + cards)
