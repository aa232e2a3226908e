"""Per-game conversion of engine observations and actions to the typed wire messages.

The referee core never imports a game or a game's codec directly: it asks `codec_for(name)`,
which imports the module the game's spec names (`GameSpec.observation_codec`) lazily. A game
without a typed codec yet is sent as `Observation.json` (the engine's dict as canonical JSON),
so every registered game is playable over the wire from day one.

Legal actions always carry `kind`, `args` and `text`; a game with a typed action codec
(`GameSpec.action_codec`) also fills `LegalAction.<game>`, the same action with named fields.
A game without one, or an action kind its codec does not know yet, goes with `args` only.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from google.protobuf.message import Message

from referee.core.game import Action, canonical_json
from referee.games import all_specs
from referee.games.spec import GameSpec, load
from referee.wire._proto.arena.v1 import bot_pb2, common_pb2
from referee.wire.codec import ActionCache, ObservationTable

__all__ = [
    "ActionEncoder",
    "ObservationEncoder",
    "action_cache",
    "action_codec_for",
    "codec_for",
    "encode_action",
    "encode_actions",
    "encode_json",
    "observation_table",
]

log = logging.getLogger(__name__)

ObservationEncoder = Callable[[Mapping[str, Any]], bot_pb2.Observation]
#: (engine action, the deciding seat's observation dict) -> the game's typed action message
ActionEncoder = Callable[[Action, Mapping[str, Any]], Message]

#: (game, action kind) pairs whose typed encoding failed once (logged once per process)
_warned: set[tuple[str, str]] = set()


def encode_json(observation: Mapping[str, Any]) -> bot_pb2.Observation:
    """The fallback for games without a typed message."""
    return bot_pb2.Observation(json=canonical_json(observation))


def _spec(game: str) -> GameSpec | None:
    return next((s for s in all_specs() if s.name == game), None)


def codec_for(game: str) -> ObservationEncoder:
    """The observation encoder of `game` (the JSON fallback if it has no typed codec)."""
    spec = _spec(game)
    if spec is None or spec.observation_codec is None:
        return encode_json
    encoder: ObservationEncoder = load(spec.observation_codec)
    return encoder


def action_codec_for(game: str) -> ActionEncoder | None:
    """The typed action encoder of `game`, or None if its actions go with `args` only."""
    spec = _spec(game)
    if spec is None or spec.action_codec is None:
        return None
    encoder: ActionEncoder = load(spec.action_codec)
    return encoder


def encode_action(
    action: Action, game: str | None = None, observation: Mapping[str, Any] | None = None
) -> common_pb2.LegalAction:
    """One engine action as a LegalAction (ints stay ints, names stay strings).

    With `game` and the deciding seat's `observation`, the typed field `LegalAction.<game>` is
    filled too when the game has a typed action codec (see `encode_actions`).
    """
    return encode_actions([action], game, observation)[0]


def encode_actions(
    actions: Sequence[Action], game: str | None = None, observation: Mapping[str, Any] | None = None
) -> list[common_pb2.LegalAction]:
    """The legal actions of a decision, in the engine's order (bots answer with an index).

    With `game` and the deciding seat's `observation`, each is typed too when the game has a
    typed action codec. A failure there (an engine action kind the codec does not know yet) is
    logged once and that action goes untyped: the bot can still answer it by index
    (tests/referee/test_typed_actions.py catches the drift).
    """
    encoder = action_codec_for(game) if game is not None and observation is not None else None
    out = []
    for action in actions:
        args = [
            common_pb2.Arg(int_value=a) if isinstance(a, int) else common_pb2.Arg(string_value=a)
            for a in action.args
        ]
        legal = common_pb2.LegalAction(kind=action.kind, args=args, text=action.text)
        if encoder is not None:
            assert game is not None and observation is not None
            try:
                typed = encoder(action, observation)
            except (ValueError, TypeError, KeyError, IndexError):
                if (game, action.kind) not in _warned:
                    _warned.add((game, action.kind))
                    log.exception("typed action codec of %s failed on %r; args only", game, action.text)
            else:
                getattr(legal, game).CopyFrom(typed)
        out.append(legal)
    return out


def observation_table(game: str) -> ObservationTable | None:
    """The `ObservationTable` of `game` (the `OBSERVATION` of its observation codec's module),
    with which the referee encodes observations field by field; None: it has none."""
    spec = _spec(game)
    if spec is None or spec.observation_codec is None:
        return None
    table = getattr(importlib.import_module(spec.observation_codec.partition(":")[0]), "OBSERVATION", None)
    return table if isinstance(table, ObservationTable) else None


#: game name -> its ActionCache, shared by every match of the game in this process
_action_caches: dict[str, ActionCache] = {}


def action_cache(game: str) -> ActionCache:
    """The cache of encoded legal actions of `game` (`wire.ActionCache`), shared by its matches
    in this process (an encoding depends only on the action and what its typed message reads
    from the observation, never on the match): typed as `encode_actions` types them; a typed
    encoding that fails is logged once per action kind and sent untyped. The game's action
    codec module may define `action_context(action, obs)`: what the typed message reads from
    the observation; with it, typed encodings are reused too."""
    found = _action_caches.get(game)
    if found is not None:
        return found
    spec = _spec(game)
    typed = action_codec_for(game)
    context = None
    if spec is not None and spec.action_codec is not None:
        module = importlib.import_module(spec.action_codec.partition(":")[0])
        context = getattr(module, "action_context", None)

    def failed(action: Action, _exc: Exception) -> None:
        if (game, action.kind) not in _warned:
            _warned.add((game, action.kind))
            log.exception("typed action codec of %s failed on %r; args only", game, action.text)

    number = common_pb2.LegalAction.DESCRIPTOR.fields_by_name[game].number if typed is not None else 0
    cache = _action_caches[game] = ActionCache(typed, number, context, failed)
    return cache
