from . import alien_pb2 as _alien_pb2
from . import clank_pb2 as _clank_pb2
from . import clank_legacy_pb2 as _clank_legacy_pb2
from . import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class BotMessage(_message.Message):
    __slots__ = ("hello", "answer")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    answer: Answer
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., answer: _Optional[_Union[Answer, _Mapping]] = ...) -> None: ...

class RefereeMessage(_message.Message):
    __slots__ = ("game_start", "decision", "notice", "game_end")
    GAME_START_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    NOTICE_FIELD_NUMBER: _ClassVar[int]
    GAME_END_FIELD_NUMBER: _ClassVar[int]
    game_start: GameStart
    decision: DecisionRequest
    notice: Notice
    game_end: GameEnd
    def __init__(self, game_start: _Optional[_Union[GameStart, _Mapping]] = ..., decision: _Optional[_Union[DecisionRequest, _Mapping]] = ..., notice: _Optional[_Union[Notice, _Mapping]] = ..., game_end: _Optional[_Union[GameEnd, _Mapping]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("bot_name", "bot_version", "sdk", "protocol")
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    BOT_VERSION_FIELD_NUMBER: _ClassVar[int]
    SDK_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_FIELD_NUMBER: _ClassVar[int]
    bot_name: str
    bot_version: str
    sdk: str
    protocol: int
    def __init__(self, bot_name: _Optional[str] = ..., bot_version: _Optional[str] = ..., sdk: _Optional[str] = ..., protocol: _Optional[int] = ...) -> None: ...

class GameStart(_message.Message):
    __slots__ = ("match_id", "game", "seat", "num_seats", "seat_names", "config_json", "time_control", "engine_version", "content_version", "protocol", "content_json", "content_digest")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NUM_SEATS_FIELD_NUMBER: _ClassVar[int]
    SEAT_NAMES_FIELD_NUMBER: _ClassVar[int]
    CONFIG_JSON_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    ENGINE_VERSION_FIELD_NUMBER: _ClassVar[int]
    CONTENT_VERSION_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_FIELD_NUMBER: _ClassVar[int]
    CONTENT_JSON_FIELD_NUMBER: _ClassVar[int]
    CONTENT_DIGEST_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    seat: int
    num_seats: int
    seat_names: _containers.RepeatedScalarFieldContainer[str]
    config_json: str
    time_control: _common_pb2.TimeControl
    engine_version: str
    content_version: str
    protocol: int
    content_json: str
    content_digest: str
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[str] = ..., seat: _Optional[int] = ..., num_seats: _Optional[int] = ..., seat_names: _Optional[_Iterable[str]] = ..., config_json: _Optional[str] = ..., time_control: _Optional[_Union[_common_pb2.TimeControl, _Mapping]] = ..., engine_version: _Optional[str] = ..., content_version: _Optional[str] = ..., protocol: _Optional[int] = ..., content_json: _Optional[str] = ..., content_digest: _Optional[str] = ...) -> None: ...

class DecisionContext(_message.Message):
    __slots__ = ("active_seat", "out_of_turn", "group")
    ACTIVE_SEAT_FIELD_NUMBER: _ClassVar[int]
    OUT_OF_TURN_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    active_seat: int
    out_of_turn: bool
    group: _common_pb2.GroupChoice
    def __init__(self, active_seat: _Optional[int] = ..., out_of_turn: _Optional[bool] = ..., group: _Optional[_Union[_common_pb2.GroupChoice, _Mapping]] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ("clank", "alien", "clank_legacy", "json")
    CLANK_FIELD_NUMBER: _ClassVar[int]
    ALIEN_FIELD_NUMBER: _ClassVar[int]
    CLANK_LEGACY_FIELD_NUMBER: _ClassVar[int]
    JSON_FIELD_NUMBER: _ClassVar[int]
    clank: _clank_pb2.ClankObservation
    alien: _alien_pb2.AlienObservation
    clank_legacy: _clank_legacy_pb2.ClankLegacyObservation
    json: str
    def __init__(self, clank: _Optional[_Union[_clank_pb2.ClankObservation, _Mapping]] = ..., alien: _Optional[_Union[_alien_pb2.AlienObservation, _Mapping]] = ..., clank_legacy: _Optional[_Union[_clank_legacy_pb2.ClankLegacyObservation, _Mapping]] = ..., json: _Optional[str] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("decision_id", "seat", "kind", "prompt", "observation", "legal_actions", "context", "deadline_ms", "time_bank_ms", "strikes", "cpu_deadline_ms", "cpu_bank_ms")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    CPU_DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    CPU_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    decision_id: int
    seat: int
    kind: str
    prompt: str
    observation: Observation
    legal_actions: _containers.RepeatedCompositeFieldContainer[_common_pb2.LegalAction]
    context: DecisionContext
    deadline_ms: int
    time_bank_ms: int
    strikes: int
    cpu_deadline_ms: int
    cpu_bank_ms: int
    def __init__(self, decision_id: _Optional[int] = ..., seat: _Optional[int] = ..., kind: _Optional[str] = ..., prompt: _Optional[str] = ..., observation: _Optional[_Union[Observation, _Mapping]] = ..., legal_actions: _Optional[_Iterable[_Union[_common_pb2.LegalAction, _Mapping]]] = ..., context: _Optional[_Union[DecisionContext, _Mapping]] = ..., deadline_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ..., strikes: _Optional[int] = ..., cpu_deadline_ms: _Optional[int] = ..., cpu_bank_ms: _Optional[int] = ...) -> None: ...

class Answer(_message.Message):
    __slots__ = ("decision_id", "index", "note")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    decision_id: int
    index: int
    note: str
    def __init__(self, decision_id: _Optional[int] = ..., index: _Optional[int] = ..., note: _Optional[str] = ...) -> None: ...

class Notice(_message.Message):
    __slots__ = ("kind", "decision_id", "code", "message", "strikes", "max_strikes", "default_index")
    class Kind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        KIND_UNSPECIFIED: _ClassVar[Notice.Kind]
        TIMEOUT: _ClassVar[Notice.Kind]
        REJECTED: _ClassVar[Notice.Kind]
        LATE: _ClassVar[Notice.Kind]
        FORFEIT: _ClassVar[Notice.Kind]
    KIND_UNSPECIFIED: Notice.Kind
    TIMEOUT: Notice.Kind
    REJECTED: Notice.Kind
    LATE: Notice.Kind
    FORFEIT: Notice.Kind
    KIND_FIELD_NUMBER: _ClassVar[int]
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    MAX_STRIKES_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_INDEX_FIELD_NUMBER: _ClassVar[int]
    kind: Notice.Kind
    decision_id: int
    code: str
    message: str
    strikes: int
    max_strikes: int
    default_index: int
    def __init__(self, kind: _Optional[_Union[Notice.Kind, str]] = ..., decision_id: _Optional[int] = ..., code: _Optional[str] = ..., message: _Optional[str] = ..., strikes: _Optional[int] = ..., max_strikes: _Optional[int] = ..., default_index: _Optional[int] = ...) -> None: ...

class GameEnd(_message.Message):
    __slots__ = ("result", "forfeited", "reason")
    RESULT_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    result: _common_pb2.GameResult
    forfeited: bool
    reason: str
    def __init__(self, result: _Optional[_Union[_common_pb2.GameResult, _Mapping]] = ..., forfeited: _Optional[bool] = ..., reason: _Optional[str] = ...) -> None: ...
