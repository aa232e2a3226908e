"""Elo for free-for-all matches, scored pairwise by final placing.

A match of N players counts as the N*(N-1)/2 head-to-head games it contains. For players i
and j with ratings Ri and Rj::

    E_ij = 1 / (1 + 10 ** ((Rj - Ri) / SCALE))         # i's expected score against j
    S_ij = 1 if i placed better, 0.5 if they share a place, 0 if worse
    delta_i = K_i / (N - 1) * sum over j != i of (S_ij - E_ij)

Dividing by N - 1 keeps one match worth one game's swing whatever the number of players, so
a 4-player ladder moves ratings about as fast as a 2-player one.

:data:`SCALE` = 400 is the rating gap at which the stronger side is expected to score 10:1.
Each bot's K and the rating it starts from are its ladder's, not this module's: they are the
ladder's rating policy (``ladder.rating_policy.RatingPolicy``: K 40 for a bot's first 20 games,
then 20, from 1500, unless the ladder was created with others; ``ladder/RATINGS.md``).

When every player has the same K the changes sum to zero (each pair's terms cancel). Pure
functions: no I/O, no clock, no randomness.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

__all__ = ["SCALE", "expected_score", "pair_score", "rating_deltas"]

SCALE: Final = 400.0


def expected_score(rating: float, opponent: float) -> float:
    """The expected score (0..1) of a player rated `rating` against one rated `opponent`."""
    return 1.0 / (1.0 + math.pow(10.0, (opponent - rating) / SCALE))


def pair_score(place: int, opponent_place: int) -> float:
    """1 for the better (lower) place, 0.5 for a shared place, 0 for the worse place."""
    if place < opponent_place:
        return 1.0
    if place == opponent_place:
        return 0.5
    return 0.0


def rating_deltas(
    ratings: Sequence[float], places: Sequence[int], k_factors: Sequence[float]
) -> tuple[float, ...]:
    """The rating change of each player of one match, in the order given.

    `places` are 1-based final placings (equal values are shared places); `k_factors` is each
    player's K (``RatingPolicy.k_factor`` of the ladder). Raises ValueError for fewer than two players or
    sequences of different lengths.
    """
    n = len(ratings)
    if n < 2:
        raise ValueError(f"a rated match needs at least 2 players, got {n}")
    if len(places) != n or len(k_factors) != n:
        raise ValueError(
            f"ratings, places and k_factors differ in length: {n}, {len(places)}, {len(k_factors)}"
        )
    deltas = []
    for i in range(n):
        surprise = sum(
            pair_score(places[i], places[j]) - expected_score(ratings[i], ratings[j])
            for j in range(n)
            if j != i
        )
        deltas.append(k_factors[i] / (n - 1) * surprise)
    return tuple(deltas)
