"""An SDK bot for Toy Nim that reads only the typed messages: it checks what the SDK derived from
toy.proto (ARG_FIELDS, the typed action and its kind/args) and takes what leaves a multiple of 4."""

from arena_bot import Bot, run
from arena_bot.actions import ARG_FIELDS, typed_kind_args


class ToyBot(Bot):
    name = "toy"
    version = "1"

    def act(self, observation, legal_actions):
        assert type(observation).__name__ == "ToyObservation", type(observation)
        assert ARG_FIELDS["toy"] == {"take": ("stones",)}, ARG_FIELDS.get("toy")
        for i, action in enumerate(legal_actions):
            assert action.game == "toy" and typed_kind_args(action.game_action) == (action.kind, action.args)
            assert action.typed.left == observation.stones - action.typed.stones
            if action.typed.left % 4 == 0:
                return i
        return 0


if __name__ == "__main__":
    raise SystemExit(run(ToyBot()))
