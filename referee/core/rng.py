"""Seeded random streams, one per random component.

Every random component of a game (each player's deck, the dungeon deck, the dragon bag, the
secrets...) draws from its own named stream. A stream's starting state is derived from the game
seed and the stream's name only, so two games with the same seed shuffle the same way in every
component even after their play diverges (a duplicate deal stays a duplicate deal).

The generator is SplitMix64: tiny, fast in pure Python, passes BigCrush for our purposes, and its
whole state is one 64-bit integer, which keeps the game state serialisable and hashable.
"""

from __future__ import annotations

import hashlib
from collections.abc import MutableMapping, MutableSequence
from typing import TypeVar

__all__ = ["RandomStreams", "stream_start"]

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15

T = TypeVar("T")


def stream_start(seed: int, name: str) -> int:
    """The initial 64-bit state of stream `name` for game seed `seed`."""
    digest = hashlib.sha256(f"arena-rng/{seed}/{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


class RandomStreams:
    """A set of named SplitMix64 streams whose states live in a plain dict.

    The dict (`states`) is part of the game state: copying or serialising the state copies the
    streams with it. A stream is created from the seed the first time it is used.
    """

    __slots__ = ("seed", "states")

    def __init__(self, seed: int, states: MutableMapping[str, int]) -> None:
        self.seed = seed
        self.states = states

    def next64(self, name: str) -> int:
        """The next raw 64-bit output of stream `name`."""
        state = self.states.get(name)
        if state is None:
            state = stream_start(self.seed, name)
        state = (state + _GOLDEN) & _MASK
        self.states[name] = state
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, name: str, n: int) -> int:
        """A uniform integer in [0, n) from stream `name` (rejection sampling, no modulo bias)."""
        if n <= 0:
            raise ValueError("n must be positive")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next64(name)
            if x < limit:
                return x % n

    def shuffle(self, name: str, items: MutableSequence[T]) -> None:
        """Shuffle `items` in place (Fisher-Yates) with stream `name`."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(name, i + 1)
            items[i], items[j] = items[j], items[i]
