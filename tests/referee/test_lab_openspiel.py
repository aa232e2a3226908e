"""referee.lab.register_openspiel: the games as OpenSpiel games (referee/lab/README.md "OpenSpiel")."""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pyspiel  # type: ignore[import-not-found]
import pytest
from open_spiel.python.algorithms import ismcts, mcts  # type: ignore[import-not-found]
from open_spiel.python.observation import make_observation  # type: ignore[import-not-found]

from referee.core.game import canonical_json
from referee.games import all_specs
from referee.lab import pettingzoo_env, register_openspiel
from referee.lab.encoding import OBS_SIZE, encode_observation
from referee.lab.spiel import DEALS, INFO_STATE_SIZE, ArenaSpielState

NAMES = register_openspiel()

# every game and player count: a full random game at 2 seats and alien's 1, the first 60
# decisions at every count; the full games of clank_legacy at 2 and clank at 4 (~700 steps
# through every check, 11-15 s each on the shared machine) are marked slow
_SLOW = pytest.mark.slow
SIM_GAMES = [
    ("clank", 2, None), ("clank", 3, 60), ("clank", 4, 60), pytest.param("clank", 4, None, marks=_SLOW),
    pytest.param("clank_legacy", 2, None, marks=_SLOW), ("clank_legacy", 2, 60), ("clank_legacy", 3, 60),
    ("clank_legacy", 4, 60), ("alien", 1, None), ("alien", 2, None), ("alien", 3, 60), ("alien", 4, 60),
    ("alien", 5, 60),
]


def _load(game: str, players: int, **params: Any) -> Any:
    return pyspiel.load_game(f"python_arena_{game}", {"players": players, **params})


def _dealt(game: str, players: int, deal: int, steps: int, picks: int = 0) -> Any:
    """A state of `game` after the deal `deal` and `steps` random legal decisions."""
    state = _load(game, players).new_initial_state()
    state.apply_action(deal)
    rng = random.Random(picks)
    for _ in range(steps):
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_every_game_is_registered_once() -> None:
    assert NAMES == ["python_arena_alien", "python_arena_clank", "python_arena_clank_legacy"]
    assert register_openspiel() == NAMES  # again: no error, nothing registered twice
    for name in NAMES:
        game_type = pyspiel.load_game(name).get_type()
        assert game_type.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
        assert game_type.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    with pytest.raises(ValueError, match=r"seats 2\.\.4 players, not 5"):
        _load("clank", 5)


@pytest.mark.parametrize(("game", "players", "max_steps"), SIM_GAMES)
def test_random_sim_test(game: str, players: int, max_steps: int | None) -> None:
    # OpenSpiel's own checks over a random game: legal actions sorted and their strings unique,
    # clones equal and independent, serialise/deserialise, returns in range, every seat's
    # information-state and observation strings and tensors at every step and the end
    params = {} if max_steps is None else {"max_steps": max_steps}
    pyspiel.random_sim_test(_load(game, players, **params), num_sims=1, serialize=True, verbose=False)


def test_the_random_sim_tests_cover_every_game_and_player_count() -> None:
    covered = {tuple(p.values[:2]) if hasattr(p, "values") else p[:2] for p in SIM_GAMES}
    assert covered == {(s.name, n) for s in all_specs() for n in range(s.min_players, s.max_players + 1)}


@pytest.mark.parametrize("perfect_recall", [False, True])
def test_random_sim_test_through_the_observation_api(perfect_recall: bool) -> None:
    game = _load("alien", 2)
    observer = game.make_observer(pyspiel.IIGObservationType(perfect_recall=perfect_recall), {})
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False, observer=observer)


def test_the_deal_is_the_pettingzoo_seed() -> None:
    state = _load("clank", 3).new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == DEALS
    assert state.observation_string(0) == "{}" and not any(state.observation_tensor(1))
    state.apply_action(41)
    env = pettingzoo_env("clank", 3)
    env.reset(seed=41)
    assert env.game is not None
    assert state.engine.digest() == env.game.digest()
    for seat in range(3):
        assert state.observation_tensor(seat) == pytest.approx(env.observe(f"player_{seat}")["observation"])
    # the same deal and actions: the same game, bit for bit
    assert str(_dealt("clank", 3, 41, 30)) == str(_dealt("clank", 3, 41, 30))
    assert str(_dealt("clank", 3, 41, 30)) != str(_dealt("clank", 3, 42, 30))


def test_observations_and_information_states() -> None:
    state = _load("clank", 2).new_initial_state()
    state.apply_action(5)
    acted: dict[int, int] = {}  # decision id -> the seat that took it
    for _ in range(40):
        acted[state.engine.decision().id] = state.current_player()
        state.apply_action(state.legal_actions()[-1])
    seat = state.current_player()
    observation = state.engine.observe(seat)
    assert np.array_equal(state.observation_tensor(seat), encode_observation(observation))
    info = make_observation(state.get_game(), pyspiel.IIGObservationType(perfect_recall=True))
    info.set_from(state, seat)
    assert list(info.dict) == ["observation", "own_actions"] and info.tensor.shape == (INFO_STATE_SIZE,)
    assert np.array_equal(info.tensor[:OBS_SIZE], state.observation_tensor(seat))
    assert np.array_equal(info.tensor, state.information_state_tensor(seat))
    assert info.tensor[OBS_SIZE:].sum() == len(state.information_state(seat)[1]) > 0
    # the information state remembers the seat's own actions (decision id, action): the string's
    # first line lists them, and an action more adds it
    def own(state: Any) -> list[list[Any]]:
        past: list[list[Any]] = json.loads(state.information_state_string(seat).split("\n")[0])["own_actions"]
        return past

    # only the seat's own: another seat's choices (which card it played) are not its to know
    for who in range(2):
        ids = {decision_id for decision_id, _ in state.information_state(who)[1]}
        assert ids and all(acted[i] == who for i in ids) and ids == {i for i, s in acted.items() if s == who}
    before = own(state)
    decision = state.engine.decision()
    first = decision.actions[0]
    state.apply_action(0)
    assert own(state) == [*before, [decision.id, canonical_json([first.kind, list(first.args)])]]


@pytest.mark.parametrize("game", ["clank", "alien"])
def test_a_seats_views_hide_what_it_may_not_know(game: str) -> None:
    state = _dealt(game, 2, 3, 25)
    for seat in range(2):
        variant = state.clone()
        # the engine re-deals everything `seat` may not see (the conformance suite's leak check)
        variant._box.game = state.engine.hidden_variant(seat, 99)
        assert variant.engine.digest() != state.engine.digest()
        assert variant.information_state_string(seat) == state.information_state_string(seat)
        assert variant.information_state_tensor(seat) == state.information_state_tensor(seat)
        assert variant.observation_string(seat) == state.observation_string(seat)


@pytest.mark.parametrize("game", ["clank", "clank_legacy", "alien"])
def test_resample_from_infostate_deals_from_the_seats_view_alone(game: str) -> None:
    state = _dealt(game, 2, 11, 30)
    seat = state.current_player()

    def resample(of: ArenaSpielState, sampler_seed: int) -> Any:
        return of.resample_from_infostate(seat, pyspiel.UniformProbabilitySampler(sampler_seed, 0.0, 1.0))

    sample = resample(state, 1)
    assert sample.information_state_string(seat) == state.information_state_string(seat)
    assert sample.engine.decision().actions == state.engine.decision().actions
    assert sample.history() == []  # the true actions (others' included) stay with the true state
    assert sample.information_state(1 - seat)[1] == () != state.information_state(1 - seat)[1]
    assert resample(state, 1).engine.digest() == sample.engine.digest()  # a seeded sampler replays
    assert resample(state, 2).engine.digest() != sample.engine.digest()
    # another true state with the same view (the hidden parts re-dealt) gives the same samples:
    # nothing of the true hidden state reaches a sample
    twin = state.clone()
    twin._box.game = state.engine.hidden_variant(seat, 7)
    assert twin.engine.digest() != state.engine.digest()
    for k in range(3):
        assert resample(twin, k).engine.digest() == resample(state, k).engine.digest()
    while not sample.is_terminal():  # a sample plays on to a result
        sample.apply_action(sample.legal_actions()[0])
    assert len(sample.returns()) == 2


def test_max_steps_truncates_with_no_returns() -> None:
    state = _load("clank", 2, max_steps=5).new_initial_state()
    state.apply_action(0)
    for _ in range(5):
        assert not state.is_terminal()
        state.apply_action(state.legal_actions()[0])
    assert state.is_terminal() and state.returns() == [0.0, 0.0] and not state.engine.is_over()


def test_openspiels_ismcts_plays_alien_to_the_end(monkeypatch: pytest.MonkeyPatch) -> None:
    game = _load("alien", 2)
    resamples: list[int] = []
    original = ArenaSpielState.resample_from_infostate

    def counted(self: ArenaSpielState, player: int, sampler: Any) -> ArenaSpielState:
        resamples.append(player)
        return original(self, player, sampler)

    monkeypatch.setattr(ArenaSpielState, "resample_from_infostate", counted)
    rng = np.random.RandomState(3)
    # OpenSpiel's defaults: every sample must offer the seat exactly its true legal actions (an
    # alien sample guessing its `ask` wrong made the bot pick an index out of range, before
    # resample_from_infostate gave the determinizer the seat's legal actions)
    evaluator = mcts.RandomRolloutEvaluator(1, rng)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=4, random_state=rng)
    state = game.new_initial_state()
    state.apply_action(3)
    searched = 0
    while not state.is_terminal():
        searched += len(state.legal_actions()) > 1  # one legal action: the bot answers without search
        state.apply_action(bot.step(state))  # every seat is the ISMCTS bot
    assert state.engine.is_over() and state.returns() in ([1.0, 1.0], [-1.0, -1.0])
    assert searched > 10 and len(resamples) == 4 * searched


def test_ismcts_searches_a_clank_decision() -> None:
    state = _dealt("clank", 2, 2, 12)
    while len(state.legal_actions()) < 2:
        state.apply_action(0)
    rng = np.random.RandomState(0)
    game = state.get_game()
    evaluator = mcts.RandomRolloutEvaluator(1, rng)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=3, random_state=rng)
    assert bot.step(state) in state.legal_actions()
