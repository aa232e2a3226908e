"""Clank! rules where the engine used to depart from the seed text (issue 10, "Rules").

Source: `shared/seeds/003_0ec42bade23463ab.txt`. Each test is named after the seed sentence it
holds the engine to, and fails with the engine's earlier reading (written in each docstring).
"""

from __future__ import annotations

from referee.games.clank.engine import ClankGame
from tests.clank.scenario_tools import (
    KNOCKED_OUT,
    act,
    arranged,
    card_where,
    discard_hand,
    end_turn,
    escape,
    has_action,
    make_game,
    move,
    plain_card,
    quiet_dragon,
    room_where,
    two_way_step,
)


def test_take_at_most_one_token_when_you_enter_a_room() -> None:
    """The right to take a token comes with entering the room and lasts that turn only (it used
    to last until the pawn left, across turns). Leaving and re-entering grants it again."""
    game = make_game(2)
    quiet_dragon(game)
    src, idol_room, _ = two_way_step(game, lambda r: r.idol)
    p = game.s.players[0]
    p.room = src
    game.s.pool.boots = 3
    discard_hand(game, 0)
    move(game, idol_room)
    assert has_action(game, "take", "monkey_idol"), "entering did not allow a take"
    act(game, "end_turn")
    end_turn(game)  # seat 1
    assert game.s.current == 0 and p.room == idol_room
    assert not has_action(game, "take"), "took a token on a later turn without re-entering"
    discard_hand(game, 0)
    game.s.pool.boots = 2
    arranged(game)
    move(game, src)
    move(game, idol_room)
    act(game, "take", "monkey_idol")
    assert p.idols == 1


def test_take_at_most_one_market_item_when_you_enter_a_market_room() -> None:
    """A market item is a token ("Other tokens" in the components): one purchase per entry into
    the market room (several used to be bought in one visit); leave and re-enter to buy another."""
    game = make_game(2)
    quiet_dragon(game)
    src, market, _ = two_way_step(game, lambda r: r.market)
    p = game.s.players[0]
    p.room, p.gold = src, 21
    game.s.pool.boots = 3
    discard_hand(game, 0)
    move(game, market)
    act(game, "buy_item", "master_key")
    assert not has_action(game, "buy_item"), "bought a second item in one visit"
    move(game, src)
    move(game, market)
    act(game, "buy_item", "crown")
    assert sorted(p.items) == ["crown", "master_key"]
    assert p.gold == 7


def test_each_backpack_lets_you_carry_one_more() -> None:
    """A second Backpack may be bought (it used to be refused: one of each item type) and each
    one carries one more artifact: two Backpacks carry three."""
    game = make_game(4)
    quiet_dragon(game)
    src, market, _ = two_way_step(game, lambda r: r.market)
    p = game.s.players[0]
    p.room, p.gold = src, 14
    game.s.pool.boots = 3
    discard_hand(game, 0)
    move(game, market)
    act(game, "buy_item", "backpack")
    move(game, src)
    move(game, market)
    act(game, "buy_item", "backpack")
    assert p.items == ["backpack", "backpack"] and game.s.market["backpack"] == 0
    rooms = game.board.artifact_rooms()[:4]
    for room in rooms[:3]:
        p.room, p.may_take = room, True
        arranged(game)
        act(game, "take", "artifact")
    assert len(p.artifacts) == 3
    p.room, p.may_take = rooms[3], True
    arranged(game)
    assert not has_action(game, "take", "artifact"), "two Backpacks carried a fourth artifact"


def test_the_tied_player_with_the_more_valuable_artifact_wins() -> None:
    """No exception for zero scores: of two players knocked out in the Depths (0 points each), the
    one carrying the more valuable artifact places ahead (they used to share the place)."""
    game = make_game(3)
    s = game.s
    escape(game, 0, game.content.artifacts[0])
    depths = room_where(game, lambda r: r.depths)
    for seat, artifacts in ((1, [game.content.artifacts[6]]), (2, [game.content.artifacts[5]])):
        s.players[seat].status = KNOCKED_OUT
        s.players[seat].room = depths
        s.players[seat].artifacts = artifacts
    s.over = True
    result = arranged(game).result()
    assert result.scores[1:] == (0, 0)
    assert result.places == (1, 2, 3)
    s.players[2].artifacts = [game.content.artifacts[6]]
    assert game.result().places == (1, 2, 2)  # equal artifacts: still tied, a shared place


def _simple_card(game: ClankGame) -> str:
    """A plain dungeon card whose play effects ask nothing (only resources)."""
    return plain_card(game, exclude=tuple(c for c in game.content.dungeon if not _only_resources(game, c)))


def _only_resources(game: ClankGame, card_id: str) -> bool:
    return all(e.op in ("skill", "swords", "boots", "gold") for e in game.card(card_id).play)


def _drawing_card(game: ClankGame) -> str:
    """A dungeon card whose play effects are exactly Boots and `draw 1`."""
    return card_where(
        game,
        lambda c: sorted(e.op for e in c.play) == ["boots", "draw"] and not c.acquire and not c.arrive,
    )


def test_other_newly_acquired_cards_cannot_be_used_that_turn() -> None:
    """A card acquired this turn, reshuffled from the discard pile into the deck and drawn the same
    turn, cannot be played that turn (it used to be playable); the turn may end with it in hand, and
    it is playable on the next turn it is drawn."""
    game = make_game(2)
    quiet_dragon(game)
    s, p = game.s, game.s.players[0]
    new = _simple_card(game)
    drawer = _drawing_card(game)
    p.hand, p.deck, p.discard = [drawer], [], []
    s.row[0] = new
    s.pool.skill = game.card(new).cost
    arranged(game)
    act(game, "acquire", 0)
    act(game, "play", drawer)  # the deck is empty: the discard pile (only the new card) is drawn
    assert p.hand == [new]
    assert not has_action(game, "play", new), "played a card acquired this turn"
    act(game, "end_turn")
    assert p.new_hand == [] and p.new_deck == [] and p.new_discard == []


def test_other_newly_acquired_cards_cannot_be_used_that_turn_old_copies_can() -> None:
    """With an older copy of the same card shuffled in too, exactly one of the two drawn copies
    (the older one) may be played this turn."""
    for seed in range(6):  # which copy comes first is random: both orders occur over the seeds
        game = make_game(2, seed=seed)
        quiet_dragon(game)
        s, p = game.s, game.s.players[0]
        new = _simple_card(game)
        drawer = _drawing_card(game)
        p.hand, p.deck, p.discard = [drawer, drawer], [], [new]
        s.row[0] = new
        s.pool.skill = game.card(new).cost
        arranged(game)
        act(game, "acquire", 0)
        act(game, "play", drawer)
        act(game, "play", drawer)
        assert p.hand == [new, new] and p.new_hand == [new]
        act(game, "play", new)
        assert p.hand == [new]
        assert not has_action(game, "play", new), "both copies played: the new one too"
        assert has_action(game, "end_turn")
