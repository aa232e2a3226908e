"""Legal actions as small frozen values (the same shape as the engine's own `Action`).

Each action also carries its typed form when the game has one (`action.game_action`, also
`action.<game>` under its game's name, e.g. `action.clank`; None for every other game's name):
the same action with named fields, e.g. `action.clank.move.tunnel_index`. `action.typed` is the
inner message of its kind directly (`ClankMove`, `AlienFight`, ...). PROTOCOL.md lists every
kind and field.

Which game a typed action belongs to is read from the wire itself: the field of the
``LegalAction.typed`` oneof that carries it is named after its game. A new game needs no code
here beyond its generated stub: the games' names are that oneof's fields, and which of a game's
fields identify an action (`ARG_FIELDS`) is read from the `(identifies)` option its .proto puts
on them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.message import Message

from ._proto.arena.v1 import common_pb2, options_pb2

__all__ = ["ARG_FIELDS", "Action", "decode_action", "typed_kind_args"]

#: typed action message (full proto name) -> the game it belongs to: the name of the field of
#: the LegalAction oneof that carries it
_GAME_OF: Mapping[str, str] = {
    f.message_type.full_name: f.name
    for f in common_pb2.LegalAction.DESCRIPTOR.oneofs_by_name["typed"].fields
    if f.message_type is not None
}

#: the field option `(identifies)` (its stub types it as a plain field, not as an extension)
_IDENTIFIES: Any = options_pb2.identifies


def _message(field: Any) -> Any:
    """The message type of a message field (every oneof field read here is one)."""
    message = field.message_type
    assert message is not None, field.full_name
    return message


def _identifying(message: Any) -> tuple[str, ...]:
    """The fields of a typed action's kind message marked ``[(identifies) = true]``, in order."""
    return tuple(f.name for f in message.fields if f.GetOptions().Extensions[_IDENTIFIES])


#: game -> action kind -> the typed fields that identify the action, in the order of `args`
#: (the other fields of a typed action are information the referee adds, e.g. a move's to_room),
#: read from the game's .proto: the fields its `(identifies)` option marks
ARG_FIELDS: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    game.name: {
        kind.name: _identifying(_message(kind))
        for kind in _message(game).oneofs_by_name["action"].fields
    }
    for game in common_pb2.LegalAction.DESCRIPTOR.oneofs_by_name["typed"].fields
}


@dataclass(frozen=True, slots=True)
class Action:
    """One legal action: a kind, its arguments and its stable readable text.

    Equal when kind and args are equal; `text` is for people and logs. `game_action` holds the
    game's typed action (`ClankAction`, `AlienAction`, ...; None when the request carried none)
    and `game` the name of its game; `action.<game>` is `game_action` under its game's name.
    """

    kind: str
    args: tuple[int | str, ...] = ()
    text: str = field(default="", compare=False)
    game_action: Message | None = field(default=None, compare=False, repr=False)
    game: str | None = field(default=None, compare=False, repr=False)

    def __getattr__(self, name: str) -> Any:
        """`action.<game>`: the typed action when `name` is this action's game, None when it is
        another game's (the games are the fields of ``LegalAction.typed``, read from the stubs)."""
        if name in ARG_FIELDS:
            return self.game_action if name == self.game else None
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def typed(self) -> Message | None:
        """The typed message of this action's kind (e.g. `ClankMove` for a Clank! move), or None."""
        outer = self.game_action
        if outer is None:
            return None
        which = outer.WhichOneof("action")
        inner: Message | None = None if which is None else getattr(outer, which)
        return inner


def typed_kind_args(typed: Message) -> tuple[str, tuple[int | str, ...]]:
    """The (kind, args) a game's typed action (`ClankAction`, ...) stands for, read from its
    identifying fields only.

    ValueError if it is no game's typed action, no kind is set or the kind is unknown to this
    SDK version."""
    game = _GAME_OF.get(typed.DESCRIPTOR.full_name)
    if game is None or game not in ARG_FIELDS:
        raise ValueError(f"not a typed action this SDK knows: {typed.DESCRIPTOR.full_name}")
    kind = typed.WhichOneof("action")
    if kind is None or kind not in ARG_FIELDS[game]:
        raise ValueError(f"a {game} typed action without a known kind: {kind!r}")
    inner = getattr(typed, kind)
    return kind, tuple(getattr(inner, name) for name in ARG_FIELDS[game][kind])


def decode_action(msg: common_pb2.LegalAction) -> Action:
    """A wire LegalAction -> Action (with its typed form, when the referee sent one)."""
    args: list[int | str] = [
        a.int_value if a.WhichOneof("value") == "int_value" else a.string_value for a in msg.args
    ]
    which = msg.WhichOneof("typed")
    game_action: Message | None = None if which is None else getattr(msg, which)
    return Action(msg.kind, tuple(args), msg.text, game_action=game_action, game=which)
