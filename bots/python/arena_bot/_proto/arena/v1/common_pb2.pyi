from . import alien_pb2 as _alien_pb2
from . import clank_pb2 as _clank_pb2
from . import clank_legacy_pb2 as _clank_legacy_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Arg(_message.Message):
    __slots__ = ("int_value", "string_value")
    INT_VALUE_FIELD_NUMBER: _ClassVar[int]
    STRING_VALUE_FIELD_NUMBER: _ClassVar[int]
    int_value: int
    string_value: str
    def __init__(self, int_value: _Optional[int] = ..., string_value: _Optional[str] = ...) -> None: ...

class LegalAction(_message.Message):
    __slots__ = ("kind", "args", "text", "clank", "alien", "clank_legacy")
    KIND_FIELD_NUMBER: _ClassVar[int]
    ARGS_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    CLANK_FIELD_NUMBER: _ClassVar[int]
    ALIEN_FIELD_NUMBER: _ClassVar[int]
    CLANK_LEGACY_FIELD_NUMBER: _ClassVar[int]
    kind: str
    args: _containers.RepeatedCompositeFieldContainer[Arg]
    text: str
    clank: _clank_pb2.ClankAction
    alien: _alien_pb2.AlienAction
    clank_legacy: _clank_legacy_pb2.ClankLegacyAction
    def __init__(self, kind: _Optional[str] = ..., args: _Optional[_Iterable[_Union[Arg, _Mapping]]] = ..., text: _Optional[str] = ..., clank: _Optional[_Union[_clank_pb2.ClankAction, _Mapping]] = ..., alien: _Optional[_Union[_alien_pb2.AlienAction, _Mapping]] = ..., clank_legacy: _Optional[_Union[_clank_legacy_pb2.ClankLegacyAction, _Mapping]] = ...) -> None: ...

class GroupChoice(_message.Message):
    __slots__ = ("group_id", "members", "votes", "tie_break")
    GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    MEMBERS_FIELD_NUMBER: _ClassVar[int]
    VOTES_FIELD_NUMBER: _ClassVar[int]
    TIE_BREAK_FIELD_NUMBER: _ClassVar[int]
    group_id: str
    members: _containers.RepeatedScalarFieldContainer[int]
    votes: _containers.RepeatedCompositeFieldContainer[GroupVote]
    tie_break: str
    def __init__(self, group_id: _Optional[str] = ..., members: _Optional[_Iterable[int]] = ..., votes: _Optional[_Iterable[_Union[GroupVote, _Mapping]]] = ..., tie_break: _Optional[str] = ...) -> None: ...

class GroupVote(_message.Message):
    __slots__ = ("seat", "action_text")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_TEXT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    action_text: str
    def __init__(self, seat: _Optional[int] = ..., action_text: _Optional[str] = ...) -> None: ...

class TimeControl(_message.Message):
    __slots__ = ("decision_ms", "bank_ms", "max_strikes", "connect_ms", "cpu_decision_ms", "cpu_bank_ms")
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    MAX_STRIKES_FIELD_NUMBER: _ClassVar[int]
    CONNECT_MS_FIELD_NUMBER: _ClassVar[int]
    CPU_DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    CPU_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    decision_ms: int
    bank_ms: int
    max_strikes: int
    connect_ms: int
    cpu_decision_ms: int
    cpu_bank_ms: int
    def __init__(self, decision_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ..., max_strikes: _Optional[int] = ..., connect_ms: _Optional[int] = ..., cpu_decision_ms: _Optional[int] = ..., cpu_bank_ms: _Optional[int] = ...) -> None: ...

class GameResult(_message.Message):
    __slots__ = ("scores", "places", "outcomes", "team_won", "details_json")
    SCORES_FIELD_NUMBER: _ClassVar[int]
    PLACES_FIELD_NUMBER: _ClassVar[int]
    OUTCOMES_FIELD_NUMBER: _ClassVar[int]
    TEAM_WON_FIELD_NUMBER: _ClassVar[int]
    DETAILS_JSON_FIELD_NUMBER: _ClassVar[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    places: _containers.RepeatedScalarFieldContainer[int]
    outcomes: _containers.RepeatedScalarFieldContainer[str]
    team_won: bool
    details_json: str
    def __init__(self, scores: _Optional[_Iterable[int]] = ..., places: _Optional[_Iterable[int]] = ..., outcomes: _Optional[_Iterable[str]] = ..., team_won: _Optional[bool] = ..., details_json: _Optional[str] = ...) -> None: ...
