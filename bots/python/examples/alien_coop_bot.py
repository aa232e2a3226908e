"""The cooperative Alien reference bot (bots/builtin/alien_coop.py), played over the wire.

Legendary Encounters: Alien is cooperative, and decisions also come outside your own turn: once
in every phase of another player's turn (Hive, Action, Strike), and whenever the active player
asks the team later in the Action phase, each other living player is asked whether to Coordinate
a card
(`self.request.context.out_of_turn` is set, `context.active_seat` is whose turn it is). The
built-in bot already handles that from the observation alone: `observation_dict` turns the typed
AlienObservation back into the engine's dict, and the SDK's Action has the engine's shape. The
bot reads the public card data of this repository.

    python bots/python/examples/alien_coop_bot.py --referee HOST:PORT --token T
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bots.builtin.alien_coop import AlienCoopBot as Brain
from bots.python.arena_bot import Action, Bot, observation_dict, run
from referee.core.game import Action as EngineAction


class AlienCoopBot(Bot):
    """Clear the threats nearest the Airlock, lend Attack cards when a kill is in reach."""

    name = "coop"
    version = "1"

    def __init__(self) -> None:
        super().__init__()
        self.brain = Brain()

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> int:
        actions = [EngineAction(a.kind, a.args, a.text) for a in legal_actions]
        index = self.brain.act(observation_dict(observation), actions)
        if self.request is not None and self.request.context.out_of_turn:
            self.note = f"for seat {self.request.context.active_seat}: {legal_actions[index].text}"
        return index


if __name__ == "__main__":
    raise SystemExit(run(AlienCoopBot()))
