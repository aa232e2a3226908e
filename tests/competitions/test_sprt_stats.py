"""The SPRT's statistics, simulated: stated error rates hold at known Elo differences."""

from __future__ import annotations

import math
import random

import pytest

from ladder.skill import score_from_elo
from ladder.sprt import SprtState, bounds, elo_estimate, llr, pair_index

RUNS = 250


def _simulate(true_elo: float, rng: random.Random, *, elo0: float = 0, elo1: float = 50,
              draw_rate: float = 0.1, max_games: int = 0) -> SprtState:
    """One test to its end on simulated pairs of independent games at `true_elo`."""
    state = SprtState(elo0, elo1, max_games=max_games)
    s = score_from_elo(true_elo)
    win, loss = s - draw_rate / 2, 1 - s - draw_rate / 2
    while state.verdict == "running":
        pair = []
        for _ in range(2):
            u = rng.random()
            pair.append(1.0 if u < win else 0.0 if u < win + loss else 0.5)
        state.add_pair(pair)
    return state


def _limit(rate: float) -> float:
    # the stated rate plus three standard errors of a RUNS-sample estimate
    return rate + 3 * math.sqrt(rate * (1 - rate) / RUNS)


def test_false_h1_rate_at_elo0_is_alpha() -> None:
    rng = random.Random(11)
    verdicts = [_simulate(0.0, rng).verdict for _ in range(RUNS)]
    assert set(verdicts) <= {"H0", "H1"}
    assert verdicts.count("H1") / RUNS <= _limit(0.05)
    assert verdicts.count("H0") / RUNS >= 0.85


def test_false_h0_rate_at_elo1_is_beta() -> None:
    rng = random.Random(12)
    verdicts = [_simulate(50.0, rng).verdict for _ in range(RUNS)]
    assert verdicts.count("H0") / RUNS <= _limit(0.05)


def test_clear_difference_stops_fast_and_right() -> None:
    rng = random.Random(13)
    states = [_simulate(300.0, rng, elo1=20, draw_rate=0.0) for _ in range(50)]
    assert all(s.verdict == "H1" for s in states)
    assert max(s.games for s in states) < 200


def test_game_limit_makes_it_inconclusive() -> None:
    state = _simulate(25.0, random.Random(14), max_games=20)
    assert state.verdict == "inconclusive" and state.games == 20


def test_bounds_and_llr_formula() -> None:
    lower, upper = bounds(0.05, 0.05)
    assert upper == pytest.approx(math.log(19)) and lower == pytest.approx(-math.log(19))
    assert llr([0, 0, 0, 0, 0], 0, 20) == 0
    # a sweep of pairs: LLR grows with the pairs, positive
    assert 0 < llr([0, 0, 0, 0, 4], 0, 20) < llr([0, 0, 0, 0, 40], 0, 20)
    # a loss streak: negative
    assert llr([40, 0, 0, 0, 0], 0, 20) < 0
    # against the normal-approximation formula, pseudo-pairs included
    counts = [3, 10, 40, 12, 5]
    weights = [c + 0.5 for c in counts]
    total = sum(weights)
    mean = sum(w * s for w, s in zip(weights, (0, 0.25, 0.5, 0.75, 1), strict=True)) / total
    var = sum(w * (s - mean) ** 2 for w, s in zip(weights, (0, 0.25, 0.5, 0.75, 1), strict=True)) / total
    s0, s1 = 0.5, score_from_elo(20)
    assert llr(counts, 0, 20) == pytest.approx(70 * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var))


def test_elo_estimate_and_pairs() -> None:
    elo, low, high = elo_estimate([0, 0, 10, 0, 0])
    assert elo == pytest.approx(0) and low < -100 and high > 100  # 10 drawn pairs: not much known
    elo, low, high = elo_estimate([0, 0, 0, 0, 14])
    assert elo == 2000 and 200 < low < 300  # a sweep of 14 pairs: a score above 0.78
    elo, low, high = elo_estimate([1, 4, 10, 10, 5])
    assert low < elo < high and elo > 0
    assert pair_index(1.5) == 3
    with pytest.raises(ValueError):
        pair_index(0.3)
    with pytest.raises(ValueError):
        SprtState(20, 0)
    state = SprtState(0, 20)
    state.add_pair([1.0, 0.5])
    assert (state.wins, state.draws, state.losses, state.pentanomial) == (1, 1, 0, [0, 0, 0, 1, 0])
