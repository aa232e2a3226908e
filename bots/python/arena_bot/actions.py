"""Legal actions as small frozen values (the same shape as the engine's own `Action`).

Each action also carries its typed form when the game has one (`action.clank` in Clank!,
`action.alien` in Alien; None otherwise): the same action with named fields, e.g.
`action.clank.move.tunnel_index`. `action.typed` is the inner message of its kind directly
(`ClankMove`, `AlienFight`, ...). PROTOCOL.md lists every kind and field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from google.protobuf.message import Message

from ._proto.arena.v1 import alien_pb2, clank_pb2, common_pb2

__all__ = ["ARG_FIELDS", "Action", "decode_action", "typed_kind_args"]

#: game -> action kind -> the typed fields that identify the action, in the order of `args`
#: (the other fields of a typed action are information the referee adds, e.g. a move's to_room)
ARG_FIELDS: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "clank": {
        "play": ("card",),
        "fight": ("slot",),
        "acquire": ("slot",),
        "buy_reserve": ("card",),
        "fight_goblin": (),
        "move": ("tunnel_index", "swords_spent"),
        "teleport": ("tunnel_index",),
        "take": ("token",),
        "buy_item": ("item",),
        "drink": ("potion",),
        "end_turn": (),
        "trash": ("zone", "card"),
        "skip": (),
        "discard": ("card",),
        "choose": ("option",),
    },
    "alien": {
        "play": ("card",),
        "use_once": ("play_index",),
        "sacrifice": ("play_index",),
        "release": ("vigilant_index",),
        "recruit": ("hq_slot",),
        "recruit_sergeant": (),
        "scan": ("room",),
        "fight": ("zone", "index"),
        "complete": ("objective",),
        "ask": (),
        "end_turn": (),
        "coordinate": ("card",),
        "pass": (),
        "discard": ("card",),
        "choose": ("option",),
        "scan_free": ("room",),
        "heal_target": ("seat",),
    },
}


@dataclass(frozen=True, slots=True)
class Action:
    """One legal action: a kind, its arguments and its stable readable text.

    Equal when kind and args are equal; `text` is for people and logs. `clank` / `alien` hold
    the typed action of that game (None when the request carried none).
    """

    kind: str
    args: tuple[int | str, ...] = ()
    text: str = field(default="", compare=False)
    clank: clank_pb2.ClankAction | None = field(default=None, compare=False, repr=False)
    alien: alien_pb2.AlienAction | None = field(default=None, compare=False, repr=False)

    @property
    def typed(self) -> Message | None:
        """The typed message of this action's kind (e.g. `ClankMove` for a Clank! move), or None."""
        outer: Message | None = self.clank if self.clank is not None else self.alien
        if outer is None:
            return None
        which = outer.WhichOneof("action")
        inner: Message | None = None if which is None else getattr(outer, which)
        return inner


def typed_kind_args(
    typed: clank_pb2.ClankAction | alien_pb2.AlienAction,
) -> tuple[str, tuple[int | str, ...]]:
    """The (kind, args) a typed action stands for, read from its identifying fields only.

    ValueError if no kind is set or the kind is unknown to this SDK version."""
    game = "clank" if isinstance(typed, clank_pb2.ClankAction) else "alien"
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
    return Action(
        msg.kind,
        tuple(args),
        msg.text,
        clank=msg.clank if which == "clank" else None,
        alien=msg.alien if which == "alien" else None,
    )
