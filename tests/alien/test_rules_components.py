"""Checklist section "Components": one test per line, named after it."""

from __future__ import annotations

from collections import Counter

from referee.games.alien.content import AlienContent
from tests.alien.conftest import act, clear_board, new_game, refresh, set_hand, to_main


def test_per_player_deck_is_7_specialists_5_grunts_and_the_role_card(content: AlienContent) -> None:
    for players in (1, 3, 5):
        game = new_game(players)
        for p in game.s.players:
            cards = Counter(p.deck + p.hand + p.discard + p.play)
            assert sum(cards.values()) == 13
            assert cards["specialist"] == 7 and cards["grunt"] == 5
            assert cards[content.roles[p.role].card] == 1
            assert p.health == content.roles[p.role].health


def test_ten_roles_with_health_4_to_6_and_distinct_role_cards(content: AlienContent) -> None:
    assert len(content.roles) == 10
    assert all(4 <= r.health <= 6 for r in content.roles.values())
    texts = {
        (
            content.cards[r.card].play,
            content.cards[r.card].once,
            content.cards[r.card].vigilant,
            content.cards[r.card].coordinate,
        )
        for r in content.roles.values()
    }
    assert len(texts) == 10


def test_specialist_is_1_recruit_and_grunt_is_1_attack() -> None:
    game = clear_board(to_main(new_game(1)))
    set_hand(game, 0, ["specialist", "grunt"])
    act(game, "play", "specialist")
    act(game, "play", "grunt")
    assert (game.s.recruit, game.s.attack) == (1, 1)


def test_ten_sergeants_recruit_for_3_all_coordinate_two_of_each_class(content: AlienContent) -> None:
    sergeants = [content.cards[c] for c in content.sergeants]
    assert len(sergeants) == 10
    assert all(c.cost == 3 and c.coordinate for c in sergeants)
    assert Counter(c.cls for c in sergeants) == {k: 2 for k in content.rules["classes"]}


def test_forty_strikes_mostly_1_some_2_a_few_misses_some_with_effects(content: AlienContent) -> None:
    deck = [content.strikes[s] for s in content.strike_deck]
    assert len(deck) == 40
    damage = Counter(s.damage for s in deck)
    assert damage[1] > 20 and 0 < damage[2] < damage[1] and 0 < damage[0] < damage[1]
    assert any(s.effects for s in deck)


def test_fourteen_hatchery_cards_face_up_not_shuffled(content: AlienContent) -> None:
    assert len(content.hatchery) == 14
    for seed in (1, 2):
        assert new_game(2, seed).s.hatchery == list(content.hatchery)
    obs = new_game(1).observe(0)
    assert obs["hatchery_top"] == content.hatchery[0] and obs["hatchery_size"] == 14


def test_hatch_moves_top_hatchery_card_into_first_room_pushing(content: AlienContent) -> None:
    game = clear_board(to_main(new_game(1)))
    s = game.s
    s.complex[0] = {"card": "duct_lurker", "up": False}
    top = s.hatchery[0]
    game._resolve(0, content.location.hazards[2])  # "Vent Breach: hatch 2"
    second = content.hatchery[1]
    assert s.complex[0] == {"card": second, "up": True}
    assert s.complex[1] == {"card": top, "up": True}
    assert s.complex[2] == {"card": "duct_lurker", "up": False}
    assert s.hatchery == list(content.hatchery[2:])


def test_location_has_numbered_hazard_abilities(content: AlienContent) -> None:
    assert len(content.location.hazards) >= 2
    hazards_in_hive = sum(
        1 for o in content.objectives for c in o.deck if content.hive_cards[c].kind == "hazard"
    )
    assert hazards_in_hive == len(content.location.hazards)


def test_three_objectives_with_events_conditions_and_mini_decks_9_11_13(content: AlienContent) -> None:
    assert [len(o.deck) for o in content.objectives] == [9, 11, 13]
    assert all(o.event for o in content.objectives)
    assert [o.condition for o in content.objectives] == ["spend", "kill", "kill"]


def test_hive_is_the_mini_decks_each_with_one_drone_per_player_objective_1_on_top(
    content: AlienContent,
) -> None:
    for players in (1, 2, 5):
        game = new_game(players, seed=players)
        s = game.s
        # new_game already ran turn 1's Hive phase: that card came from the top.
        placed = [r["card"] for r in s.complex if r is not None]
        hive = s.hive + placed  # top is the end of the list
        sizes = [len(o.deck) + players for o in content.objectives]
        assert len(hive) == sum(sizes)
        bottom_up = [hive[: sizes[2]], hive[sizes[2] : sizes[2] + sizes[1]], hive[sizes[2] + sizes[1] :]]
        for k, part in zip((2, 1, 0), bottom_up, strict=True):
            counts = Counter(part)
            drones = [c for c in part if content.hive_cards[c].drone]
            assert len(drones) == players
            for c in drones:
                counts[c] -= 1
            assert +counts == Counter(content.objectives[k].deck)


def test_objective_3_holds_the_final_enemy(content: AlienContent) -> None:
    final = [c for c in content.hive_cards.values() if c.final]
    assert len(final) == 1 and final[0].id in content.objectives[2].deck
    assert content.objectives[2].card == final[0].id


def test_objective_condition_is_data_and_completing_flips_to_the_next(content: AlienContent) -> None:
    game = clear_board(to_main(new_game(1)))
    s = game.s
    trigger = content.objectives[0].card
    s.complex[2] = {"card": trigger, "up": True}
    s.attack = content.objectives[0].attack
    refresh(game)
    act(game, "complete", 0)
    assert s.objective == 1 and s.met[0] and s.attack == 0
    assert trigger in s.hive_discard and s.complex[2] is None
    assert game.observe(0)["objective_id"] == content.objectives[1].id


def test_at_least_4_crew_characters_of_14_cards_form_a_56_card_barracks(content: AlienContent) -> None:
    assert len(content.characters) >= 4
    assert all(len(cards) == 14 for cards in content.characters.values())
    game = new_game(2)
    assert len(game.s.barracks) + len([c for c in game.s.hq if c]) == 56
    crews = {content.cards[c].crew for cards in content.characters.values() for c in cards}
    classes = {content.cards[c].cls for cards in content.characters.values() for c in cards}
    assert len(crews) >= 2 and classes == set(content.rules["classes"])


def test_characters_have_coordinate_vigilant_sacrifice_mobilize_once_and_combos(
    content: AlienContent,
) -> None:
    cards = {content.cards[c] for cards in content.characters.values() for c in cards}
    assert any(c.coordinate for c in cards) and any(c.vigilant for c in cards)
    assert any(c.sacrifice for c in cards) and any(c.mobilize for c in cards) and any(c.once for c in cards)
    conds = {e.cond for c in cards for e in c.play + c.once if e.op == "if"}
    assert {"played_class", "played_crew"} <= conds


def test_hive_cards_are_enemies_drones_facehuggers_events_hazards_characters_chestbursters(
    content: AlienContent,
) -> None:
    kinds = Counter(c.kind for c in content.hive_cards.values())
    for kind in ("enemy", "facehugger", "event", "hazard", "ally", "chestburster"):
        assert kinds[kind] > 0, kind
    enemies = [c for c in content.hive_cards.values() if c.kind == "enemy"]
    assert all(c.attack > 0 and c.strikes > 0 for c in enemies)
    assert any(c.reveal for c in enemies) and any(c.death for c in enemies) and any(c.drone for c in enemies)
