"""The sequential probability ratio test on paired games (fishtest-style, pentanomial model).

A candidate and a baseline play *pairs*: one seed, played twice with the seats swapped (a
2-player duplicate set). A pair scores 0, ½, 1, 1½ or 2 for the candidate; divided by 2 that is
one of five outcomes 0, ¼, ½, ¾, 1 — the pentanomial model. Pairing cancels the luck of the deal
and of the seat, so a pair's score varies less than two independent games' would, and the test
needs fewer games.

H0: the candidate is `elo0` stronger; H1: it is `elo1` stronger (logistic Elo: expected score
s = 1 / (1 + 10^(-elo/400))). After each pair the generalized SPRT's log-likelihood ratio in the
normal approximation (M. Van den Bergh's, the one fishtest used) is::

    LLR = N · (s1 - s0) · (2·x̄ - s0 - s1) / (2·var)

where N is the number of pairs, x̄ the mean pair score and var its variance, both from the
pentanomial counts plus :data:`PRIOR_PAIRS` pseudo-pairs spread over the five outcomes (without
them two sweeps give var = 0 and an infinite LLR; with them a sweep needs about a dozen pairs).
The test stops at the first pair where LLR ≥ log((1 - beta)/alpha) (H1 accepted) or
LLR ≤ log(beta/(1 - alpha)) (H0 accepted); with a game limit it may end inconclusive. Wald's bounds
keep the error rates near alpha (accepting H1 when elo = elo0) and beta (accepting H0 when elo =
elo1); ``tests/competitions/test_sprt_stats.py`` checks that by simulation.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from ladder.skill import Z95, elo_from_score, score_from_elo, wilson_interval

__all__ = [
    "PAIR_SCORES",
    "PRIOR_PAIRS",
    "SprtState",
    "Verdict",
    "bounds",
    "elo_estimate",
    "llr",
    "pair_index",
]

#: the five pentanomial outcomes, as the candidate's score over the pair divided by 2
PAIR_SCORES: Final = (0.0, 0.25, 0.5, 0.75, 1.0)
#: pseudo-pairs added to the counts, spread evenly over the outcomes (see the module doc)
PRIOR_PAIRS: Final = 2.5

Verdict = Literal["H1", "H0", "inconclusive", "running"]


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's (lower, upper) LLR bounds for error rates alpha (false H1) and beta (false H0)."""
    if not (0 < alpha < 1 and 0 < beta < 1):
        raise ValueError("alpha and beta must be between 0 and 1")
    return (math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha))


def pair_index(points: float) -> int:
    """The pentanomial bin of a pair where the candidate scored `points` (0..2, in halves)."""
    k = round(points * 2)
    if not 0 <= k <= 4 or abs(points * 2 - k) > 1e-9:
        raise ValueError(f"a pair scores 0, 0.5, 1, 1.5 or 2, got {points}")
    return k


def _moments(counts: Sequence[float]) -> tuple[float, float, float]:
    """(N, mean, variance) of the pair scores with the pseudo-pairs added."""
    prior = PRIOR_PAIRS / len(PAIR_SCORES)
    weights = [c + prior for c in counts]
    total = sum(weights)
    mean = sum(w * s for w, s in zip(weights, PAIR_SCORES, strict=True)) / total
    var = sum(w * (s - mean) ** 2 for w, s in zip(weights, PAIR_SCORES, strict=True)) / total
    return float(sum(counts)), mean, var


def llr(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """The log-likelihood ratio of H1 (elo1) against H0 (elo0) after the pentanomial `counts`."""
    if len(counts) != len(PAIR_SCORES):
        raise ValueError("counts: five numbers, pairs scoring 0, 0.5, 1, 1.5 and 2")
    n, mean, var = _moments(counts)
    if n == 0:
        return 0.0
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)


def elo_estimate(counts: Sequence[float]) -> tuple[float, float, float]:
    """The candidate's Elo advantage from the pair counts, with its 95% interval (low, high).

    Mean pair score x ± 1.96·sd/√N (raw counts, no pseudo-pairs), widened to the Wilson
    interval of the same score when that is wider (a sweep has sd = 0, but 14 pairs won of 14
    only show a score above 0.78), mapped through the logistic Elo curve; (0, -2000, 2000) with
    no pairs.
    """
    n = sum(counts)
    if n == 0:
        return (0.0, -2000.0, 2000.0)
    mean = sum(c * s for c, s in zip(counts, PAIR_SCORES, strict=True)) / n
    var = sum(c * (s - mean) ** 2 for c, s in zip(counts, PAIR_SCORES, strict=True)) / n
    half = Z95 * math.sqrt(var / n)
    w_low, w_high = wilson_interval(mean * n, n)
    low, high = min(mean - half, w_low), max(mean + half, w_high)
    return (elo_from_score(mean), elo_from_score(low), elo_from_score(high))


@dataclass(slots=True)
class SprtState:
    """A running test: add pairs with :meth:`add_pair`, read :attr:`verdict`.

    `max_games` (0: none) ends the test inconclusive once that many games have been played
    without a bound crossed.
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    max_games: int = 0
    counts: list[int] | None = None
    wins: int = 0
    draws: int = 0
    losses: int = 0

    def __post_init__(self) -> None:
        """Start with no pairs; check the hypotheses."""
        if self.elo1 <= self.elo0:
            raise ValueError("elo1 must be greater than elo0")
        bounds(self.alpha, self.beta)
        if self.counts is None:
            self.counts = [0] * len(PAIR_SCORES)

    @property
    def pentanomial(self) -> list[int]:
        """Pairs by the candidate's score over the pair: 0, ½, 1, 1½, 2."""
        assert self.counts is not None
        return self.counts

    @property
    def games(self) -> int:
        """Games played (two per pair)."""
        return self.wins + self.draws + self.losses

    @property
    def llr(self) -> float:
        """The current log-likelihood ratio."""
        return llr(self.pentanomial, self.elo0, self.elo1)

    @property
    def bounds(self) -> tuple[float, float]:
        """(lower, upper) LLR bounds."""
        return bounds(self.alpha, self.beta)

    @property
    def verdict(self) -> Verdict:
        """``H1`` / ``H0`` once a bound is crossed; ``inconclusive`` at the game limit; else ``running``."""
        value = self.llr
        lower, upper = self.bounds
        if value >= upper:
            return "H1"
        if value <= lower:
            return "H0"
        if self.max_games and self.games >= self.max_games:
            return "inconclusive"
        return "running"

    def add_pair(self, game_scores: Iterable[float]) -> None:
        """Count one pair: the candidate's score in each of its games (1, 0.5 or 0)."""
        scores = list(game_scores)
        for s in scores:
            if s == 1.0:
                self.wins += 1
            elif s == 0.5:
                self.draws += 1
            elif s == 0.0:
                self.losses += 1
            else:
                raise ValueError(f"a game scores 1, 0.5 or 0, got {s}")
        self.pentanomial[pair_index(sum(scores) * 2 / len(scores))] += 1
