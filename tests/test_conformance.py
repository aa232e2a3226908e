"""The engine conformance suite, run for every registered game.

Clank!: 200+ random games per check family across 2, 3 and 4 players (seeds spread so each
player count gets its share); the hidden-information check samples steps of every game.
"""

from __future__ import annotations

import pytest

from referee.core import conformance as cf
from referee.games import GAMES, game_class

# (game, player counts). Games register here as they land.
GAME_PLAYERS = {"clank": (2, 3, 4)}

GAMES_PER_COUNT = 200

CASES = [(name, n) for name, counts in GAME_PLAYERS.items() for n in counts if name in GAMES]


def _config(name: str, players: int) -> dict:
    return game_class(name).default_config(players)


@pytest.mark.parametrize(("name", "players"), CASES)
def test_same_seed_and_actions_give_same_digests(name: str, players: int) -> None:
    for seed in range(4):
        cf.check_determinism(game_class(name), _config(name, players), seed, policy_seed=seed + 100)


@pytest.mark.parametrize(("name", "players"), CASES)
def test_serialised_state_resumes_identically(name: str, players: int) -> None:
    for seed in range(3):
        cf.check_serialisation(game_class(name), _config(name, players), seed, policy_seed=seed + 7)


@pytest.mark.parametrize(("name", "players"), CASES)
def test_copy_is_independent_of_original(name: str, players: int) -> None:
    for seed in range(3):
        cf.check_copy_independence(game_class(name), _config(name, players), seed, policy_seed=seed)


@pytest.mark.parametrize(("name", "players"), CASES)
def test_every_legal_action_applies(name: str, players: int) -> None:
    tried = 0
    for seed in range(3):
        tried += cf.check_legal_actions_apply(game_class(name), _config(name, players), seed, seed + 1)
    assert tried > 1000


@pytest.mark.parametrize(("name", "players"), CASES)
def test_illegal_actions_are_rejected_and_change_nothing(name: str, players: int) -> None:
    for seed in range(2):
        cf.check_illegal_actions_rejected(game_class(name), _config(name, players), seed, seed + 3)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "players"), CASES)
def test_random_games_end_and_leak_nothing(name: str, players: int) -> None:
    """Termination and the hidden-information check over 200 games per player count, eight
    sampled steps per game, every seat, two re-deals of everything that seat may not know."""
    compared = 0
    for seed in range(GAMES_PER_COUNT):
        compared += cf.check_no_hidden_leak(
            game_class(name), _config(name, players), 1000 + seed, policy_seed=seed, samples=8, variants=2
        )
    assert compared == GAMES_PER_COUNT * 8 * 2 * players


def test_different_seeds_give_different_games() -> None:
    a = game_class("clank").new_game(_config("clank", 2), 1)
    b = game_class("clank").new_game(_config("clank", 2), 2)
    assert a.digest() != b.digest()


def test_leak_check_also_reads_the_prompt_and_legal_actions() -> None:
    """A decision whose prompt names another seat's hand is a leak even if observe() is clean."""
    from referee.core.game import Decision
    from referee.games.clank.engine import ClankGame

    class PromptLeakingClank(ClankGame):
        def _make_decision(self) -> Decision:
            d = super()._make_decision()
            other = self.s.players[(d.seat + 1) % self.s.players_n]
            return Decision(d.id, d.seat, d.kind, f"{d.prompt} (they hold {sorted(other.hand)})", d.actions)

    with pytest.raises(cf.ConformanceError, match="prompt and legal actions"):
        cf.check_no_hidden_leak(PromptLeakingClank, _config("clank", 2), 5, policy_seed=5, samples=10)
    # the honest engine passes the same check
    cf.check_no_hidden_leak(ClankGame, _config("clank", 2), 5, policy_seed=5, samples=10)
