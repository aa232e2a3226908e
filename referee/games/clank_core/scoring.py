"""Placing rule shared by the Clank! games."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["places"]


def places(scores: Sequence[int], tie_break: Sequence[int]) -> tuple[int, ...]:
    """1-based places: more points first; equal points go to the higher `tie_break` (the most
    valuable artifact); still equal, the place is shared."""
    keys = [(scores[i], tie_break[i]) for i in range(len(scores))]
    return tuple(1 + sum(1 for other in keys if other > mine) for mine in keys)
