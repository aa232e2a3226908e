"""A test bot for Clank! Legacy over the wire: it stops (exit code 3) unless every observation is
a typed `ClankLegacyObservation` for its own seat, every legal action carries its typed
`LegalAction.clank_legacy` of the same kind, and GameStart's static content holds the board side
in play (every move's `to_space` is one of its spaces); it plays a seeded random action. One line per
decision, for the test to read:

  asked <decision_id> <kind> phase <phase> campaign_game <n> hand <hand size>
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from arena_bot import Action, Bot, run
from arena_bot._proto.arena.v1 import bot_pb2, clank_legacy_pb2


def _fail(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
    raise SystemExit(3)


class LegacyWireBot(Bot):
    """Checks the typed wire, plays at random."""

    name = "legacy-wire"
    version = "1"

    def __init__(self) -> None:
        super().__init__()
        self.rnd = random.Random(0)
        self.seat = -1

    def on_game_start(self, start: bot_pb2.GameStart) -> None:
        self.rnd = random.Random(f"{start.match_id}/{start.seat}")
        self.seat = start.seat

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> int:
        request = self.request
        assert request is not None
        if not isinstance(observation, clank_legacy_pb2.ClankLegacyObservation):
            _fail(f"not a typed Clank! Legacy observation: {type(observation).__name__}")
        if observation.seat != self.seat or not observation.HasField("campaign"):
            _fail(f"observation of seat {observation.seat} without a campaign state")
        content = self.content  # GameStart's static content: both board sides
        if content is None or content["game"] != "clank_legacy":
            _fail("no Clank! Legacy static content in GameStart")
            return 0
        spaces = content["boards"][observation.board]["spaces"] if observation.board else {}
        for action in legal_actions:
            typed = action.clank_legacy
            if typed is None or typed.WhichOneof("action") != action.kind:
                _fail(f"untyped or mistyped legal action: {action.text!r}")
            if action.kind == "move" and typed is not None and typed.move.to_space not in spaces:
                _fail(f"a move to a space the static content lacks: {action.text!r}")
        print(
            "asked",
            request.decision_id,
            request.kind,
            "phase",
            observation.phase,
            "campaign_game",
            observation.campaign.game_index,
            "hand",
            len(observation.you.hand),
            flush=True,
        )
        return self.rnd.randrange(len(legal_actions))


if __name__ == "__main__":
    raise SystemExit(run(LegacyWireBot()))
