"""The statistics behind competition tables: Bradley-Terry Elo, bootstrap intervals, Wilson."""

from __future__ import annotations

import math
import random

import pytest

from ladder.skill import (
    bootstrap,
    elo_deviation,
    elo_from_score,
    fit_elo,
    pair_tallies,
    score_from_elo,
    superiority,
    wilson_interval,
)


def _games(a: str, b: str, a_wins: int, draws: int, b_wins: int) -> list[list[tuple[str, int]]]:
    return (
        [[(a, 1), (b, 2)]] * a_wins + [[(a, 1), (b, 1)]] * draws + [[(a, 2), (b, 1)]] * b_wins
    )


def test_score_and_elo_are_inverse() -> None:
    for elo in (-300.0, -20.0, 0.0, 35.5, 400.0):
        assert elo_from_score(score_from_elo(elo)) == pytest.approx(elo)
    assert score_from_elo(400.0) == pytest.approx(10 / 11)


def test_fit_recovers_a_known_gap() -> None:
    # 10 000 games at the expected 200-point score: the prior (one virtual draw each) is noise
    s = score_from_elo(200)
    wins = round(10_000 * s)
    elo = fit_elo(["a", "b"], _games("a", "b", wins, 0, 10_000 - wins))
    assert elo["a"] - elo["b"] == pytest.approx(200, abs=1.0)
    assert (elo["a"] + elo["b"]) / 2 == pytest.approx(1500)


def test_a_draw_is_a_draw() -> None:
    # two shared places and one win each way: equal; a shared first place is half a win, not a win
    even = fit_elo(["a", "b"], _games("a", "b", 1, 2, 1))
    assert even["a"] == pytest.approx(even["b"])
    one_draw = fit_elo(["a", "b"], _games("a", "b", 1, 1, 0))
    two_wins = fit_elo(["a", "b"], _games("a", "b", 2, 0, 0))
    assert 0 < one_draw["a"] - one_draw["b"] < two_wins["a"] - two_wins["b"]


def test_a_sweep_stays_finite() -> None:
    elo = fit_elo(["a", "b"], _games("a", "b", 20, 0, 0))
    assert math.isfinite(elo["a"]) and elo["a"] - elo["b"] > 300


def test_multiplayer_pairs_are_weighted_one_game_per_game() -> None:
    tallies = pair_tallies([[("a", 1), ("b", 2), ("c", 2)]])
    assert tallies[("a", "b")].games == pytest.approx(0.5)
    assert tallies[("a", "b")].score == pytest.approx(0.5)
    assert tallies[("b", "c")].score == pytest.approx(0.25)  # shared place: half of the half game
    # the same player in two seats is no evidence about itself
    assert ("a", "a") not in pair_tallies([[("a", 1), ("a", 2), ("b", 3)]])


def test_transitive_order_in_a_field() -> None:
    rng = random.Random(3)
    true = {"a": 1700.0, "b": 1550.0, "c": 1450.0, "d": 1300.0}
    games = []
    for _ in range(400):
        x, y = rng.sample(sorted(true), 2)
        won = rng.random() < score_from_elo(true[x] - true[y])
        games.append([(x, 1 if won else 2), (y, 2 if won else 1)])
    elo = fit_elo(list(true), games)
    assert sorted(elo, key=elo.__getitem__, reverse=True) == ["a", "b", "c", "d"]


def test_bootstrap_interval_covers_and_narrows() -> None:
    rng = random.Random(5)
    s = score_from_elo(100)

    def blocks(n: int) -> list[list[list[tuple[str, int]]]]:
        out = []
        for _ in range(n):
            won = rng.random() < s
            out.append([[("a", 1 if won else 2), ("b", 2 if won else 1)]])
        return out

    small = bootstrap(["a", "b"], blocks(40), samples=300, seed=1)
    large = bootstrap(["a", "b"], blocks(640), samples=300, seed=1)
    for fit in (small, large):
        assert fit.low["a"] <= fit.elo["a"] <= fit.high["a"]
    assert large.high["a"] - large.low["a"] < (small.high["a"] - small.low["a"]) / 2
    # the true gap (a is 100 above b: +50 from the mean) lies in the large sample's interval
    assert large.low["a"] < 1550 < large.high["a"]
    assert large.los[("a", "b")] > 0.99
    assert large.los[("a", "b")] + large.los[("b", "a")] == pytest.approx(1)


def test_bootstrap_is_deterministic() -> None:
    data = [[[("a", 1), ("b", 2)], [("b", 1), ("a", 2)]], [[("a", 1), ("b", 2)], [("a", 1), ("b", 2)]]]
    assert bootstrap(["a", "b"], data, seed=9) == bootstrap(["a", "b"], data, seed=9)


def test_wilson_known_values() -> None:
    low, high = wilson_interval(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_elo_deviation_shrinks_with_games() -> None:
    none = elo_deviation(1500, [])
    assert none == pytest.approx(1 / math.sqrt((math.log(10) / 400) ** 2 * 0.25))
    ten = elo_deviation(1500, [(1500, 1.0)] * 10)
    hundred = elo_deviation(1500, [(1500, 1.0)] * 100)
    assert none > ten > hundred
    # 100 games against equals: about 400 / (ln 10 · √(0.25 · 101)) ≈ 34.6
    assert hundred == pytest.approx(34.6, abs=0.2)
    # lopsided games carry less information than even ones
    assert elo_deviation(1500, [(1900, 1.0)] * 100) > hundred


def test_ratings_md_worked_example() -> None:
    # ladder/RATINGS.md, "Competitions": 5 duplicate sets, A scores 7.5 of 10
    blocks = [
        [[("A", 1), ("B", 2)], [("B", 2), ("A", 1)]],
        [[("A", 1), ("B", 2)], [("B", 1), ("A", 2)]],
        [[("A", 1), ("B", 2)], [("B", 2), ("A", 1)]],
        [[("A", 1), ("B", 1)], [("B", 2), ("A", 1)]],
        [[("A", 2), ("B", 1)], [("B", 2), ("A", 1)]],
    ]
    fit = bootstrap(["A", "B"], blocks, seed=0)
    assert fit.elo["A"] == pytest.approx(1589.7, abs=0.05) and fit.elo["B"] == pytest.approx(1410.3, abs=0.05)
    assert (round(fit.low["A"], 1), round(fit.high["A"], 1)) == (1533.5, 1715.1)
    assert fit.los[("A", "B")] == pytest.approx(0.996, abs=0.001)
    # "Ladder standings": A 1530 and B 1470 after ten games against each other
    dev = elo_deviation(1530, [(1470, 1.0)] * 10)
    assert dev == pytest.approx(106.2, abs=0.05)
    assert superiority(60, dev, elo_deviation(1470, [(1530, 1.0)] * 10)) == pytest.approx(0.655, abs=0.001)
    assert wilson_interval(2, 2)[0] == pytest.approx(0.342, abs=0.001)
    assert wilson_interval(45, 50)[0] == pytest.approx(0.786, abs=0.001)
