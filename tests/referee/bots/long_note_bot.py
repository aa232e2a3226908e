"""An SDK bot (arena_bot.Bot) that sets a 40,000-character note on every answer: the SDK cuts it
to 256 characters, so the answer stays far below the referee's message size limit."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from arena_bot import Action, Bot, run

#: 40,000 characters, 80,000 bytes in UTF-8: over the 64 KiB message limit if sent whole
LONG_NOTE = "é" * 40_000


class LongNoteBot(Bot):
    name = "long-note"
    version = "1"

    def __init__(self) -> None:
        super().__init__()
        self.rnd = random.Random(0)

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> int:
        self.note = LONG_NOTE
        return self.rnd.randrange(len(legal_actions))


if __name__ == "__main__":
    raise SystemExit(run(LongNoteBot()))
