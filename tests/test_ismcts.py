"""`builtin:ismcts` (referee/bots/ismcts.py): it plays legal games to the end in every game, it is
deterministic with a seed and an iteration budget, and it never reads hidden state: two true
states that give the same observation give the same choices and the same search statistics
(and a sampler that did read the true state would be caught by that check)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from referee.bots import make_bot
from referee.bots.ismcts import IsmctsBot, rewards
from referee.core.game import Action, Game
from referee.games import all_specs, game_class


def _heuristic(name: str) -> str:
    spec = next(s for s in all_specs() if s.name == name)
    return next((b for b in sorted(spec.bots) if b != "ismcts"), "random")


@pytest.mark.parametrize("name", [spec.name for spec in all_specs()])
def test_ismcts_plays_legal_games_to_the_end(name: str) -> None:
    cls = game_class(name)
    game = cls.new_game(cls.default_config(2), 11)
    # short rollouts: this checks the moves, not their quality (a long Alien rollout per root
    # action per decision would take a minute)
    bot = IsmctsBot(name, 3, iterations=1, rollout_steps=10)
    other = make_bot(name, _heuristic(name), 4)
    searched = 0
    while not game.is_over():
        d = game.decision()
        assert d is not None
        if d.seat == 0:
            index = bot.act(game.observe(0), d.actions)
            searched += len(d.actions) > 1
            if len(d.actions) > 1:
                # one sample, every root action searched on it
                assert bot.last_search["iterations"] == 1
                assert set(bot.last_search["visits"]) == set(d.actions)
        else:
            index = other.act(game.observe(d.seat), d.actions)
        assert 0 <= index < len(d.actions)
        game.apply_index(index)
    assert searched > 5
    assert len(game.result().places) == 2


def _decisions(name: str, seed: int, count: int) -> list[Game]:
    """The first `count` decisions of seat 0 with more than one action, in greedy-ish play."""
    cls = game_class(name)
    game = cls.new_game(cls.default_config(2), seed)
    bots = [make_bot(name, _heuristic(name), s) for s in range(2)]
    found: list[Game] = []
    while not game.is_over() and len(found) < count:
        d = game.decision()
        assert d is not None
        if d.seat == 0 and len(d.actions) > 1:
            found.append(game.copy())
        game.apply_index(bots[d.seat].act(game.observe(d.seat), d.actions))
    return found


def _search(bot: IsmctsBot, game: Game) -> tuple[int, dict[Any, float]]:
    d = game.decision()
    assert d is not None
    index = bot.act(game.observe(0), d.actions)
    return index, dict(bot.last_search["means"])


def test_a_seed_and_an_iteration_budget_give_the_same_search() -> None:
    states = _decisions("clank", 5, 4)
    runs = []
    for _ in range(2):
        bot = IsmctsBot("clank", 42, iterations=2)
        runs.append([_search(bot, g) for g in states])
    assert runs[0] == runs[1]
    other = IsmctsBot("clank", 43, iterations=2)
    assert [_search(other, g) for g in states] != runs[0]  # the seed matters: not a fixed answer


def _same_observation_twins(name: str, count: int) -> list[tuple[Game, Game]]:
    """Decision states of seat 0 and a re-deal of each (different hidden cards and random streams,
    the same observation for seat 0)."""
    twins = []
    for k, game in enumerate(_decisions(name, 8, count)):
        variant = game.hidden_variant(0, 1000 + k)
        assert variant.observe(0) == game.observe(0)
        assert variant.digest() != game.digest()  # a different true state
        twins.append((game, variant))
    return twins


def test_different_true_states_with_one_observation_get_the_same_choices() -> None:
    twins = _same_observation_twins("clank", 4)
    for seed in range(2):
        for game, variant in twins:
            first = _search(IsmctsBot("clank", seed, iterations=2), game)
            second = _search(IsmctsBot("clank", seed, iterations=2), variant)
            assert first == second


def test_the_hidden_state_check_catches_a_bot_that_reads_the_true_state() -> None:
    """The check above has teeth: a sampler that copies the true game (a cheat) gives different
    search statistics on the two twins."""
    twins = _same_observation_twins("clank", 3)
    truth: list[Game] = []

    def cheat(
        observation: Mapping[str, Any], seat: int, rng: random.Random,
        legal_actions: Sequence[Action] | None = None,
    ) -> Game:
        return truth[0].copy()

    differ = 0
    for game, variant in twins:
        truth[:] = [game]
        first = _search(IsmctsBot("clank", 0, iterations=2, sampler=cheat), game)
        truth[:] = [variant]
        second = _search(IsmctsBot("clank", 0, iterations=2, sampler=cheat), variant)
        differ += first != second
    assert differ > 0


def test_rewards_rank_places_and_margins() -> None:
    cls = game_class("clank")
    game = cls.new_game(cls.default_config(2), 1)
    bots = [make_bot("clank", "greedy", s) for s in range(2)]
    while not game.is_over():
        d = game.decision()
        assert d is not None
        game.apply_index(bots[d.seat].act(game.observe(d.seat), d.actions))
    result, scores = game.result(), rewards(game)
    winner = result.places.index(1)
    assert scores[winner] > 0 > scores[1 - winner]
    assert all(-1 <= s <= 1 for s in scores)


def test_ismcts_is_a_builtin_bot_of_clank_seeded_by_make_bot() -> None:
    bot = make_bot("clank", "ismcts", 9)
    assert isinstance(bot, IsmctsBot) and bot.name == "ismcts"
    assert bot.time_ms is not None and bot.time_ms < 1000  # inside the ladder's decision time
    state = _decisions("clank", 5, 1)[0]
    d = state.decision()
    assert d is not None
    same = make_bot("clank", "ismcts", 9)
    bot.iterations = same.iterations = 2
    assert _search(bot, state) == _search(same, state)


def test_the_time_budget_stops_the_search_and_leaves_a_cut_sample_out() -> None:
    """A clock that advances 10 ms per reading, and a budget that runs out at the second root
    action of the second sample: the search stops there, one sample counts, and the one rollout
    of the cut sample is left out of the paired scores (it stays in the tree's visits)."""
    now = [0.0]

    def clock() -> float:
        now[0] += 0.010
        return now[0]

    state = _decisions("clank", 5, 3)[2]
    d = state.decision()
    assert d is not None and len(d.actions) > 2
    n = len(d.actions)
    # readings: the deadline; sample 1's n root actions; the loop's check; sample 2's actions
    bot = IsmctsBot("clank", 1, time_ms=10 * (n + 3), clock=clock)
    index = bot.act(state.observe(0), d.actions)
    assert 0 <= index < n
    assert bot.last_search["iterations"] == 1
    assert set(bot.last_search["scored"].values()) == {1}
    assert sorted(bot.last_search["visits"].values()) == [1] * (n - 1) + [2]


def test_a_rollout_is_cut_at_the_horizon_and_scored_by_the_evaluation() -> None:
    """With an evaluation and a horizon, every rollout stops that many actions after the root
    (its action included) and the position there is scored by the evaluation, never played on."""
    state = _decisions("alien", 5, 2)[1]
    d = state.decision()
    assert d is not None and len(d.actions) > 1
    root_step = state.s.step  # type: ignore[attr-defined]
    cut_at: list[int] = []

    def evaluate(game: Game) -> list[float]:
        cut_at.append(game.s.step - root_step)  # type: ignore[attr-defined]
        return [0.25] * game.num_seats

    bot = IsmctsBot("alien", 2, time_ms=None, iterations=3, horizon=6, evaluate=evaluate)
    bot.act(state.observe(0), d.actions)
    assert bot.last_search["iterations"] == 3
    # one evaluation per rollout (3 samples x every root action), each 6 actions on
    assert len(cut_at) == 3 * len(d.actions) and set(cut_at) == {6}
    assert set(bot.last_search["means"].values()) == {0.25}


def test_alien_searches_to_its_horizon_and_clank_to_the_end() -> None:
    from referee.games.alien import value

    alien = make_bot("alien", "ismcts", 1)
    assert isinstance(alien, IsmctsBot)
    assert alien.horizon == value.HORIZON and alien.evaluate is value.evaluate
    clank = make_bot("clank", "ismcts", 1)
    assert isinstance(clank, IsmctsBot) and clank.horizon is None and clank.evaluate is None
    with pytest.raises(ValueError, match="needs a horizon"):
        IsmctsBot("clank", 1, evaluate=value.evaluate)


def test_the_alien_evaluation_prefers_a_living_healthy_team_and_scores_ends_as_rewards() -> None:
    from referee.games.alien import value
    from referee.games.alien.state import DEAD

    state = _decisions("alien", 7, 3)[2]
    base = value.win_chance(state)  # type: ignore[arg-type]
    assert 0.0 < base < 1.0
    hurt = state.copy()
    wounds = [c for c, strike in state.content.strikes.items() if strike.damage > 0][:2]  # type: ignore[attr-defined]
    hurt.s.players[1].strikes.extend(wounds)  # type: ignore[attr-defined]
    assert value.win_chance(hurt) < base  # type: ignore[arg-type]
    dead = state.copy()
    dead.s.players[1].status = DEAD  # type: ignore[attr-defined]
    assert value.win_chance(dead) < base  # type: ignore[arg-type]
    ahead = state.copy()
    ahead.s.objective += 1  # type: ignore[attr-defined]
    assert value.win_chance(ahead) > base  # type: ignore[arg-type]
    assert value.evaluate(state) == [2 * base - 1] * 2
    over = state.copy()
    over.s.over, over.s.won = True, False  # type: ignore[attr-defined]
    assert value.evaluate(over) == [-1.0, -1.0]
