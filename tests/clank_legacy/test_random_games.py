"""Clank! Legacy: determinism and a random-play smoke test at 2, 3 and 4 players.

Random play is seeded, so a failure names the seed that reproduces it.
"""

from __future__ import annotations

import json

import pytest

from referee.core.rng import RandomStreams
from referee.games.clank_legacy.engine import ClankLegacyGame

from .scenario import new_game, play_out

GAMES = 200


def _digests(players: int, seed: int) -> list[str]:
    game = new_game(players, seed=seed)
    rng = RandomStreams(seed, {})
    out = [game.digest()]
    while not game.is_over():
        d = game.decision()
        assert d is not None
        game.apply_index(rng.below("bot", len(d.actions)))
        out.append(game.digest())
    return out


def test_same_seed_and_actions_same_game() -> None:
    """Determinism: same campaign state, seed and actions give the same states, bit for bit; a
    state serialised mid-game resumes the same game."""
    assert _digests(3, 21) == _digests(3, 21)
    assert _digests(3, 21) != _digests(3, 22)
    game = new_game(4, seed=5)
    rng = RandomStreams(1, {})
    for _ in range(150):
        d = game.decision()
        assert d is not None
        game.apply_index(rng.below("bot", len(d.actions)))
    resumed = ClankLegacyGame.from_json(game.to_json())
    assert resumed.digest() == game.digest()
    copy = game.copy()
    for other in (resumed, copy):
        r1, r2 = RandomStreams(9, {}), RandomStreams(9, {})
        a, b = game.copy(), other
        while not a.is_over():
            i = r1.below("bot", len(a.decision().actions))  # type: ignore[union-attr]
            assert i == r2.below("bot", len(b.decision().actions))  # type: ignore[union-attr]
            a.apply_index(i)
            b.apply_index(i)
            assert a.digest() == b.digest()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_end_without_error(players: int) -> None:
    """Smoke: 200 random games per player count end, with a result and a campaign state after."""
    ends: set[str] = set()
    for seed in range(GAMES):
        game = new_game(players, seed=seed)
        play_out(game, seed=seed + 1000)
        result = game.result()
        assert len(result.scores) == players and min(result.places) == 1
        after = game.campaign_after()
        assert after.game_index == 2 and len(after.reports) == 1
        ends.add(game.s.end_reason)
    assert ends <= {"all_off_the_clock", "bag_empty"}


def test_observations_are_json_and_summarize() -> None:
    """Observations are JSON data; `summarize` reads every seat's view and the spectator's,
    naming each player's space, from the first decision to the end (epilogue votes included)."""
    game = new_game(3, seed=4)
    rng = RandomStreams(4, {})
    while True:
        for view in [game.observe(seat) for seat in range(3)] + [game.observe_all()]:
            assert json.loads(json.dumps(view)) == view
            lines = game.summarize(view)
            assert len([line for line in lines if line.startswith("seat ")]) == 3
        if game.is_over():
            break
        d = game.decision()
        assert d is not None
        game.apply_index(rng.below("bot", len(d.actions)))
