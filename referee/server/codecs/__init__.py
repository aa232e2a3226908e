"""Per-game conversion of engine observations and actions to the typed wire messages.

The referee core never imports a game or a game's codec directly: it asks `codec_for(name)`,
which imports the registered module lazily. A game without a typed codec yet is sent as
`Observation.json` (the engine's dict as canonical JSON), so every registered game is playable
over the wire from day one.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bots.python.arena_bot._proto.arena.v1 import bot_pb2, common_pb2
from referee.core.game import Action, canonical_json

__all__ = ["ObservationEncoder", "codec_for", "encode_action", "encode_actions", "encode_json"]

ObservationEncoder = Callable[[Mapping[str, Any]], bot_pb2.Observation]

#: game name -> "module:function" encoding that game's observation dict
CODECS: dict[str, str] = {
    "clank": "referee.server.codecs.clank:encode_observation",
    "alien": "referee.server.codecs.alien:encode_observation",
}


def encode_json(observation: Mapping[str, Any]) -> bot_pb2.Observation:
    """The fallback for games without a typed message."""
    return bot_pb2.Observation(json=canonical_json(observation))


def codec_for(game: str) -> ObservationEncoder:
    """The observation encoder of `game` (the JSON fallback if it has no typed codec)."""
    target = CODECS.get(game)
    if target is None:
        return encode_json
    module_name, _, attr = target.partition(":")
    encoder: ObservationEncoder = getattr(importlib.import_module(module_name), attr)
    return encoder


def encode_action(action: Action) -> common_pb2.LegalAction:
    """One engine action as a LegalAction (ints stay ints, names stay strings)."""
    args = [
        common_pb2.Arg(int_value=a) if isinstance(a, int) else common_pb2.Arg(string_value=a)
        for a in action.args
    ]
    return common_pb2.LegalAction(kind=action.kind, args=args, text=action.text)


def encode_actions(actions: Sequence[Action]) -> list[common_pb2.LegalAction]:
    """The legal actions of a decision, in the engine's order (bots answer with an index)."""
    return [encode_action(a) for a in actions]
