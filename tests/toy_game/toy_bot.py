"""An SDK bot for Toy Nim that reads only what the SDK derives from toy.proto: the typed
observation (`arena_bot.messages.ToyObservation`) and its engine dict (`observation_dict`, shaped
by toy.proto's view options), `ARG_FIELDS`, each typed action (`action.toy`, `action.typed`) and
its kind/args. It takes what leaves a multiple of 4, read from the dict."""

from arena_bot import Bot, observation_dict, run
from arena_bot.actions import ARG_FIELDS, typed_kind_args
from arena_bot.messages import ToyObservation


class ToyBot(Bot):
    name = "toy"
    version = "1"

    def act(self, observation, legal_actions):
        assert isinstance(observation, ToyObservation), type(observation)
        assert ARG_FIELDS["toy"] == {"take": ("stones",)}, ARG_FIELDS.get("toy")
        obs = observation_dict(observation)
        # the view options: an unset optional is None, a one-field message its list, an unset
        # (unset_is_empty) message {}
        assert obs["winner"] is None and len(obs["taken"]) == 2, obs
        assert sum(map(sum, obs["taken"])) == 11 - obs["stones"], obs
        if obs["last"] == {}:
            assert obs["taken"] == [[], []], obs
        else:
            assert obs["last"]["seat"] == 1 - obs["seat"], obs
            assert obs["taken"][obs["last"]["seat"]][-1] == obs["last"]["stones"], obs
        for i, action in enumerate(legal_actions):
            assert action.game == "toy" and action.toy is action.game_action, action
            assert typed_kind_args(action.toy) == (action.kind, action.args)
            assert action.typed.left == obs["stones"] - action.typed.stones
            if action.typed.left % 4 == 0:
                return i
        return 0


if __name__ == "__main__":
    raise SystemExit(run(ToyBot()))
