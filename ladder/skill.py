"""Skill with uncertainty: Bradley-Terry Elo with bootstrap intervals, Fisher deviations, Wilson.

Pure functions, no I/O; randomness only from the seeded ``random.Random`` they are given, so a
table computed twice is the same table. Formulas and a worked example: ``ladder/RATINGS.md``,
"Ratings with uncertainty".

**Maximum-likelihood Elo (competitions).** A game of N players counts as its N(N-1)/2
head-to-head pairs, each worth 1/(N-1) of a game (the ladder's Elo does the same, so one game is
one game's evidence however many sit at the table): the better place scores 1, a shared place
0.5 each (a draw is a draw), the worse 0. With strengths g = 10^(R/400) the pairwise
Bradley-Terry log-likelihood::

    L = Σ_pairs  S_ij·ln p_ij + (n_ij - S_ij)·ln(1 - p_ij),   p_ij = g_i / (g_i + g_j)

(S_ij: i's weighted score against j, n_ij: their weighted games) is maximised by Newton's
method. For 2 players this is the
Bradley-Terry model exactly; for 3-4 it is the pairwise (composite) likelihood of
Plackett-Luce. Every player also plays :data:`PRIOR_GAMES` virtual drawn games against an anchor
rated 1500 (BayesElo's prior): a bot that won every game gets a large finite rating instead of
infinity. Ratings are then shifted so the field's mean is 1500.

**Intervals.** Games come in blocks (a duplicate set: one seed played in every seat rotation),
and the blocks are resampled with replacement :data:`BOOTSTRAP_SAMPLES` times; each resample is
refitted, and the 2.5th and 97.5th percentiles of a bot's rating are its 95% interval. Resampling
whole sets keeps the pairing (the luck the set cancels) inside each resample. The share of
resamples in which a bot is rated above the next one is the *likelihood of superiority*
(BayesElo's LOS): how sure the table is of that order.

**Ladder deviation.** A ladder's Elo moves game by game, there is no fit to bootstrap; its
deviation comes from the Fisher information of the games a bot played, each at the ratings it
was played at (Glicko's RD without the time decay), which recording accumulates per bot
(``ladder_entries.information``): see :func:`game_information` and
:func:`deviation_from_information`.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Generic, TypeVar

__all__ = [
    "BOOTSTRAP_SAMPLES",
    "PRIOR_GAMES",
    "Z95",
    "Fit",
    "Table",
    "bootstrap",
    "deviation_from_information",
    "elo_deviation",
    "elo_from_score",
    "fit_elo",
    "free_for_all_information",
    "game_information",
    "pair_tallies",
    "score_from_elo",
    "superiority",
    "wilson_interval",
]

#: the two-sided 95% quantile of the normal distribution
Z95: Final = 1.959963984540054
#: Elo scale: a 400-point gap is 10:1 odds (as ``ladder.elo.SCALE``)
SCALE: Final = 400.0
CENTER: Final = 1500.0
#: virtual drawn games each player plays against an anchor at 1500 (keeps sweeps finite)
PRIOR_GAMES: Final = 1.0
#: bootstrap resamples behind an interval: the percentiles move by about a point between runs
BOOTSTRAP_SAMPLES: Final = 400
#: the fit stops when no rating moves more than this (Elo points)
TOLERANCE: Final = 1e-4

P = TypeVar("P", bound=Hashable)

#: one game: (player, place) per seat; places are 1-based, equal places are shared
Table = Sequence[tuple[P, int]]


def score_from_elo(elo: float) -> float:
    """The expected score (0..1) of a side `elo` points stronger than its opponent."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / SCALE))


def elo_from_score(score: float) -> float:
    """The Elo difference that gives expected score `score` (clamped to ±2000 at 0 and 1)."""
    if score <= 0.0:
        return -2000.0
    if score >= 1.0:
        return 2000.0
    return max(-2000.0, min(2000.0, -SCALE * math.log10(1.0 / score - 1.0)))


def wilson_interval(successes: float, trials: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a success rate (95% by default); (0, 1) for no trials.

    Unlike the normal interval p ± z·sqrt(p(1-p)/n) it stays inside [0, 1] and is not empty at
    0 or n successes, which is where a co-op team against a hard scenario often is.
    """
    if trials <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= trials:
        raise ValueError(f"successes {successes} outside 0..{trials}")
    p = successes / trials
    z2 = z * z
    denominator = 1.0 + z2 / trials
    center = (p + z2 / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denominator
    return (max(0.0, center - half), min(1.0, center + half))


@dataclass(frozen=True, slots=True)
class PairTally:
    """Weighted head-to-head evidence between two players: games and the first one's score."""

    games: float
    score: float


def pair_tallies(tables: Iterable[Table[P]]) -> dict[tuple[P, P], PairTally]:
    """Every head-to-head pair of the games, weighted 1/(N-1), keyed (a, b) with a before b in
    first-seen order; `score` is a's. A player meeting itself (two seats) is not evidence."""
    games: defaultdict[tuple[P, P], float] = defaultdict(float)
    score: defaultdict[tuple[P, P], float] = defaultdict(float)
    order: dict[P, int] = {}
    for table in tables:
        n = len(table)
        if n < 2:
            continue
        weight = 1.0 / (n - 1)
        for player, _ in table:
            order.setdefault(player, len(order))
        for i in range(n):
            for j in range(i + 1, n):
                (a, place_a), (b, place_b) = table[i], table[j]
                if a == b:
                    continue
                s = 1.0 if place_a < place_b else 0.5 if place_a == place_b else 0.0
                if order[a] > order[b]:
                    a, b, s = b, a, 1.0 - s
                games[(a, b)] += weight
                score[(a, b)] += weight * s
    return {key: PairTally(games[key], score[key]) for key in games}


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """x with matrix·x = vector (Gaussian elimination with partial pivoting; small systems)."""
    n = len(vector)
    a = [[*row, vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(col + 1, n):
            factor = a[r][col] / a[col][col]
            if factor:
                for c in range(col, n + 1):
                    a[r][c] -= factor * a[col][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (a[r][n] - sum(a[r][c] * x[c] for c in range(r + 1, n))) / a[r][r]
    return x


def _fit_indexed(n: int, tallies: Iterable[tuple[int, int, float, float]]) -> list[float]:
    """Newton's method on the Bradley-Terry log-likelihood with the virtual-draw prior.

    `tallies` holds (i, j, games, i's score). The parameters are t = ln g; the prior (games
    against an anchor at t = 0) makes the log-likelihood strictly concave, so Newton converges
    from t = 0 in a few steps. Returns Elo ratings (not yet centred).
    """
    pairs = list(tallies)
    wins = [PRIOR_GAMES * 0.5] * n
    for i, j, games, score in pairs:
        wins[i] += score
        wins[j] += games - score
    theta = [0.0] * n
    tolerance = TOLERANCE * math.log(10.0) / SCALE
    for _ in range(100):
        gradient = wins[:]
        hessian = [[0.0] * n for _ in range(n)]
        for i in range(n):
            p = 1.0 / (1.0 + math.exp(-theta[i]))
            gradient[i] -= PRIOR_GAMES * p
            hessian[i][i] -= PRIOR_GAMES * p * (1 - p)
        for i, j, games, _ in pairs:
            p = 1.0 / (1.0 + math.exp(theta[j] - theta[i]))
            gradient[i] -= games * p
            gradient[j] -= games * (1 - p)
            curvature = games * p * (1 - p)
            hessian[i][i] -= curvature
            hessian[j][j] -= curvature
            hessian[i][j] += curvature
            hessian[j][i] += curvature
        step = _solve(hessian, [-g for g in gradient])
        # damped: a sweep's rating grows large, one step never moves more than 2 (≈ 350 Elo)
        biggest = max(abs(d) for d in step)
        scale = 1.0 if biggest <= 2.0 else 2.0 / biggest
        theta = [t + scale * d for t, d in zip(theta, step, strict=True)]
        if biggest * scale < tolerance:
            break
    return [t * SCALE / math.log(10.0) for t in theta]


def _fit(players: Sequence[P], tallies: Mapping[tuple[P, P], PairTally]) -> dict[P, float]:
    """The fit of Bradley-Terry with the virtual-draw prior; ratings centred on 1500."""
    index = {p: k for k, p in enumerate(players)}
    elos = _fit_indexed(
        len(players), ((index[a], index[b], t.games, t.score) for (a, b), t in tallies.items())
    )
    shift = CENTER - sum(elos) / len(elos)
    return {p: elos[index[p]] + shift for p in players}


def fit_elo(players: Sequence[P], tables: Iterable[Table[P]]) -> dict[P, float]:
    """Maximum-likelihood Elo of `players` from the games `tables` (mean 1500; see module doc)."""
    if not players:
        return {}
    return _fit(list(players), pair_tallies(tables))


@dataclass(frozen=True, slots=True)
class Fit(Generic[P]):
    """Ratings with 95% intervals and, for consecutive players, the likelihood of superiority.

    `elo` is the fit on all games; `low`/`high` the bootstrap percentiles; `los[(a, b)]` the share
    of resamples rating a above b (ties count half), for every ordered pair asked for.
    """

    elo: dict[P, float]
    low: dict[P, float]
    high: dict[P, float]
    los: dict[tuple[P, P], float]
    samples: int


def _percentile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile of already sorted values (q in 0..1)."""
    if len(sorted_values) == 1:
        return sorted_values[0]
    position = q * (len(sorted_values) - 1)
    below = math.floor(position)
    above = min(below + 1, len(sorted_values) - 1)
    frac = position - below
    return sorted_values[below] * (1 - frac) + sorted_values[above] * frac


def bootstrap(
    players: Sequence[P],
    blocks: Sequence[Sequence[Table[P]]],
    *,
    samples: int = BOOTSTRAP_SAMPLES,
    seed: int = 0,
) -> Fit[P]:
    """Fit Elo on all `blocks` (each a list of games: a duplicate set, or one game) and bootstrap
    95% intervals by resampling whole blocks `samples` times with ``random.Random(seed)``.

    The likelihood of superiority is given for every ordered pair of players.
    """
    players = list(players)
    elo = fit_elo(players, (t for block in blocks for t in block))
    if not blocks or samples <= 0:
        return Fit(elo, dict(elo), dict(elo), {}, 0)
    # each block's tallies once, by player index; a resample adds up the blocks it drew
    index = {p: k for k, p in enumerate(players)}
    keys: dict[tuple[int, int], int] = {}
    block_rows: list[list[tuple[int, float, float]]] = []
    for block in blocks:
        rows = []
        for (a, b), tally in pair_tallies(block).items():
            key = keys.setdefault((index[a], index[b]), len(keys))
            rows.append((key, tally.games, tally.score))
        block_rows.append(rows)
    pairs = list(keys)
    rng = random.Random(seed)
    draws: dict[P, list[float]] = {p: [] for p in players}
    above: defaultdict[tuple[P, P], float] = defaultdict(float)
    for _ in range(samples):
        games = [0.0] * len(pairs)
        score = [0.0] * len(pairs)
        for _ in range(len(blocks)):
            for key, g, s in block_rows[rng.randrange(len(blocks))]:
                games[key] += g
                score[key] += s
        elos = _fit_indexed(
            len(players),
            ((i, j, games[k], score[k]) for k, (i, j) in enumerate(pairs) if games[k]),
        )
        shift = CENTER - sum(elos) / len(elos)
        fitted = {p: elos[index[p]] + shift for p in players}
        for p in players:
            draws[p].append(fitted[p])
        for a in players:
            for b in players:
                if a != b:
                    above[(a, b)] += 1.0 if fitted[a] > fitted[b] else 0.5 if fitted[a] == fitted[b] else 0.0
    low, high = {}, {}
    for p in players:
        values = sorted(draws[p])
        low[p] = _percentile(values, 0.025)
        high[p] = _percentile(values, 0.975)
    los = {key: value / samples for key, value in above.items()}
    return Fit(elo, low, high, los, samples)


def game_information(rating: float, opponent: float, weight: float = 1.0) -> float:
    """The Fisher information (in games, the factor c² left out) one game against `opponent`
    gives about `rating`: weight·E·(1 - E), E the expected score. A game between equals gives
    0.25·weight, a mismatch less (its result was all but known)."""
    e = score_from_elo(rating - opponent)
    return weight * e * (1.0 - e)


def free_for_all_information(seat_bots: Sequence[int], seat_ratings: Sequence[float]) -> dict[int, float]:
    """bot -> the information one free-for-all game gives it: every head-to-head pair of seats
    held by two different bots, weighted 1/(N-1) for N seats, at the seats' ratings (a bot in two
    seats counts both seats' pairs; its seats against each other count nothing)."""
    n = len(seat_bots)
    out = dict.fromkeys(seat_bots, 0.0)
    if n < 2:
        return out
    weight = 1.0 / (n - 1)
    for i, a in enumerate(seat_bots):
        for j, b in enumerate(seat_bots):
            if i != j and a != b:
                out[a] += game_information(seat_ratings[i], seat_ratings[j], weight)
    return out


def deviation_from_information(information: float, *, prior_games: float = PRIOR_GAMES) -> float:
    """The standard error (Elo points) of a rating backed by `information` (a sum of
    :func:`game_information`): 1/(c·√(information + prior_games·0.25)), c = ln 10 / 400; the
    prior's virtual draws against an equal opponent keep a bot with no games finite (≈ 347
    points for one)."""
    c = math.log(10.0) / SCALE
    return 1.0 / (c * math.sqrt(max(information, 0.0) + prior_games * 0.25))


def elo_deviation(
    rating: float, opponents: Iterable[tuple[float, float]], *, prior_games: float = PRIOR_GAMES
) -> float:
    """The standard error (Elo points) of a rating, from the games behind it.

    `opponents` holds (opponent rating, weight) per head-to-head pair played (weight 1/(N-1) for
    a game of N players). The Fisher information of the Elo model at these ratings is
    I = Σ w·c²·E·(1 - E) with c = ln 10 / 400 and E the expected score; the deviation is
    1/√(I + I₀), where I₀ is the information of `prior_games` (:data:`PRIOR_GAMES` unless the
    ladder's rating policy says otherwise) draws against an equal opponent, so a bot with no
    games has a finite deviation (≈ 347 points for one). The ladder's standings use
    :func:`deviation_from_information` over information accumulated as games were recorded.
    """
    information = sum(game_information(rating, opponent, weight) for opponent, weight in opponents)
    return deviation_from_information(information, prior_games=prior_games)


def superiority(gap: float, deviation_a: float, deviation_b: float) -> float:
    """The probability that a is stronger than b, `gap` Elo above it, with these deviations:
    Φ(gap / √(d_a² + d_b²)) (the normal approximation of the two ratings' errors)."""
    spread = math.sqrt(deviation_a**2 + deviation_b**2)
    if spread == 0:
        return 1.0 if gap > 0 else 0.0 if gap < 0 else 0.5
    return 0.5 * (1.0 + math.erf(gap / (spread * math.sqrt(2.0))))
