"""A ladder's rating policy: the numbers its Elo is run with, stored on the ladder.

Everything that rates a ladder's bots or reads their ratings takes them from here, never from a
module constant: recording a match (``ladder.recording``), rating a campaign
(``ladder.campaigns.rate_campaign``), the books' audit (``workers.audit``, which replays the
ladder with *its* policy, so a ladder made with another K audits clean), putting a bot on a
ladder (its starting rating) and the standings (provisional flag, interval width).

The defaults are the values every ladder had before the policy existed (``ladder/RATINGS.md``),
and migration 0011 gives existing ladders exactly these, so nothing changes for them. An
operator picks others at ``arena ladder create`` (``--k-factor`` and friends); a ladder's policy
does not change afterwards (its history was rated with it, and the audit replays that history).

Pure: no I/O. :func:`policy_of` is the one reader of a ``ladders`` row.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from statistics import NormalDist
from typing import Any, Final

__all__ = ["DEFAULT_POLICY", "POLICY_COLUMNS", "RatingPolicy", "policy_of"]

#: ``ladders`` columns holding a policy, one per field of :class:`RatingPolicy` (migration 0011)
POLICY_COLUMNS: Final = (
    "k_established",
    "k_provisional",
    "provisional_games",
    "initial_rating",
    "prior_games",
    "confidence",
)


@dataclass(frozen=True, slots=True)
class RatingPolicy:
    """How one ladder rates: K-factors, the starting rating and the interval shown.

    * `k_established` -- K once a bot has played `provisional_games` rated games (20);
    * `k_provisional` -- K before that, so a new bot finds its level fast (40);
    * `provisional_games` -- rated games a bot is provisional for (20; 0: never);
    * `initial_rating` -- the rating a bot joins the ladder with (1500);
    * `prior_games` -- virtual drawn games behind a rating's deviation, so a bot with no game has
      a finite one (1: about 347 points; ``ladder.skill.elo_deviation``);
    * `confidence` -- the two-sided level of the interval the standings show and rank by (0.95).
    """

    k_established: float = 20.0
    k_provisional: float = 40.0
    provisional_games: int = 20
    initial_rating: float = 1500.0
    prior_games: float = 1.0
    confidence: float = 0.95

    def __post_init__(self) -> None:
        """Refuse a policy that cannot rate: one line naming the field."""
        for name in ("k_established", "k_provisional", "initial_rating", "prior_games", "confidence"):
            if not math.isfinite(getattr(self, name)):
                raise ValueError(f"{name}: a finite number, got {getattr(self, name)!r}")
        if not 0 < self.k_established <= 400:
            raise ValueError(f"k_established: above 0, at most 400, got {self.k_established:g}")
        if not 0 < self.k_provisional <= 400:
            raise ValueError(f"k_provisional: above 0, at most 400, got {self.k_provisional:g}")
        if not 0 <= self.provisional_games <= 10_000:
            raise ValueError(f"provisional_games: 0 to 10000, got {self.provisional_games}")
        if not 0 <= self.initial_rating <= 10_000:
            raise ValueError(f"initial_rating: 0 to 10000, got {self.initial_rating:g}")
        if not 0 < self.prior_games <= 1000:
            raise ValueError(f"prior_games: above 0, at most 1000, got {self.prior_games:g}")
        if not 0.5 <= self.confidence < 1:
            raise ValueError(f"confidence: at least 0.5, below 1, got {self.confidence:g}")

    def is_provisional(self, games_played: int) -> bool:
        """True while a bot has played fewer than `provisional_games` rated games here."""
        return games_played < self.provisional_games

    def k_factor(self, games_played: int) -> float:
        """The K of a bot that has played `games_played` rated games before this one."""
        return self.k_provisional if self.is_provisional(games_played) else self.k_established

    @property
    def z(self) -> float:
        """The normal quantile of the interval: rating ± z * deviation (1.96 at 0.95)."""
        return NormalDist().inv_cdf(0.5 + self.confidence / 2)

    def as_row(self) -> dict[str, Any]:
        """The ``ladders`` column values of this policy."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def as_json(self) -> dict[str, Any]:
        """The policy as the API and ``arena ladder list --json`` show it."""
        return self.as_row()


DEFAULT_POLICY: Final = RatingPolicy()


def policy_of(row: Any) -> RatingPolicy:
    """The policy of a ``ladders`` row (or any row holding the :data:`POLICY_COLUMNS`)."""
    return RatingPolicy(
        k_established=float(row.k_established),
        k_provisional=float(row.k_provisional),
        provisional_games=int(row.provisional_games),
        initial_rating=float(row.initial_rating),
        prior_games=float(row.prior_games),
        confidence=float(row.confidence),
    )
