"""Checklist section "Setup": one test per line, named after it."""

from __future__ import annotations

from collections import Counter

import pytest

from referee.core.game import InvalidConfig
from referee.games.alien.content import AlienContent
from referee.games.alien.engine import AlienGame
from tests.alien.conftest import act, clear_board, new_game, to_main


def test_sergeant_stack_and_strike_deck_are_shuffled_per_seed(content: AlienContent) -> None:
    a, b = new_game(2, seed=1).s, new_game(2, seed=2).s
    assert Counter(a.sergeants) == Counter(content.sergeants) and a.sergeants != b.sergeants
    assert Counter(a.strike_deck) == Counter(content.strike_deck) and a.strike_deck != b.strike_deck


def test_hatchery_location_and_objectives_1_to_3_are_laid_out(content: AlienContent) -> None:
    game = new_game(3)
    obs = game.observe(0)
    assert obs["location"] == content.location.id and obs["hazards_used"] == 0
    assert obs["objective"] == 0 and obs["objective_id"] == content.objectives[0].id
    assert obs["met"] == [False, False, False]


def test_hive_deck_built_from_mini_decks_with_random_drones(content: AlienContent) -> None:
    drawn = {
        tuple(sorted(c for c in new_game(4, seed).s.hive if content.hive_cards[c].drone)) for seed in range(6)
    }
    assert len(drawn) > 1  # drones are chosen at random


def test_barracks_shuffled_and_five_dealt_to_hq() -> None:
    s = new_game(2, seed=5).s
    assert len(s.hq) == 5 and all(s.hq)
    assert len(s.barracks) == 51
    assert new_game(2, seed=6).s.barracks != s.barracks


def test_each_player_shuffles_13_cards_and_draws_6() -> None:
    for players in (1, 4):
        game = new_game(players, seed=2)
        for p in game.s.players:
            assert len(p.hand) == 6 and len(p.deck) == 7
    orders = {tuple(new_game(1, seed).s.players[0].deck) for seed in range(5)}
    assert len(orders) > 1


def test_first_player_is_seat_0_and_play_proceeds_clockwise() -> None:
    game = to_main(new_game(3))
    seats = []
    for _ in range(4):
        clear_board(game)
        seats.append(game.s.current)
        act(game, "end_turn")
        to_main(game)
    assert seats == [0, 1, 2, 0]


def test_config_roles_are_chosen_per_player_and_validated(content: AlienContent) -> None:
    cfg = {"players": 2, "roles": ["sentry", "pilot"]}
    game = AlienGame.new_game(cfg, 1)
    assert [p.role for p in game.s.players] == ["sentry", "pilot"]
    assert [p.health for p in game.s.players] == [
        content.roles["sentry"].health,
        content.roles["pilot"].health,
    ]
    for bad in (
        {"players": 6},
        {"players": 0},
        {"players": 2, "roles": ["sentry", "sentry"]},
        {"players": 1, "roles": ["nobody"]},
        {"players": 1, "colour": "red"},
    ):
        with pytest.raises(InvalidConfig):
            AlienGame.new_game(bad, 1)
