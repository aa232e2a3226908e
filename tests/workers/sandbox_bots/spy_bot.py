"""An attacker's bot: before playing it prints everything it was told about the match and its
surroundings (one ``SEEN {json}`` line), to tell a qualification game from a rated one.

It plays random legal actions. tests/workers/test_qualification_disguise.py compares what it saw.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
from collections.abc import Sequence
from typing import Any

from arena_bot import Action, Bot, run

STARTED = time.time()


class SpyBot(Bot):
    """Records its GameStart, argv, environment and files; then any legal action."""

    name = "spy"
    version = "1"

    def __init__(self) -> None:
        super().__init__()
        self.rnd = random.Random(0)

    def on_game_start(self, start: Any) -> None:
        tc = start.time_control
        seen = {
            "match_id": start.match_id,
            "game": start.game,
            "seat": start.seat,
            "num_seats": start.num_seats,
            "seat_names": list(start.seat_names),
            "config": json.loads(start.config_json or "{}"),
            "time_control": {f.name: v for f, v in tc.ListFields()},
            "engine_version": start.engine_version,
            "content_version": start.content_version,
            "protocol": start.protocol,
            "argv": sys.argv,
            "env": dict(os.environ),
            "cwd": os.getcwd(),
            "files": sorted(os.listdir(".")),
            "seconds_to_start": round(time.time() - STARTED, 3),
        }
        print("SEEN " + json.dumps(seen, sort_keys=True), file=sys.stderr, flush=True)
        self.rnd = random.Random(start.match_id)

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> int:
        return self.rnd.randrange(len(legal_actions))


if __name__ == "__main__":
    raise SystemExit(run(SpyBot()))
