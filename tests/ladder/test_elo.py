"""Free-for-all Elo: worked examples and properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ladder import elo
from ladder.rating_policy import DEFAULT_POLICY


def test_two_players_upset_worked_example() -> None:
    # A (1600) loses to B (1400), both provisional (K = 40), N - 1 = 1.
    #   E_AB = 1 / (1 + 10^((1400 - 1600) / 400)) = 1 / (1 + 10^-0.5)
    #        = 1 / (1 + 0.316227766) = 0.759746927
    #   delta_A = 40 * (0 - 0.759746927) = -30.389877
    #   delta_B = 40 * (1 - 0.240253073) = +30.389877
    a, b = elo.rating_deltas([1600, 1400], [2, 1], [40, 40])
    assert a == pytest.approx(-30.389877, abs=1e-6)
    assert b == pytest.approx(30.389877, abs=1e-6)
    # Same game, A established (K = 20): A only loses half as much, B gains the same.
    a, b = elo.rating_deltas([1600, 1400], [2, 1], [20, 40])
    assert a == pytest.approx(-15.194939, abs=1e-6)
    assert b == pytest.approx(30.389877, abs=1e-6)


def test_equal_players_win_gives_half_k() -> None:
    assert elo.rating_deltas([1500, 1500], [1, 2], [40, 40]) == (20.0, -20.0)
    assert elo.rating_deltas([1500, 1500], [1, 1], [40, 40]) == (0.0, 0.0)


def test_three_players_with_shared_place_worked_example() -> None:
    # A 1600, B 1500, C 1400; B wins, A and C share 2nd. K = 40, N - 1 = 2: factor 20.
    #   10^-0.25 = 0.562341325 -> E_AB = 1 / 1.562341325 = 0.640065000, E_BA = 0.359935000
    #   10^-0.5  = 0.316227766 -> E_AC = 1 / 1.316227766 = 0.759746927, E_CA = 0.240253073
    #   E_BC = E_AB = 0.640065000 (also 100 points), E_CB = 0.359935000
    #   A: (0 - 0.640065000) + (0.5 - 0.759746927) = -0.899811927 -> x20 = -17.996239
    #   B: (1 - 0.359935000) + (1 - 0.640065000)   =  1.000000000 -> x20 = +20.000000
    #   C: (0.5 - 0.240253073) + (0 - 0.359935000) = -0.100188073 -> x20 =  -2.003761
    #   sum = 0 (equal K)
    a, b, c = elo.rating_deltas([1600, 1500, 1400], [2, 1, 2], [40, 40, 40])
    assert a == pytest.approx(-17.996239, abs=1e-6)
    assert b == pytest.approx(20.0, abs=1e-9)
    assert c == pytest.approx(-2.003761, abs=1e-6)


def test_k_factor_is_provisional_for_first_twenty_games() -> None:
    assert DEFAULT_POLICY.k_factor(0) == 40
    assert DEFAULT_POLICY.k_factor(19) == 40
    assert DEFAULT_POLICY.k_factor(20) == 20
    assert DEFAULT_POLICY.is_provisional(19) and not DEFAULT_POLICY.is_provisional(20)


def test_expected_scores_are_complementary() -> None:
    assert elo.expected_score(1700, 1300) + elo.expected_score(1300, 1700) == pytest.approx(1)
    assert elo.expected_score(1900, 1500) == pytest.approx(10 / 11)


@pytest.mark.parametrize(
    ("ratings", "places", "ks"),
    [([1500], [1], [40]), ([1500, 1500], [1], [40, 40]), ([1500, 1500], [1, 2], [40])],
)
def test_rejects_bad_input(ratings: list[float], places: list[int], ks: list[float]) -> None:
    with pytest.raises(ValueError):
        elo.rating_deltas(ratings, places, ks)


@st.composite
def matches(draw: st.DrawFn) -> tuple[list[float], list[int], float]:
    n = draw(st.integers(min_value=2, max_value=6))
    ratings = draw(st.lists(st.floats(800, 2800), min_size=n, max_size=n))
    places = draw(st.lists(st.integers(1, n), min_size=n, max_size=n))
    k = draw(st.sampled_from([DEFAULT_POLICY.k_provisional, DEFAULT_POLICY.k_established]))
    return ratings, places, k


@settings(database=None, max_examples=200, deadline=None)
@given(matches())
def test_zero_sum_for_equal_k(match: tuple[list[float], list[int], float]) -> None:
    ratings, places, k = match
    deltas = elo.rating_deltas(ratings, places, [k] * len(ratings))
    assert math.fsum(deltas) == pytest.approx(0, abs=1e-9)
    # no one moves more than K, and a sole winner never loses points
    assert all(abs(d) <= k for d in deltas)
    best = min(places)
    if places.count(best) == 1:
        assert deltas[places.index(best)] > 0
