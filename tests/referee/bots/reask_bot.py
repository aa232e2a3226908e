"""An SDK bot whose first answer is refused: `act` answers its first decision with an index past
the end of the legal actions, then plays randomly. The SDK must ask `act` again for the same
decision at once after the REJECTED notice (tests/referee/test_lifecycle.py).

It prints "asked <decision id> <count>" each time `act` is called, for the test to read.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from arena_bot import Action, Bot, run


class ReaskBot(Bot):
    """Out of range once, then random."""

    name = "reask"
    version = "1"

    def __init__(self) -> None:
        super().__init__()
        self.rnd = random.Random(0)
        self.asked: Counter[int] = Counter()

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> int:
        assert self.request is not None
        decision = self.request.decision_id
        self.asked[decision] += 1
        print("asked", decision, self.asked[decision], flush=True)
        if sum(self.asked.values()) == 1:
            return len(legal_actions)  # refused: REJECTED, the decision stays open
        return self.rnd.randrange(len(legal_actions))


if __name__ == "__main__":
    raise SystemExit(run(ReaskBot()))
