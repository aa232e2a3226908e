"""The greedy Clank! reference bot (bots/builtin/clank_greedy.py), played over the wire.

It shows how to port a bot written against the in-process API: `observation_dict` turns the
typed ClankObservation back into the engine's dict, and the SDK's Action has the same shape as
the engine's. The bot reads the public card and board data of this repository.

    python bots/python/examples/greedy_clank_bot.py --referee HOST:PORT --token T
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bots.builtin.clank_greedy import ClankGreedyBot
from bots.python.arena_bot import Action, Bot, observation_dict, run
from referee.core.game import Action as EngineAction


class GreedyClankBot(Bot):
    """Play everything, buy well, grab an artifact it can bring home, get out."""

    name = "greedy"
    version = "1"

    def __init__(self) -> None:
        super().__init__()
        self.brain = ClankGreedyBot()

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> int:
        actions = [EngineAction(a.kind, a.args, a.text) for a in legal_actions]
        index = self.brain.act(observation_dict(observation), actions)
        self.note = legal_actions[index].text
        return index


if __name__ == "__main__":
    raise SystemExit(run(GreedyClankBot()))
