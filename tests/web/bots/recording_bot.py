"""A test bot: writes what it was sent (decision id, prompt, observation as the engine's dict,
legal actions) to $RERUN_DUMP, one JSON line per decision, and answers the last legal action."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from arena_bot import Bot, run
from arena_bot.observations import observation_dict


class Recording(Bot):
    """Dumps each request; plays the last legal action with a note."""

    name = "recording"
    version = "1"

    def act(self, observation: Any, legal_actions: Any) -> int:
        request = self.request
        line = {
            "decision": request.decision_id,
            "seat": request.seat,
            "prompt": request.prompt,
            "observation": observation_dict(request.observation),
            "actions": [a.text for a in legal_actions],
        }
        with open(os.environ["RERUN_DUMP"], "a") as out:
            out.write(json.dumps(line) + "\n")
        self.note = "the last one"
        return len(legal_actions) - 1


if __name__ == "__main__":
    raise SystemExit(run(Recording()))
