"""A well-behaved hosted Python bot: random legal moves through the SDK (`import arena_bot`).

It also uses what the sandbox documents as a bot's own: it reads its files in /bot and writes
into /scratch, and says so on stderr (``{"check": ..., "ok": true}`` lines the tests read).
"""

from __future__ import annotations

import json
import os
import random
import sys
from collections.abc import Sequence
from typing import Any

from arena_bot import Action, Bot, run  # the SDK, as the sandbox (or PYTHONPATH) provides it


def _say(check: str, ok: bool) -> None:
    sys.stderr.write(json.dumps({"check": check, "ok": ok}) + "\n")
    sys.stderr.flush()


class WellBehaved(Bot):
    """Any legal action, seeded from the match."""

    name = "well-behaved-python"
    version = "1"

    def __init__(self) -> None:
        super().__init__()
        self.rnd = random.Random(0)

    def on_game_start(self, start: Any) -> None:
        self.rnd = random.Random(f"{start.match_id}/{start.seat}")

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> int:
        return self.rnd.randrange(len(legal_actions))


if __name__ == "__main__":
    _say("read own files", os.path.exists(os.path.join(os.getcwd(), "main.py")))
    with open(os.path.join(os.environ.get("ARENA_SCRATCH", "/tmp"), "notes.txt"), "w") as notes:
        _say("write scratch", notes.write("hello") == 5)
    raise SystemExit(run(WellBehaved()))
