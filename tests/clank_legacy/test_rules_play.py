"""Clank! Legacy rules: the checklist sections "Components" (board features, tokens) and
"Differences in play".

Every line of those sections of `docs/rules/clank-legacy.md` has a test here, named after it,
with the line (in our words) in its docstring. Tests build a real game, edit the state into a
precise situation and act through the public API only (see `scenario.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from referee.games.clank_legacy.campaign import new_campaign
from referee.games.clank_legacy.content import BoardPath, default_content
from referee.games.clank_legacy.engine import ClankLegacyGame

from .scenario import (
    act,
    actions,
    can,
    new_game,
    path_where,
    place,
    player,
    refresh,
    set_hand,
    set_pool,
    space_where,
)

CONTENT = default_content()


def _side_b() -> ClankLegacyGame:
    return new_game(2, campaign=replace(new_campaign(2), next_prologue=102))


def _plain(cost: int) -> Callable[[BoardPath], bool]:
    return lambda p: p.boots == cost and not p.monsters and not p.canoe and not p.one_way


# --- the board --------------------------------------------------------------------------------


def test_footprint_costs_1_2_3_boots() -> None:
    """Movement costs: a path costs its footprints (1, 2 or 3) in Boots."""
    game = new_game()
    board = game.board
    for cost in (1, 2, 3):
        i = path_where(board, _plain(cost))
        path = board.paths[i]
        place(game, path.a)
        set_hand(game, [])
        set_pool(game, boots=cost - 1, exhausted=False)
        assert not can(game, "move", i, 0)
        set_pool(game, boots=cost)
        act(game, "move", i, 0)
        assert player(game).space == path.b and game.s.pool.boots == 0


def test_monster_icons_deal_damage_unless_a_sword_per_icon() -> None:
    """Monster icons: 1 damage each, unless a Sword is spent per icon."""
    game = new_game()
    board = game.board
    i = path_where(board, lambda p: p.monsters == 2 and p.boots == 1 and not p.canoe and not p.one_way)
    path = board.paths[i]
    for spend, hurt in ((0, 2), (1, 1), (2, 0)):
        place(game, path.a)
        set_hand(game, [])
        p = player(game)
        p.damage = 0
        set_pool(game, boots=1, swords=2, exhausted=False)
        act(game, "move", i, spend)
        assert p.damage == hurt and game.s.pool.swords == 2 - spend


def test_canoe_paths_need_the_canoe() -> None:
    """Canoe paths need a Canoe (the market item)."""
    game = new_game()
    board = game.board
    i = path_where(board, lambda p: p.canoe)
    place(game, board.paths[i].a)
    set_hand(game, [])
    set_pool(game, boots=3)
    assert not can(game, "move", i, 0)
    player(game).items.append("canoe")
    refresh(game)
    assert can(game, "move", i, 0)


def test_one_way_paths_only_from_a_to_b() -> None:
    """One-way paths: only in the arrow's direction."""
    game = new_game()
    board = game.board
    i = path_where(board, lambda p: p.one_way and not p.monsters and p.boots == 1)
    path = board.paths[i]
    place(game, path.b)
    set_hand(game, [])
    set_pool(game, boots=3)
    assert not can(game, "move", i, 0)
    place(game, path.a)
    assert can(game, "move", i, 0)


def test_forest_exhausts_but_teleport_still_works() -> None:
    """Forest spaces: entering exhausts (no more Boots this turn); teleport still works."""
    game = new_game()
    board = game.board
    forest = space_where(board, lambda s: s.forest and not s.reward and not s.mystic_fruit)
    i = path_where(
        board,
        lambda p: p.b == forest.id and p.boots == 1 and not p.monsters and not p.canoe and not p.one_way,
    )
    place(game, board.paths[i].a)
    set_hand(game, [])
    set_pool(game, boots=5, teleports=1)
    act(game, "move", i, 0)
    assert player(game).space == forest.id and game.s.pool.exhausted
    assert not actions(game, "move") and not actions(game, "coach")
    assert actions(game, "teleport")
    act(game, "teleport", actions(game, "teleport")[0].args[0])
    assert player(game).space != forest.id


def test_coach_one_boot_and_gold_of_both_values_to_any_coach_space() -> None:
    """Coach: spend 1 Boot and gold equal to departure + destination values to move to any other
    Coach space."""
    game = new_game()
    board = game.board
    coaches = sorted((s for s in board.spaces.values() if s.coach), key=lambda s: s.coach)
    here, there = coaches[0], coaches[-1]
    place(game, here.id)
    set_hand(game, [])
    p = player(game)
    price = here.coach + there.coach
    p.gold = price - 1
    set_pool(game, boots=1)
    assert not can(game, "coach", there.id)
    p.gold = price
    refresh(game)
    assert {a.args[0] for a in actions(game, "coach")} == {s.id for s in coaches if s.id != here.id}
    act(game, "coach", there.id)
    assert p.space == there.id and p.gold == 0 and game.s.pool.boots == 0


def test_town_market_7_gold_one_of_each_type() -> None:
    """Town market: items at 7 gold each, one of each type per player."""
    game = new_game()
    town = space_where(game.board, lambda s: s.town)
    place(game, town.id)
    set_hand(game, [])
    p = player(game)
    p.gold = 6
    refresh(game)
    assert not actions(game, "buy_item")
    p.gold = 14
    refresh(game)
    act(game, "buy_item", "canoe")
    assert p.items == ["canoe"] and p.gold == 7
    assert not can(game, "buy_item", "canoe") and can(game, "buy_item", "backpack")
    place(game, space_where(game.board, lambda s: not s.town).id)
    assert not actions(game, "buy_item")


def test_reward_spaces_pay_on_every_entry() -> None:
    """Reward spaces (gold, healing...): the seed gives the reward "when you enter them", so
    every entry pays, leaving and coming back included (`rules.reward_trigger` every_entry)."""
    game = new_game()
    board = game.board
    mill = space_where(board, lambda s: [e.op for e in s.reward] == ["gold"])
    i = path_where(
        board, lambda p: mill.id in (p.a, p.b) and p.boots == 1 and not p.monsters and not p.one_way
    )
    path = board.paths[i]
    start = path.a if path.b == mill.id else path.b
    place(game, start)
    set_hand(game, [])
    p = player(game)
    set_pool(game, boots=3)
    act(game, "move", i, 0)
    assert p.gold == mill.reward[0].n
    act(game, "move", i, 0)
    assert p.gold == mill.reward[0].n  # leaving pays nothing
    act(game, "move", i, 0)
    assert p.gold == 2 * mill.reward[0].n


def test_reward_trigger_first_entry_is_honoured_when_pinned(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reward spaces and Waypoints: the engine reads `rules.reward_trigger` /
    `rules.waypoint_trigger`; content pinning `first_entry_per_player` pays once per game."""
    from referee.games.clank_legacy import engine

    content = default_content()
    rules = dict(content.rules, reward_trigger="first_entry_per_player")
    monkeypatch.setattr(engine, "default_content", lambda: replace(content, rules=rules))
    game = new_game()
    board = game.board
    mill = space_where(board, lambda s: [e.op for e in s.reward] == ["gold"])
    i = path_where(
        board, lambda p: mill.id in (p.a, p.b) and p.boots == 1 and not p.monsters and not p.one_way
    )
    path = board.paths[i]
    place(game, path.a if path.b == mill.id else path.b)
    set_hand(game, [])
    set_pool(game, boots=3)
    for _ in range(3):
        act(game, "move", i, 0)
    assert player(game).gold == mill.reward[0].n


def test_waypoint_resolves_its_passage() -> None:
    """Waypoints: entering resolves the Book passage's effects in game (Waypoint 5 grants a
    Contract and 1 gold)."""
    game = _side_b()
    board = game.board
    rock = space_where(board, lambda s: s.waypoint == 5)
    i = path_where(
        board, lambda p: rock.id in (p.a, p.b) and not p.one_way and not p.canoe and not p.monsters
    )
    path = board.paths[i]
    place(game, path.a if path.b == rock.id else path.b)
    set_hand(game, [])
    set_pool(game, boots=3)
    act(game, "move", i, 0)
    assert "relic_retrieval" in game.s.contracts and player(game).gold == 1


def test_waypoint_passage_resolves_on_every_entry() -> None:
    """Waypoints "trigger a Passage in the Book of Secrets when entered" (seed): entering again
    resolves the passage again (Waypoint 5: +1 gold each time; its Contract is granted once)."""
    game = _side_b()
    board = game.board
    rock = space_where(board, lambda s: s.waypoint == 5)
    # Gull Rock's neighbours are Forests (they exhaust): go in and out by teleport
    i = path_where(board, lambda p: rock.id in (p.a, p.b) and not p.one_way)
    path = board.paths[i]
    place(game, path.a if path.b == rock.id else path.b)
    set_hand(game, [])
    set_pool(game, teleports=3)
    for _ in range(3):
        act(game, "teleport", i)
    assert player(game).gold == 2
    assert game.s.contracts.count("relic_retrieval") == 1


def test_waypoint_choice_is_the_entering_players_and_facts_persist() -> None:
    """Waypoints: a choice in a Waypoint passage is the entering player's; a fact it records is
    a permanent campaign change (Waypoint 4 records lit_the_lighthouse)."""
    game = _side_b()
    board = game.board
    light = space_where(board, lambda s: s.waypoint == 4)
    i = path_where(
        board, lambda p: light.id in (p.a, p.b) and not p.one_way and not p.canoe and not p.monsters
    )
    path = board.paths[i]
    place(game, path.a if path.b == light.id else path.b)
    set_hand(game, [])
    set_pool(game, boots=3)
    act(game, "move", i, 0)
    d = game.decision()
    assert d is not None and d.kind == "choose" and d.seat == game.s.current
    act(game, "choose", 0)
    assert player(game).gold == 3
    assert "lit_the_lighthouse" in game.s.campaign_now["facts"]
    assert "lit_the_lighthouse" not in game.s.campaign["facts"]


def test_artifact_advances_rage_and_one_only() -> None:
    """Taking an artifact advances the Dragon Marker one space; one artifact only (a backpack
    carries one more)."""
    game = new_game()
    spaces = [s for s in game.board.spaces.values() if s.artifact]
    p = player(game)
    place(game, spaces[0].id)
    p.may_take = True
    refresh(game)
    rage = game.s.rage
    act(game, "take", "artifact")
    assert p.artifacts == [spaces[0].artifact] and game.s.rage == rage + 1
    place(game, spaces[1].id)
    p.may_take = True
    refresh(game)
    assert not can(game, "take", "artifact")
    p.items.append("backpack")
    refresh(game)
    assert can(game, "take", "artifact")


def test_major_secret_and_fruit_on_spaces_are_taken() -> None:
    """Reward spaces: a major secret or a mystic fruit on a space may be taken on entering it."""
    game = new_game()
    p = player(game)
    orchard = space_where(game.board, lambda s: s.mystic_fruit)
    place(game, orchard.id)
    p.may_take = True
    refresh(game)
    act(game, "take", "mystic_fruit")
    assert p.fruit == 1 and orchard.id not in game.s.fruit_spaces


def test_mystic_fruit_expend_and_refresh() -> None:
    """Mystic fruit: unexpended fruit may be expended for its effect; an Event refreshes every
    expended fruit."""
    game = new_game()
    p = player(game)
    p.fruit = 1
    p.damage = 2
    set_hand(game, [])
    act(game, "expend_fruit")
    assert p.fruit == 0 and p.fruit_expended == 1 and p.damage == 1 and game.s.pool.boots == 1
    harvest = next(c for c in CONTENT.cards.values() if any(e.op == "refresh_fruit" for e in c.reveal))
    game.s.row[0] = None
    game.s.adventure_deck.append(next(c for c in CONTENT.adventure if CONTENT.cards[c].kind == "card"))
    game.s.adventure_deck.append(harvest.id)
    refresh(game)
    act(game, "end_turn")
    assert p.fruit == 1 and p.fruit_expended == 0


def test_events_resolve_on_reveal_and_refilling_continues() -> None:
    """End of turn: refill the Adventure Row; an Event revealed resolves at once, is discarded,
    and refilling continues."""
    game = new_game()
    payday = next(
        c for c in CONTENT.cards.values() if c.kind == "event" and any(e.op == "gold_all" for e in c.reveal)
    )
    plain = next(c for c in CONTENT.adventure if CONTENT.cards[c].kind == "card")
    game.s.row[2] = None
    game.s.adventure_deck += [plain, payday.id]
    set_hand(game, [])
    golds = [p.gold for p in game.s.players]
    act(game, "end_turn")
    assert game.s.row[2] == plain
    assert payday.id in game.s.adventure_discard
    assert [p.gold for p in game.s.players] == [g + 1 for g in golds]


def test_empty_adventure_deck_refilled_from_discard() -> None:
    """End of turn: an empty Adventure deck is refilled from its discard pile."""
    game = new_game()
    plain = next(
        c for c in CONTENT.adventure if CONTENT.cards[c].kind == "card" and not CONTENT.cards[c].dragon_attack
    )
    game.s.adventure_discard = [*game.s.adventure_deck, plain]
    game.s.adventure_deck = []
    game.s.row[0] = None
    set_hand(game, [])
    act(game, "end_turn")
    assert game.s.row[0] is not None
    assert game.s.adventure_discard == [] or all(
        CONTENT.cards[c].kind == "event" for c in game.s.adventure_discard
    )


def test_one_dragon_attack_if_a_new_card_shows_the_symbol() -> None:
    """End of turn: one Dragon Attack if any new card shows the symbol (an Event too): Clank!
    Area cubes go into the bag, and as many cubes as the Rage track shows are drawn."""
    game = new_game(2)
    tremor = next(c for c in CONTENT.cards.values() if c.kind == "event" and c.dragon_attack)
    symbols = [
        c for c in CONTENT.adventure if CONTENT.cards[c].kind != "event" and CONTENT.cards[c].dragon_attack
    ]
    game.s.row[0] = None
    game.s.row[1] = None
    game.s.adventure_deck += [symbols[0], symbols[0], tremor.id]
    set_hand(game, [])
    in_area = sum(game.s.clank_area)
    act(game, "end_turn")
    attack = game.s.last_attack
    assert attack["reason"] == "refill" and attack["cubes"] == CONTENT.rules["rage_track"][game.s.rage]
    assert sum(game.s.clank_area) == 0
    assert (
        game.s.bag_black + sum(game.s.bag_cubes) == 24 + in_area + 2 - attack["drawn"]
    )  # +1 each: Event clank


def test_reserve_cultist_fought_repeatedly_and_cards_bought() -> None:
    """Reserve: the Cultist is fought again and again; Mercenary, Explore, Mysterious Tome are
    acquired with Skill."""
    game = new_game()
    set_hand(game, [])
    set_pool(game, swords=4, skill=7)
    p = player(game)
    act(game, "fight_cultist")
    act(game, "fight_cultist")
    assert p.gold == 2 and game.s.turn.defeated == 2
    act(game, "buy_reserve", "mysterious_tome")
    assert "mysterious_tome" in p.discard and game.s.reserve["mysterious_tome"] == 11


def test_patron_once_per_turn() -> None:
    """A Patron card when a Prologue grants it: once per turn, pay its cost in Skill for its favor."""
    game = new_game()
    set_hand(game, [])
    set_pool(game, skill=6)
    p = player(game)
    act(game, "patron", "lantern_duchess")
    assert p.gold == 2 and game.s.pool.skill == 3
    assert not actions(game, "patron")


def test_contracts_resolve_at_end_of_turn_once() -> None:
    """End of turn: resolve Contracts first (Courier Run: end a turn on a Town, +3 gold, the first
    player to fulfil it claims it)."""
    game = new_game()
    town = space_where(game.board, lambda s: s.town)
    place(game, town.id)
    set_hand(game, [])
    p = player(game)
    seat = game.s.current
    act(game, "end_turn")
    assert p.gold == 3 and game.s.contracts == [] and game.s.claimed == {"courier_run": seat}


def test_conditions_judged_at_end_of_play() -> None:
    """Card effects resolve regardless of play order: a condition ("if you have a mystic fruit")
    counts a fruit picked up later in the turn."""
    game = new_game()
    forager = CONTENT.cards["fruit_forager"]
    set_hand(game, ["fruit_forager"])
    act(game, "play", "fruit_forager")
    assert game.s.pool.skill == 1  # not yet: no fruit
    orchard = space_where(game.board, lambda s: s.mystic_fruit)
    place(game, orchard.id)
    player(game).may_take = True
    refresh(game)
    act(game, "take", "mystic_fruit")
    assert game.s.pool.skill == 1 + forager.play[1].then[0].n


def test_bank_minor_secrets_face_down() -> None:
    """Bank: minor secrets face down; a reward space takes the top one from the Bank and it
    resolves (Loose Coins: +2 gold)."""
    game = new_game()
    board = game.board
    ridge = space_where(board, lambda s: [e.op for e in s.reward] == ["minor_secret"])
    i = path_where(
        board, lambda p: ridge.id in (p.a, p.b) and not p.one_way and not p.canoe and not p.monsters
    )
    path = board.paths[i]
    place(game, path.a if path.b == ridge.id else path.b)
    set_hand(game, [])
    game.s.bank_minor.append("loose_coins")
    before = len(game.s.bank_minor)
    set_pool(game, boots=3)
    act(game, "move", i, 0)
    assert len(game.s.bank_minor) == before - 1 and player(game).gold == 2


def test_bank_extra_major_secrets() -> None:
    """Bank: the extra major secrets wait face down in the Bank; a `major_secret` reward takes
    one (a Suspiciously Warm Egg is kept for its points and angers the dragon)."""
    game = new_game()
    golem = next(c for c in CONTENT.cards.values() if any(e.op == "major_secret" for e in c.defeat))
    game.s.row[0] = golem.id
    game.s.bank_major.append("warm_egg")
    before, rage = len(game.s.bank_major), game.s.rage
    set_hand(game, [])
    set_pool(game, swords=golem.cost)
    act(game, "fight", 0)
    assert len(game.s.bank_major) == before - 1
    assert player(game).kept_secrets == ["warm_egg"] and game.s.rage == rage + 1


def test_major_secret_on_a_space_is_taken() -> None:
    """Setup / reward spaces: a major secret on its space may be taken on entering it."""
    game = new_game()
    space = space_where(game.board, lambda s: s.major_secret)
    game.s.major_secrets[space.id] = ["gilded_trophy"]
    place(game, space.id)
    player(game).may_take = True
    refresh(game)
    act(game, "take", "major_secret")
    assert player(game).kept_secrets == ["gilded_trophy"] and not game.s.major_secrets[space.id]
    assert not can(game, "take", "major_secret")


def test_repeatable_contract_pays_every_time() -> None:
    """Contracts: one that is not once-only pays at the end of every turn its check holds
    (Shopping Spree: 3 cards acquired)."""
    game = new_game()
    game.s.contracts = ["shopping_spree"]
    p = player(game)
    set_hand(game, [])
    set_pool(game, skill=9)
    for _ in range(3):
        act(game, "buy_reserve", "mercenary")
    gold = p.gold
    act(game, "end_turn")
    assert p.gold == gold + 1 and game.s.contracts == ["shopping_spree"]


def test_contract_draw_joins_the_next_hand() -> None:
    """End of turn: Contracts resolve before the play area is cleared and 5 are drawn; cards a
    Contract draws (Signpost Survey: draw 2 on a Waypoint) join the next hand."""
    game = new_game()
    game.s.contracts = ["signpost_survey"]
    place(game, space_where(game.board, lambda s: bool(s.waypoint)).id)
    set_hand(game, [])
    p = player(game)
    seat = game.s.current
    p.discard = ["burgle"] * 5  # the hand set aside above, so ten cards remain to draw
    act(game, "end_turn")
    assert len(p.hand) == 5 + 2 and game.s.claimed == {"signpost_survey": seat}


def test_teleport_ignores_boots_arrows_and_canoe_not_closed_paths() -> None:
    """Teleport: to an adjacent space by any open path, ignoring Boots, monster icons, canoe and
    arrows, never by a hidden (not yet revealed) path."""
    game = new_game()
    board = game.board
    one_way = path_where(board, lambda p: p.one_way)
    canoe = path_where(board, lambda p: p.canoe)
    hidden = path_where(board, lambda p: p.hidden)
    for i, start in ((one_way, board.paths[one_way].b), (canoe, board.paths[canoe].a)):
        place(game, start)
        set_hand(game, [])
        set_pool(game, boots=0, teleports=1)
        assert can(game, "teleport", i)
    place(game, board.paths[hidden].a)
    assert not can(game, "teleport", hidden)
