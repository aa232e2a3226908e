"""arena_bot: write an Arena bot in Python.

    from arena_bot import Bot, run          # its one name, in this repository too

    class MyBot(Bot):
        name = "my-bot"

        def act(self, observation, legal_actions):
            return 0                         # index into legal_actions

    if __name__ == "__main__":
        raise SystemExit(run(MyBot()))

Run it with `python my_bot.py --referee HOST:PORT --token T` (or ARENA_REFEREE / ARENA_TOKEN) for
one match, or `--bot-token B` (ARENA_BOT_TOKEN) to stay connected as a remote ladder bot; add
`--tls` (ARENA_TLS=1) for a referee serving TLS, and `--ca FILE` (ARENA_CA) to trust its CA.
The wire messages are generated from proto/arena/v1 into `arena_bot._proto` (never edit them);
`arena_bot.messages` re-exports the ones a bot meets.
"""

from __future__ import annotations

from .actions import ARG_FIELDS, Action, decode_action, typed_kind_args
from .bot import Bot, play, run, serve
from .content import ContentMismatch, game_content
from .observations import message_to_dict, observation_dict, unwrap
from .wire import PROTOCOL, Tls

__all__ = [
    "ARG_FIELDS",
    "PROTOCOL",
    "Action",
    "Bot",
    "ContentMismatch",
    "Tls",
    "decode_action",
    "game_content",
    "message_to_dict",
    "observation_dict",
    "play",
    "run",
    "serve",
    "typed_kind_args",
    "unwrap",
]
