"""Legal actions as small frozen values (the same shape as the engine's own `Action`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ._proto.arena.v1 import common_pb2

__all__ = ["Action", "decode_action"]


@dataclass(frozen=True, slots=True)
class Action:
    """One legal action: a kind, its arguments and its stable readable text.

    Equal when kind and args are equal; `text` is for people and logs.
    """

    kind: str
    args: tuple[int | str, ...] = ()
    text: str = field(default="", compare=False)


def decode_action(msg: common_pb2.LegalAction) -> Action:
    """A wire LegalAction -> Action."""
    args: list[int | str] = [
        a.int_value if a.WhichOneof("value") == "int_value" else a.string_value for a in msg.args
    ]
    return Action(msg.kind, tuple(args), msg.text)
