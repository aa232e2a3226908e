"""The Alien coop SDK example, printing every DecisionRequest it gets (for the tests to read).

One line per request:
  asked <decision_id> seat <seat> active <active_seat> out_of_turn <0|1> kind <kind> obs <type>
        current <observation current> to_act <seat>/<kind>
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena_bot import Action, observation_dict, run

from bots.python.examples.alien_coop_bot import AlienCoopBot


class LoggingCoopBot(AlienCoopBot):
    name = "coop-logging"

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> int:
        request = self.request
        assert request is not None
        obs = observation_dict(observation)
        to_act = obs["to_act"]
        print(
            "asked",
            request.decision_id,
            "seat",
            request.seat,
            "active",
            request.context.active_seat,
            "out_of_turn",
            int(request.context.out_of_turn),
            "kind",
            request.kind,
            "obs",
            type(observation).__name__,
            "current",
            obs["current"],
            "to_act",
            f"{to_act['seat']}/{to_act['kind']}",
            flush=True,
        )
        return super().act(observation, legal_actions)


if __name__ == "__main__":
    raise SystemExit(run(LoggingCoopBot()))
