"""Elo for free-for-all matches, scored pairwise by final placing.

A match of N players counts as the N*(N-1)/2 head-to-head games it contains. For players i
and j with ratings Ri and Rj::

    E_ij = 1 / (1 + 10 ** ((Rj - Ri) / SCALE))         # i's expected score against j
    S_ij = 1 if i placed better, 0.5 if they share a place, 0 if worse
    delta_i = K_i / (N - 1) * sum over j != i of (S_ij - E_ij)

Dividing by N - 1 keeps one match worth one game's swing whatever the number of players, so
a 4-player ladder moves ratings about as fast as a 2-player one.

Constants (also in ``ladder/RATINGS.md``):

* :data:`INITIAL_RATING` = 1500, the rating a bot joins a ladder with;
* :data:`SCALE` = 400, the rating gap at which the stronger side is expected to score 10:1;
* :data:`K_PROVISIONAL` = 40 for a bot's first :data:`PROVISIONAL_GAMES` = 20 games on a ladder,
  so a new bot finds its level fast; :data:`K_ESTABLISHED` = 20 afterwards.

When every player has the same K the changes sum to zero (each pair's terms cancel). Pure
functions: no I/O, no clock, no randomness.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

__all__ = [
    "INITIAL_RATING",
    "K_ESTABLISHED",
    "K_PROVISIONAL",
    "PROVISIONAL_GAMES",
    "SCALE",
    "expected_score",
    "is_provisional",
    "k_factor",
    "pair_score",
    "rating_deltas",
]

INITIAL_RATING: Final = 1500.0
SCALE: Final = 400.0
K_PROVISIONAL: Final = 40.0
K_ESTABLISHED: Final = 20.0
PROVISIONAL_GAMES: Final = 20


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


def is_provisional(games_played: int) -> bool:
    """True while a bot has played fewer than PROVISIONAL_GAMES rated games on a ladder."""
    return games_played < PROVISIONAL_GAMES


def k_factor(games_played: int) -> float:
    """The K of a bot that has played `games_played` rated games before this one."""
    return K_PROVISIONAL if is_provisional(games_played) else K_ESTABLISHED


def rating_deltas(
    ratings: Sequence[float], places: Sequence[int], k_factors: Sequence[float]
) -> tuple[float, ...]:
    """The rating change of each player of one match, in the order given.

    `places` are 1-based final placings (equal values are shared places); `k_factors` is each
    player's K (see :func:`k_factor`). Raises ValueError for fewer than two players or
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
