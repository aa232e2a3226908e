"""The error every game's determinizer (`referee/games/<game>/determinize.py`) raises."""

from __future__ import annotations

__all__ = ["DeterminizeError"]


class DeterminizeError(ValueError):
    """The observation cannot come from any state of this game (another game's, edited, or from
    other content or rules): no consistent state exists to sample."""
