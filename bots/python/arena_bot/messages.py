"""The wire messages a bot meets, re-exported from the generated stubs."""

from __future__ import annotations

from ._proto.arena.v1.alien_pb2 import AlienAction, AlienObservation
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
from ._proto.arena.v1.clank_legacy_pb2 import ClankLegacyAction, ClankLegacyObservation
from ._proto.arena.v1.clank_pb2 import ClankAction, ClankObservation
from ._proto.arena.v1.common_pb2 import GameResult, GroupChoice, LegalAction, TimeControl

__all__ = [
    "AlienAction",
    "AlienObservation",
    "Answer",
    "BotMessage",
    "ClankAction",
    "ClankLegacyAction",
    "ClankLegacyObservation",
    "ClankObservation",
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
