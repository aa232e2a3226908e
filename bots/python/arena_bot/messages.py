"""The wire messages a bot meets, re-exported from the generated stubs.

The shared ones are named here; each game's typed observation and typed action
(`ClankObservation`, `ClankAction`, ...) are found from the stubs: they are the messages of the
``Observation.game`` and ``LegalAction.typed`` oneofs, so a new game's are here with no edit.
"""

from __future__ import annotations

import importlib
from typing import Any

from google.protobuf.message import Message

from ._proto.arena.v1.bot_pb2 import (
    Answer,
    BotMessage,
    DecisionContext,
    DecisionRequest,
    GameEnd,
    GameStart,
    Hello,
    Notice,
    Observation,
    RefereeMessage,
)
from ._proto.arena.v1.common_pb2 import GameResult, GroupChoice, LegalAction, TimeControl

__all__ = [
    "Answer",
    "BotMessage",
    "DecisionContext",
    "DecisionRequest",
    "GameEnd",
    "GameResult",
    "GameStart",
    "GroupChoice",
    "Hello",
    "LegalAction",
    "Notice",
    "Observation",
    "RefereeMessage",
    "TimeControl",
]


def _message_class(descriptor: Any) -> type[Message]:
    """The generated class of a message type, from the stub module of its .proto file."""
    stem = descriptor.file.name.removesuffix(".proto").replace("/", ".")
    module = importlib.import_module(f"{__package__}._proto.{stem}_pb2")
    cls: type[Message] = getattr(module, descriptor.name)
    return cls


#: each game's typed observation and typed action, by message name
GAME_MESSAGES: dict[str, type[Message]] = {
    f.message_type.name: _message_class(f.message_type)
    for oneof in (
        Observation.DESCRIPTOR.oneofs_by_name["game"],
        LegalAction.DESCRIPTOR.oneofs_by_name["typed"],
    )
    for f in oneof.fields
    if f.message_type is not None
}

__all__ += sorted(GAME_MESSAGES)


def __getattr__(name: str) -> Any:
    """A game's message (`ClankObservation`, ...): read from the stubs, never listed here."""
    try:
        return GAME_MESSAGES[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


def __dir__() -> list[str]:
    return __all__
