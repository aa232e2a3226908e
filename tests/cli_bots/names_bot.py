"""A test bot: writes the seat names its GameStart carried (what opponents are called) to the
file $NAMES_DUMP as one JSON list, then plays the first legal action of every decision."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from arena_bot import Bot, run
from arena_bot._proto.arena.v1 import bot_pb2


class NamesBot(Bot):
    """Records the seat names, plays the first legal action."""

    name = "names"
    version = "1"

    def on_game_start(self, start: bot_pb2.GameStart) -> None:
        Path(os.environ["NAMES_DUMP"]).write_text(json.dumps(list(start.seat_names)))

    def act(self, observation: Any, legal_actions: Any) -> int:
        return 0


if __name__ == "__main__":
    raise SystemExit(run(NamesBot()))
