"""A bot that reads only the typed legal actions (LegalAction.clank / .alien / .clank_legacy), never
`args`.

It refuses to play (raises, so the process exits non-zero) if an action comes without its typed
form, or with a typed kind other than `kind`. One line per decision, for the tests to read:

  chose <decision_id> <kind> <to_room (Clank! Legacy: to_space) or ->

Policy (simple, deterministic, from typed fields only): take an artifact, play cards, a move that
costs no damage (the first such tunnel not leading back to the previous room), acquire, fight,
then end the turn (Clank! Legacy: the same with paths and spaces); in Alien play, fight, recruit,
scan, then end the turn; any pending choice: the first action.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena_bot import Action, Bot, run

CLANK_ORDER = ("take", "play", "move", "acquire", "fight", "buy_item", "drink", "end_turn")
ALIEN_ORDER = ("play", "fight", "complete", "recruit", "scan", "end_turn")


class TypedBot(Bot):
    name = "typed"
    version = "1"

    def __init__(self) -> None:
        super().__init__()
        self.came_from = ""
        self.here = ""

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> int:
        request = self.request
        assert request is not None
        kinds = []
        for action in legal_actions:
            outer = action.game_action
            if outer is None or action.typed is None:
                raise SystemExit(f"untyped legal action: {action.text!r}")
            kind = outer.WhichOneof("action")
            if kind != action.kind:
                raise SystemExit(f"typed kind {kind!r} is not the action's kind {action.kind!r}")
            kinds.append(kind)
        index = self._choose(legal_actions, kinds, request.kind)
        chosen = legal_actions[index]
        to_room = "-"
        if chosen.clank is not None and kinds[index] == "move":
            to_room = chosen.clank.move.to_room
            self.came_from, self.here = self.here, to_room
        if chosen.clank_legacy is not None and kinds[index] == "move":
            to_room = chosen.clank_legacy.move.to_space
            self.came_from, self.here = self.here, to_room
        print("chose", request.decision_id, kinds[index], to_room, flush=True)
        return index

    def _choose(self, actions: Sequence[Action], kinds: list[str], decision: str) -> int:
        if decision != "turn":
            return 0
        clank = actions[0].clank is not None
        legacy = actions[0].clank_legacy is not None
        for wanted in CLANK_ORDER if clank or legacy else ALIEN_ORDER:
            for i, kind in enumerate(kinds):
                if kind != wanted:
                    continue
                action = actions[i]
                typed = action.clank or action.clank_legacy
                if kind == "take" and typed is not None and typed.take.token != "artifact":
                    continue
                if clank and kind == "move" and action.clank is not None:
                    move = action.clank.move
                    if move.damage > 0 or move.to_room == self.came_from:
                        continue
                if legacy and kind == "move" and action.clank_legacy is not None:
                    legacy_move = action.clank_legacy.move
                    if legacy_move.damage > 0 or legacy_move.to_space == self.came_from:
                        continue
                return i
        return len(actions) - 1


if __name__ == "__main__":
    raise SystemExit(run(TypedBot()))
