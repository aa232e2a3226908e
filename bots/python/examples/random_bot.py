"""A bot that plays a uniformly random legal action, over the wire.

python bots/python/examples/random_bot.py --referee HOST:PORT --token T
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from arena_bot import Action, Bot, run


class RandomBot(Bot):
    """Any legal action, uniformly (seeded from the match, so replays are reproducible)."""

    name = "random"
    version = "1"

    def __init__(self) -> None:
        super().__init__()
        self.rnd = random.Random(0)

    def on_game_start(self, start: Any) -> None:
        self.rnd = random.Random(f"{start.match_id}/{start.seat}")

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> int:
        return self.rnd.randrange(len(legal_actions))


if __name__ == "__main__":
    raise SystemExit(run(RandomBot()))
