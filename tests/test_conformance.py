"""The engine conformance suite, run for every registered game (`referee.games.all_specs`) at
every player count its spec allows: a game folder with a SPEC is tested here with no edit.

The termination and hidden-information check plays 200 random games per player count and samples
steps of every game.
"""

from __future__ import annotations

from typing import Any

import pytest

from referee.core import conformance as cf
from referee.core.game import Game
from referee.games import all_specs, game_class

GAMES_PER_COUNT = 200

CASES = [
    pytest.param(spec.name, n, id=f"{spec.name}-{n}p")
    for spec in all_specs()
    for n in range(spec.min_players, spec.max_players + 1)
]


def _engine(name: str) -> type[Game]:
    return game_class(name)


def _config(name: str, players: int) -> dict[str, Any]:
    return game_class(name).default_config(players)


def test_every_registered_game_is_covered() -> None:
    """The cases are built from the registry: every game, every player count of its spec."""
    names = {spec.name for spec in all_specs()}
    assert {"clank", "alien"} <= names
    assert {case.values[0] for case in CASES} == names
    assert len(CASES) == sum(s.max_players - s.min_players + 1 for s in all_specs())


@pytest.mark.parametrize(("name", "players"), CASES)
def test_same_seed_and_actions_give_same_digests(name: str, players: int) -> None:
    for seed in range(4):
        cf.check_determinism(_engine(name), _config(name, players), seed, policy_seed=seed + 100)


@pytest.mark.parametrize(("name", "players"), CASES)
def test_serialised_state_resumes_identically(name: str, players: int) -> None:
    for seed in range(4):
        cf.check_serialisation(_engine(name), _config(name, players), seed, policy_seed=seed + 7)


@pytest.mark.parametrize(("name", "players"), CASES)
def test_copy_is_independent_of_original(name: str, players: int) -> None:
    for seed in range(4):
        cf.check_copy_independence(_engine(name), _config(name, players), seed, policy_seed=seed)


@pytest.mark.parametrize(("name", "players"), CASES)
def test_every_legal_action_applies(name: str, players: int) -> None:
    tried = 0
    for seed in range(4):
        tried += cf.check_legal_actions_apply(_engine(name), _config(name, players), seed, seed + 1)
    # hundreds of actions even for the shortest game (Alien solo: about 540 in 4 games)
    assert tried > 400


@pytest.mark.parametrize(("name", "players"), CASES)
def test_illegal_actions_are_rejected_and_change_nothing(name: str, players: int) -> None:
    for seed in range(3):
        cf.check_illegal_actions_rejected(_engine(name), _config(name, players), seed, seed + 3)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "players"), CASES)
def test_random_games_end_and_leak_nothing(name: str, players: int) -> None:
    """Termination and the hidden-information check over 200 games per player count, eight
    sampled steps per game, every seat, two re-deals of everything that seat may not know."""
    compared = 0
    for seed in range(GAMES_PER_COUNT):
        compared += cf.check_no_hidden_leak(
            _engine(name), _config(name, players), 1000 + seed, policy_seed=seed, samples=8, variants=2
        )
    # a game shorter than eight steps (an Alien solo crew can die fast) is sampled at every step
    assert compared >= 0.99 * GAMES_PER_COUNT * 8 * 2 * players


@pytest.mark.parametrize("name", [spec.name for spec in all_specs()])
def test_different_seeds_give_different_games(name: str) -> None:
    players = next(s.min_players for s in all_specs() if s.name == name)
    a = _engine(name).new_game(_config(name, players), 1)
    b = _engine(name).new_game(_config(name, players), 2)
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
