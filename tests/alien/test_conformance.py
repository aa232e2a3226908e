"""The engine conformance suite (referee/core/conformance.py) for Alien, 1 to 5 players.

Every check family runs at every player count; the termination and hidden-information check
plays 45 random games per player count (225 in all), sampling steps of every game and
re-dealing everything each seat may not know.
"""

from __future__ import annotations

from typing import Any

import pytest

from referee.core import conformance as cf
from referee.games import game_class
from referee.games.alien.engine import AlienGame

PLAYERS = (1, 2, 3, 4, 5)


def _config(players: int) -> dict[str, Any]:
    return AlienGame.default_config(players)


def test_registered_under_its_name() -> None:
    assert game_class("alien") is AlienGame


@pytest.mark.parametrize("players", PLAYERS)
def test_same_seed_and_actions_give_same_digests(players: int) -> None:
    for seed in range(4):
        cf.check_determinism(AlienGame, _config(players), seed, policy_seed=seed + 100)


@pytest.mark.parametrize("players", PLAYERS)
def test_serialised_state_resumes_identically(players: int) -> None:
    for seed in range(4):
        cf.check_serialisation(AlienGame, _config(players), seed, policy_seed=seed + 7)


@pytest.mark.parametrize("players", PLAYERS)
def test_copy_is_independent_of_original(players: int) -> None:
    for seed in range(4):
        cf.check_copy_independence(AlienGame, _config(players), seed, policy_seed=seed)


@pytest.mark.parametrize("players", PLAYERS)
def test_every_legal_action_applies(players: int) -> None:
    tried = 0
    for seed in range(8):
        tried += cf.check_legal_actions_apply(AlienGame, _config(players), seed, seed + 1)
    assert tried > 400


@pytest.mark.parametrize("players", PLAYERS)
def test_illegal_actions_are_rejected_and_change_nothing(players: int) -> None:
    for seed in range(3):
        cf.check_illegal_actions_rejected(AlienGame, _config(players), seed, seed + 3)


@pytest.mark.parametrize("players", PLAYERS)
def test_random_games_end_and_leak_nothing(players: int) -> None:
    """45 games per player count: termination within the step budget, and at 6 sampled steps
    per game every seat's observation survives a re-deal of its hidden information."""
    compared = 0
    for seed in range(45):
        compared += cf.check_no_hidden_leak(
            AlienGame, _config(players), 1000 + seed, policy_seed=seed, samples=6, variants=1
        )
    assert compared >= 45 * 6 * players * 0.9


def test_different_seeds_give_different_games() -> None:
    assert AlienGame.new_game(_config(2), 1).digest() != AlienGame.new_game(_config(2), 2).digest()


def test_coordinate_decisions_belong_to_other_seats_in_random_games() -> None:
    """Random games do reach Coordinate decisions, asked of a seat that is not the active one."""
    seen = 0
    for seed in range(5):
        game, stats = cf.play_random(AlienGame, _config(3), seed, seed)
        del game
        replay = AlienGame.new_game(_config(3), seed)
        for action in stats.actions:
            d = replay.decision()
            assert d is not None
            if d.kind == "coordinate":
                assert d.seat != replay.s.current
                seen += 1
            replay.apply(action)
    assert seen > 0
