"""Checklist section "A turn": one test per line, named after it."""

from __future__ import annotations

from typing import Any

import pytest

from referee.games.alien.content import AlienContent
from referee.games.alien.engine import AlienGame
from tests.alien.conftest import (
    act,
    clear_board,
    end_turn,
    legal,
    new_game,
    pass_asks,
    refresh,
    set_hand,
    strikes_of,
    to_main,
)

# --- 1. Hive phase -------------------------------------------------------------------------


def test_hive_phase_puts_top_hive_card_face_down_in_the_first_room(solo: AlienGame) -> None:
    solo.s.hive.append("duct_lurker")
    act(solo, "end_turn")
    assert solo.s.complex[0] == {"card": "duct_lurker", "up": False}
    assert solo.observe(0)["complex"][0] == {"card": None, "up": False}


def test_push_chain_moves_occupied_rooms_one_step_toward_the_airlock(solo: AlienGame) -> None:
    s = solo.s
    s.complex = [
        {"card": "clinger", "up": False},
        {"card": "stalker", "up": True},
        None,
        {"card": "ravager", "up": False},
        None,
    ]
    solo._enter_complex("duct_lurker", up=False)
    assert [r and r["card"] for r in s.complex] == ["duct_lurker", "clinger", "stalker", "ravager", None]


def test_card_pushed_off_the_airlock_enters_combat_zone_flipped_and_reveals(
    solo: AlienGame, content: AlienContent
) -> None:
    s = solo.s
    rooms: list[dict[str, Any] | None] = [{"card": "duct_lurker", "up": False} for _ in range(4)]
    s.complex = [*rooms, {"card": "stalker", "up": False}]
    s.strike_deck.append(strikes_of(content, 1))
    solo._enter_complex("ravager", up=False)
    assert s.combat == ["stalker"]  # face up in the Combat Zone
    assert s.players[0].strikes == [strikes_of(content, 1)]  # its Reveal: take 1 strike
    assert solo.observe(0)["combat"] == ["stalker"]


def test_combat_zone_holds_any_number_newest_on_the_left(solo: AlienGame) -> None:
    s = solo.s
    s.combat = ["newborn", "juvenile", "duct_lurker", "ravager", "stalker", "hull_brute"]
    s.complex = [{"card": "vent_crawler", "up": True} for _ in range(5)]
    solo._enter_complex("duct_lurker", up=True)
    assert s.combat[0] == "vent_crawler" and len(s.combat) == 7


def test_empty_hive_deck_puts_nothing_in(solo: AlienGame) -> None:
    solo.s.hive = []
    act(solo, "end_turn")
    assert solo.s.complex == [None] * 5 and solo.s.turn == 2


# --- 2. Action phase -----------------------------------------------------------------------


def test_cards_are_played_one_at_a_time_and_attack_and_recruit_pool(solo: AlienGame) -> None:
    set_hand(solo, 0, ["grunt", "grunt", "specialist", "role_rifleman"])
    steps = (("grunt", (1, 0)), ("specialist", (1, 1)), ("role_rifleman", (3, 1)), ("grunt", (4, 1)))
    for card, pool in steps:
        act(solo, "play", card)
        assert (solo.s.attack, solo.s.recruit) == pool
    assert solo.s.players[0].play == ["grunt", "specialist", "role_rifleman", "grunt"]


def test_once_this_turn_abilities_may_be_used_later_in_the_action_phase(solo: AlienGame) -> None:
    set_hand(solo, 0, ["mercado_motion_tracker", "mercado_patch_job"])
    act(solo, "play", "mercado_motion_tracker")
    act(solo, "play", "mercado_patch_job")  # another tech card, played after
    attack = solo.s.attack
    act(solo, "use_once", 0)
    assert solo.s.attack == attack + 2
    assert not legal(solo, "use_once")  # once only


def test_once_this_turn_ability_with_a_cost_needs_the_pool(solo: AlienGame) -> None:
    set_hand(solo, 0, ["role_demolitions", "specialist", "specialist"])
    act(solo, "play", "role_demolitions")
    assert not legal(solo, "use_once")
    act(solo, "play", "specialist")
    act(solo, "play", "specialist")
    act(solo, "use_once", 0)
    assert (solo.s.attack, solo.s.recruit) == (4, 0)


def test_recruit_from_hq_for_its_cost_to_discard_and_refill_hq_at_once(solo: AlienGame) -> None:
    s = solo.s
    s.hq[2] = "fenn_field_dressing"
    s.recruit = solo.card("fenn_field_dressing").cost
    nxt = s.barracks[-1]
    refresh(solo)
    act(solo, "recruit", 2)
    assert s.players[0].discard[-1] == "fenn_field_dressing" and s.recruit == 0
    assert s.hq[2] == nxt and len(s.barracks) == 50


def test_recruit_a_sergeant_for_3(solo: AlienGame) -> None:
    s = solo.s
    s.recruit = 2
    refresh(solo)
    assert not legal(solo, "recruit_sergeant")
    s.recruit = 3
    top = s.sergeants[-1]
    refresh(solo)
    act(solo, "recruit_sergeant")
    assert s.players[0].discard[-1] == top and len(s.sergeants) == 9 and s.recruit == 0


def test_mobilize_triggers_on_gaining(solo: AlienGame) -> None:
    s = solo.s
    s.hq[0] = "mercado_rerouted_power"
    s.recruit = solo.card("mercado_rerouted_power").cost
    refresh(solo)
    act(solo, "recruit", 0)
    assert s.attack == 2  # Mobilize: +2 Attack, usable this turn


def test_scan_spends_the_rooms_scan_cost_1_1_2_2_3_and_flips_the_card(solo: AlienGame) -> None:
    s = solo.s
    for room, cost in enumerate((1, 1, 2, 2, 3)):
        clear_board(solo)
        s.complex[room] = {"card": "duct_lurker", "up": False}
        s.attack = cost - 1
        refresh(solo)
        assert not legal(solo, "scan")
        s.attack = cost
        refresh(solo)
        act(solo, "scan", room)
        assert s.complex[room] == {"card": "duct_lurker", "up": True} and s.attack == 0


def test_fight_a_face_up_enemy_in_complex_or_combat_zone_death_abilities_trigger(
    solo: AlienGame, content: AlienContent
) -> None:
    s = solo.s
    brute, spitter = content.hive_cards["hull_brute"].attack, content.hive_cards["acid_spitter"].attack
    s.complex[1] = {"card": "hull_brute", "up": True}
    s.complex[3] = {"card": "duct_lurker", "up": False}
    s.combat = ["acid_spitter"]
    s.attack = brute + spitter
    hand = len(s.players[0].hand)
    refresh(solo)
    fights = {a.args for a in legal(solo, "fight")}
    assert ("room", 3) not in fights  # face down: scan it first
    act(solo, "fight", "room", 1)
    assert s.attack == spitter and len(s.players[0].hand) == hand + 1  # Death: draw 1
    act(solo, "fight", "combat", 0)
    assert s.attack == 0 and s.recruit == 1  # Death: +1 Recruit
    assert s.dead_enemies == ["hull_brute", "acid_spitter"] and s.combat == [] and s.complex[1] is None


def test_heal_removes_the_most_recent_strike_cards(solo: AlienGame, content: AlienContent) -> None:
    s = solo.s
    s.players[0].strikes = [strikes_of(content, 2), strikes_of(content, 1)]
    set_hand(solo, 0, ["sgt_banerjee"])  # heal 1, draw 1
    act(solo, "play", "sgt_banerjee")
    assert s.players[0].strikes == [strikes_of(content, 2)]


def test_revealed_event_triggers_the_current_objectives_event_then_is_discarded(
    solo: AlienGame, content: AlienContent
) -> None:
    s = solo.s
    s.complex[0] = {"card": "lights_fail", "up": False}
    s.attack = 1
    refresh(solo)
    act(solo, "scan", 0)
    # Objective 1's Event ability: hatch 1 (into the first room, which the event has left).
    assert s.complex[0] == {"card": content.hatchery[0], "up": True}
    assert s.hive_discard == ["lights_fail"]


@pytest.mark.parametrize("objective", [1, 2])
def test_revealed_event_triggers_the_current_objectives_event_for_objectives_2_and_3(
    objective: int, content: AlienContent
) -> None:
    game = clear_board(to_main(new_game(2, seed=3)))
    s = game.s
    s.objective = objective
    s.met = [k < objective for k in range(len(s.met))]
    s.complex[0] = {"card": "motion_spike", "up": False}
    s.attack = 1
    s.strike_deck.extend(strikes_of(content, 1) for _ in range(4))
    hatchery = len(s.hatchery)
    refresh(game)
    act(game, "scan", 0)
    event = content.objectives[objective].event
    hatched = sum(e.n for e in event if e.op == "hatch")
    each = sum(e.n for e in event if e.op == "strike_each")
    assert (objective, hatched, each) in ((1, 0, 1), (2, 1, 2))  # Purge the Ventilation; Burn the Nest
    assert len(s.hatchery) == hatchery - hatched
    assert s.complex[0] == ({"card": content.hatchery[0], "up": True} if hatched else None)
    assert [len(p.strikes) for p in s.players] == [each, each]  # not Objective 1's Event (hatch 1)
    assert s.hive_discard == ["motion_spike"]


def test_revealed_hazard_triggers_the_next_unused_location_hazard_then_is_discarded(
    solo: AlienGame, content: AlienContent
) -> None:
    s = solo.s
    s.complex[0] = {"card": "coolant_leak", "up": False}
    s.complex[1] = {"card": "hull_breach", "up": False}
    s.strike_deck.append(strikes_of(content, 1))
    s.attack = 2
    refresh(solo)
    act(solo, "scan", 0)  # Hazard ability 1: the active player takes 1 strike
    assert s.hazards_used == 1 and len(s.players[0].strikes) == 1
    act(solo, "scan", 1)  # Hazard ability 2: each player discards a card
    assert s.hazards_used == 2 and solo.decision().kind == "discard"  # type: ignore[union-attr]
    assert s.hive_discard == ["coolant_leak", "hull_breach"]


def test_revealed_character_follows_its_reveal_ability(solo: AlienGame) -> None:
    s = solo.s
    s.complex[0] = {"card": "stowaway_mechanic", "up": False}
    s.attack = 1
    hand = len(s.players[0].hand)
    refresh(solo)
    act(solo, "scan", 0)
    assert len(s.players[0].hand) == hand + 2 and s.complex[0] is None


def test_revealed_facehugger_is_placed_in_front_of_the_current_player(solo: AlienGame) -> None:
    s = solo.s
    s.complex[1] = {"card": "clinger", "up": False}
    s.attack = 1
    refresh(solo)
    act(solo, "scan", 1)
    assert s.facehuggers == [{"card": "clinger", "seat": 0, "expires": s.turn + 1}]
    assert s.complex[1] is None


def _facehugger_on_seat_0() -> AlienGame:
    game = clear_board(to_main(new_game(2, seed=4)))
    s = game.s
    s.complex[0] = {"card": "clinger", "up": False}
    s.attack = 1
    refresh(game)
    act(game, "scan", 0)
    return game


def test_facehugger_is_killable_this_turn_and_the_next_players_turn() -> None:
    game = _facehugger_on_seat_0()
    s = game.s
    s.attack = 2
    refresh(game)
    assert legal(game, "fight")  # this turn
    s.attack = 0
    act(game, "end_turn")
    to_main(game)
    assert s.current == 1 and s.facehuggers
    s.attack = 2
    refresh(game)
    act(game, "fight", "facehugger", 0)  # the next player's turn
    assert s.facehuggers == [] and "clinger" in s.dead_enemies


def test_unkilled_facehugger_gives_its_host_a_chestburster_in_the_discard_pile() -> None:
    game = _facehugger_on_seat_0()
    s = game.s
    s.attack = 0
    act(game, "end_turn")
    to_main(game)
    assert "burster" not in s.players[0].discard  # still killable on seat 1's turn
    clear_board(game)
    s.facehuggers = [{"card": "clinger", "seat": 0, "expires": s.turn}]
    end_turn(game)
    assert "burster" in s.players[0].discard and s.facehuggers == []


def test_coordinate_is_a_decision_of_another_seat_during_the_active_players_action_phase() -> None:
    game = clear_board(to_main(new_game(2, seed=4)))
    s = game.s
    end_turn(game)  # seat 1's turn: seat 0 is asked (Hive phase, then Action phase)
    pass_asks(game, "hive_coordinate")
    d = game.decision()
    assert d is not None and d.kind == "coordinate" and d.seat == 0 and s.current == 1
    assert s.phase == "coordinate"
    game.apply(next(a for a in d.actions if a.kind == "pass"))
    clear_board(game)
    end_turn(game)  # seat 1's cleanup drew a new hand: give it a Sergeant to coordinate
    pass_asks(game, "hive_coordinate")
    assert game.decision().seat == 1  # type: ignore[union-attr]
    # seat 0's turn again: now seat 1 (not the active player) is asked
    set_hand(game, 1, ["sgt_cole", "grunt", "grunt", "specialist", "specialist", "specialist"])
    d = game.decision()
    assert d is not None and d.kind == "coordinate" and d.seat == 1 and s.current == 0
    act(game, "coordinate", "sgt_cole")
    assert s.attack == 2  # the active player gains the card's effects
    assert "sgt_cole" in s.players[1].set_aside and len(s.players[1].hand) == 6  # drew a replacement
    d = game.decision()
    assert d is not None and d.kind == "coordinate" and d.seat == 1  # may coordinate more
    act(game, "pass")
    assert game.decision().kind == "turn"  # type: ignore[union-attr]
    clear_board(game)
    end_turn(game)
    assert "sgt_cole" in s.players[1].discard and not s.players[1].set_aside


def _two_player_main(seat1_hand: list[str]) -> AlienGame:
    """Seat 0's first main decision of a 2-player game (the start-of-phase ask passed), with
    an empty board and seat 1 holding `seat1_hand`."""
    game = clear_board(to_main(new_game(2, seed=4)))
    return set_hand(game, 1, seat1_hand)


def test_coordinate_during_another_players_action_phase_after_the_active_player_played_cards() -> None:
    game = _two_player_main(["sgt_cole", "grunt", "grunt", "specialist", "specialist", "specialist"])
    s = game.s
    assert s.current == 0 and not legal(game, "ask")  # the team was just asked
    set_hand(game, 0, ["grunt", "grunt", "specialist"])
    act(game, "play", "grunt")
    act(game, "ask")  # after a play the active player may ask the team again
    d = game.decision()
    assert d is not None and d.kind == "coordinate" and d.seat == 1 and s.phase == "coordinate"
    act(game, "coordinate", "sgt_cole")
    assert s.attack == 1 + 2 and "sgt_cole" in s.players[1].set_aside and len(s.players[1].hand) == 6
    act(game, "pass")
    d = game.decision()
    assert d is not None and d.kind == "turn" and d.seat == 0 and s.phase == "action"
    assert not legal(game, "ask")  # not again without another action
    act(game, "play", "grunt")
    assert legal(game, "ask")
    end_turn(game)
    assert "sgt_cole" in s.players[1].discard and not s.players[1].set_aside


def test_coordinate_during_another_players_action_phase_after_a_scan_reveals_an_enemy(
    content: AlienContent,
) -> None:
    game = _two_player_main(["sgt_cole", "grunt", "grunt", "specialist", "specialist", "specialist"])
    s = game.s
    brute = content.hive_cards["hull_brute"].attack
    scan = content.rules["scan_costs"][4]
    s.complex[4] = {"card": "hull_brute", "up": False}
    s.attack = scan + brute - 2  # enough to scan the Airlock, 2 short of killing what is there
    refresh(game)
    act(game, "scan", 4)
    assert s.complex[4] == {"card": "hull_brute", "up": True} and not legal(game, "fight")
    act(game, "ask")
    act(game, "coordinate", "sgt_cole")  # +2 Attack: now the Hull Brute can be killed
    act(game, "pass")
    act(game, "fight", "room", 4)
    assert "hull_brute" in s.dead_enemies and s.attack == 0


def test_coordinate_ask_goes_round_every_other_living_player_even_without_coordinate_cards() -> None:
    game = clear_board(to_main(new_game(4, seed=4)))
    s = game.s
    set_hand(game, 1, ["grunt"] * 6)  # no Coordinate card: asked anyway (the question leaks nothing)
    set_hand(game, 3, ["sgt_cole", "grunt", "grunt", "grunt", "grunt", "grunt"])
    s.players[2].status = "dead"
    set_hand(game, 0, ["grunt"])
    act(game, "play", "grunt")
    act(game, "ask")
    d = game.decision()
    assert d is not None and d.kind == "coordinate" and d.seat == 1
    assert [a.kind for a in d.actions] == ["pass"]
    act(game, "pass")
    d = game.decision()  # seat 2 is dead: skipped
    assert d is not None and d.kind == "coordinate" and d.seat == 3
    act(game, "pass")
    assert game.decision().kind == "turn"  # type: ignore[union-attr]


def test_coordinate_is_never_asked_in_a_solo_game(solo: AlienGame) -> None:
    set_hand(solo, 0, ["grunt", "grunt"])
    act(solo, "play", "grunt")
    assert not legal(solo, "ask")


def test_coordinated_sergeants_combo_counts_the_active_players_play_area() -> None:
    game = _two_player_main(["sgt_holm", "sgt_reyes", "grunt", "specialist", "specialist", "specialist"])
    s = game.s
    set_hand(game, 0, ["role_rifleman", "role_quartermaster", "grunt"])
    act(game, "play", "grunt")  # no class: no combo yet
    act(game, "ask")
    act(game, "coordinate", "sgt_holm")
    assert s.attack == 1 + 1  # Holm's +1 Attack only: no assault card played yet
    act(game, "pass")
    act(game, "play", "role_rifleman")  # an assault card in the active player's play area
    act(game, "play", "role_quartermaster")  # and a command card
    attack, recruit = s.attack, s.recruit
    act(game, "ask")
    set_hand(game, 1, ["sgt_holm", "sgt_reyes", "grunt", "specialist", "specialist", "specialist"])
    act(game, "coordinate", "sgt_holm")
    assert s.attack == attack + 1 + 2  # assault combo: +2 Attack
    act(game, "coordinate", "sgt_reyes")
    assert s.attack == attack + 3 + 2 and s.recruit == recruit + 1  # command combo: +2 Attack
    # the coordinated cards are set aside by their owner, not played by the active player
    assert s.players[0].play == ["grunt", "role_rifleman", "role_quartermaster"]


def test_coordinate_asks_are_bounded_by_the_active_players_actions_and_games_end() -> None:
    """Random play (which asks whenever it may): every Action phase has at most one round of
    Coordinate questions more than the active player's other main actions, never two asks in a
    row, and every game ends."""
    import random

    for seed in range(12):
        players = 2 + seed % 3
        game = new_game(players, seed=seed)
        rng = random.Random(seed)
        asks = actions = 0
        last = ""
        turn = game.s.turn
        steps = 0
        while not game.is_over():
            d = game.decision()
            assert d is not None
            if game.s.turn != turn:
                turn, asks, actions, last = game.s.turn, 0, 0, ""
            a = d.actions[rng.randrange(len(d.actions))]
            if d.kind == "turn":
                if a.kind == "ask":
                    assert last != "ask"
                    asks += 1
                elif a.kind != "end_turn":
                    actions += 1
                assert asks <= actions + 1  # the automatic ask is not counted here
                last = a.kind
            game.apply(a)
            steps += 1
            assert steps < 20000
        assert game.s.over


def test_vigilant_cards_stay_in_play_with_an_ongoing_effect_or_discard_for_a_benefit(solo: AlienGame) -> None:
    s = solo.s
    set_hand(solo, 0, ["role_sentry"])
    act(solo, "play", "role_sentry")
    assert s.attack == 1
    act(solo, "end_turn")
    assert s.players[0].vigilant == ["role_sentry"] and "role_sentry" not in s.players[0].discard
    clear_board(solo)
    assert s.attack == 1  # ongoing: +1 Attack at the start of the turn
    act(solo, "release", 0)
    assert s.attack == 3 and s.players[0].vigilant == [] and "role_sentry" in s.players[0].discard


def test_sacrifice_kills_the_played_card_for_its_extra_effect(solo: AlienGame) -> None:
    s = solo.s
    set_hand(solo, 0, ["kiri_last_stand"])
    act(solo, "play", "kiri_last_stand")
    assert s.attack == 3
    act(solo, "sacrifice", 0)
    assert s.attack == 8 and s.dead_characters == ["kiri_last_stand"] and s.players[0].play == []


def test_class_combo_needs_another_card_of_that_class_played_this_turn(solo: AlienGame) -> None:
    s = solo.s
    set_hand(solo, 0, ["kiri_covering_fire", "kiri_covering_fire", "grunt"])
    act(solo, "play", "kiri_covering_fire")
    assert s.attack == 2  # no other assault card yet
    act(solo, "play", "grunt")  # a classless starter does not count
    act(solo, "play", "kiri_covering_fire")
    assert s.attack == 2 + 1 + 3


def test_crew_combo_needs_another_card_of_that_crew_played_this_turn(solo: AlienGame) -> None:
    s = solo.s
    set_hand(solo, 0, ["halloway_steady_orders", "mercado_patch_job"])
    act(solo, "play", "mercado_patch_job")  # Kestrel crew
    act(solo, "play", "halloway_steady_orders")
    assert s.recruit == 2  # +1, and +1 for the other Kestrel card


# --- 3. Strike phase -----------------------------------------------------------------------


def test_strike_phase_enemies_strike_right_to_left_one_strike_card_per_strike(
    solo: AlienGame, content: AlienContent
) -> None:
    s = solo.s
    s.players[0].health = 6
    s.combat = ["hull_brute", "vent_crawler"]  # vent_crawler (1 strike) has stood longest
    s.strike_deck += [strikes_of(content, 0)] * 3
    s.hive = []
    refresh(solo)
    act(solo, "end_turn")
    assert [x["enemy"] for x in s.strike_log] == ["vent_crawler", "hull_brute", "hull_brute"]
    assert s.strike_discard[-3:] == [strikes_of(content, 0)] * 3  # misses are not kept


def test_strike_damage_accumulates_by_the_avatar(solo: AlienGame, content: AlienContent) -> None:
    s = solo.s
    s.players[0].health = 6
    s.combat = ["hull_brute", "vent_crawler"]
    s.strike_deck += [strikes_of(content, 1)] * 3
    s.hive = []
    refresh(solo)
    act(solo, "end_turn")
    assert len(s.players[0].strikes) == 3 and solo.damage(0) == 3
    assert solo.observe(0)["players"][0]["damage"] == 3


def test_total_strike_damage_at_or_above_health_kills_the_player(content: AlienContent) -> None:
    game = clear_board(to_main(new_game(2, seed=1)))
    s = game.s
    s.players[0].health = 4
    s.players[0].strikes = [strikes_of(content, 1)] * 2
    s.combat = ["duct_lurker"]
    s.strike_deck.append(strikes_of(content, 2))
    refresh(game)
    end_turn(game)
    assert s.players[0].status == "dead" and s.players[0].strikes == []
    assert s.current == 1 and not s.over  # the team plays on


def test_a_miss_does_no_damage_and_is_not_kept(solo: AlienGame, content: AlienContent) -> None:
    s = solo.s
    s.combat = ["vent_crawler"]
    s.strike_deck.append(strikes_of(content, 0))
    s.hive = []
    act(solo, "end_turn")
    assert s.players[0].strikes == [] and s.strike_discard == [strikes_of(content, 0)]


# --- 4. Cleanup ----------------------------------------------------------------------------


def test_cleanup_discards_played_cards_and_hand_then_draws_6(solo: AlienGame) -> None:
    p = solo.s.players[0]
    p.deck = ["grunt"] * 7
    p.discard = []
    set_hand(solo, 0, ["specialist", "specialist", "role_rifleman"])
    act(solo, "play", "role_rifleman")
    act(solo, "end_turn")
    assert sorted(p.discard) == ["role_rifleman", "specialist", "specialist"]
    assert p.hand == ["grunt"] * 6 and p.deck == ["grunt"]


def test_discard_is_shuffled_into_a_new_deck_only_when_the_deck_is_empty(solo: AlienGame) -> None:
    p = solo.s.players[0]
    p.deck = ["grunt"] * 2
    p.discard = ["specialist"] * 8
    set_hand(solo, 0, [])
    act(solo, "end_turn")
    # the two deck cards first, then the discard (which now includes nothing from this turn
    # but the 8 specialists) becomes the deck for the remaining 4
    assert sorted(p.hand) == ["grunt", "grunt"] + ["specialist"] * 4
    assert p.deck == ["specialist"] * 4 and p.discard == []


# --- group choices and turn order around deaths --------------------------------------------


def test_each_player_discards_is_a_sequence_of_per_seat_decisions(content: AlienContent) -> None:
    game = clear_board(to_main(new_game(3, seed=2)))
    game._resolve(0, content.location.hazards[1])  # each player discards a card
    seats = []
    while (d := game.decision()) is not None and d.kind == "discard":
        seats.append(d.seat)
        game.apply(d.actions[0])
    assert seats == [0, 1, 2]
    assert all(len(p.hand) == 5 for p in game.s.players)


def test_dead_players_are_skipped_in_turn_order() -> None:
    game = clear_board(to_main(new_game(3, seed=2)))
    game._die(1)
    act(game, "end_turn")
    to_main(game)
    assert game.s.current == 2
