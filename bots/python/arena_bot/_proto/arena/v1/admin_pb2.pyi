from . import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SeatSpec(_message.Message):
    __slots__ = ("name", "bot_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    BOT_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    bot_id: int
    def __init__(self, name: _Optional[str] = ..., bot_id: _Optional[int] = ...) -> None: ...

class CreateMatchRequest(_message.Message):
    __slots__ = ("game", "seats", "seed", "config_json", "time_control", "match_id", "engine_version")
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    CONFIG_JSON_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    ENGINE_VERSION_FIELD_NUMBER: _ClassVar[int]
    game: str
    seats: _containers.RepeatedCompositeFieldContainer[SeatSpec]
    seed: int
    config_json: str
    time_control: _common_pb2.TimeControl
    match_id: str
    engine_version: str
    def __init__(self, game: _Optional[str] = ..., seats: _Optional[_Iterable[_Union[SeatSpec, _Mapping]]] = ..., seed: _Optional[int] = ..., config_json: _Optional[str] = ..., time_control: _Optional[_Union[_common_pb2.TimeControl, _Mapping]] = ..., match_id: _Optional[str] = ..., engine_version: _Optional[str] = ...) -> None: ...

class CreateMatchResponse(_message.Message):
    __slots__ = ("match_id", "seat_tokens")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat_tokens: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, match_id: _Optional[str] = ..., seat_tokens: _Optional[_Iterable[str]] = ...) -> None: ...

class GetMatchRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class MatchStatus(_message.Message):
    __slots__ = ("match_id", "state", "game", "decisions", "result", "ended_by", "seats")
    class State(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        STATE_UNSPECIFIED: _ClassVar[MatchStatus.State]
        WAITING: _ClassVar[MatchStatus.State]
        RUNNING: _ClassVar[MatchStatus.State]
        FINISHED: _ClassVar[MatchStatus.State]
    STATE_UNSPECIFIED: MatchStatus.State
    WAITING: MatchStatus.State
    RUNNING: MatchStatus.State
    FINISHED: MatchStatus.State
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    ENDED_BY_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    state: MatchStatus.State
    game: str
    decisions: int
    result: _common_pb2.GameResult
    ended_by: str
    seats: _containers.RepeatedCompositeFieldContainer[SeatStatus]
    def __init__(self, match_id: _Optional[str] = ..., state: _Optional[_Union[MatchStatus.State, str]] = ..., game: _Optional[str] = ..., decisions: _Optional[int] = ..., result: _Optional[_Union[_common_pb2.GameResult, _Mapping]] = ..., ended_by: _Optional[str] = ..., seats: _Optional[_Iterable[_Union[SeatStatus, _Mapping]]] = ...) -> None: ...

class SeatStatus(_message.Message):
    __slots__ = ("seat", "name", "connected", "forfeited", "forfeit_reason", "strikes", "bank_ms", "cpu_bank_ms", "cpu_metered")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_FIELD_NUMBER: _ClassVar[int]
    FORFEIT_REASON_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    CPU_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    CPU_METERED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    name: str
    connected: bool
    forfeited: bool
    forfeit_reason: str
    strikes: int
    bank_ms: int
    cpu_bank_ms: int
    cpu_metered: bool
    def __init__(self, seat: _Optional[int] = ..., name: _Optional[str] = ..., connected: _Optional[bool] = ..., forfeited: _Optional[bool] = ..., forfeit_reason: _Optional[str] = ..., strikes: _Optional[int] = ..., bank_ms: _Optional[int] = ..., cpu_bank_ms: _Optional[int] = ..., cpu_metered: _Optional[bool] = ...) -> None: ...

class MatchEvent(_message.Message):
    __slots__ = ("sequence", "connected", "action", "strike", "forfeit", "ended")
    SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    STRIKE_FIELD_NUMBER: _ClassVar[int]
    FORFEIT_FIELD_NUMBER: _ClassVar[int]
    ENDED_FIELD_NUMBER: _ClassVar[int]
    sequence: int
    connected: SeatConnected
    action: ActionPlayed
    strike: StrikeGiven
    forfeit: SeatForfeited
    ended: MatchEnded
    def __init__(self, sequence: _Optional[int] = ..., connected: _Optional[_Union[SeatConnected, _Mapping]] = ..., action: _Optional[_Union[ActionPlayed, _Mapping]] = ..., strike: _Optional[_Union[StrikeGiven, _Mapping]] = ..., forfeit: _Optional[_Union[SeatForfeited, _Mapping]] = ..., ended: _Optional[_Union[MatchEnded, _Mapping]] = ...) -> None: ...

class SeatConnected(_message.Message):
    __slots__ = ("seat", "bot_name")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    seat: int
    bot_name: str
    def __init__(self, seat: _Optional[int] = ..., bot_name: _Optional[str] = ...) -> None: ...

class ActionPlayed(_message.Message):
    __slots__ = ("decision_id", "seat", "index", "text", "millis", "reason", "cpu_ms")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    MILLIS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    CPU_MS_FIELD_NUMBER: _ClassVar[int]
    decision_id: int
    seat: int
    index: int
    text: str
    millis: int
    reason: str
    cpu_ms: int
    def __init__(self, decision_id: _Optional[int] = ..., seat: _Optional[int] = ..., index: _Optional[int] = ..., text: _Optional[str] = ..., millis: _Optional[int] = ..., reason: _Optional[str] = ..., cpu_ms: _Optional[int] = ...) -> None: ...

class StrikeGiven(_message.Message):
    __slots__ = ("seat", "decision_id", "reason", "strikes")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    seat: int
    decision_id: int
    reason: str
    strikes: int
    def __init__(self, seat: _Optional[int] = ..., decision_id: _Optional[int] = ..., reason: _Optional[str] = ..., strikes: _Optional[int] = ...) -> None: ...

class SeatForfeited(_message.Message):
    __slots__ = ("seat", "reason")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    seat: int
    reason: str
    def __init__(self, seat: _Optional[int] = ..., reason: _Optional[str] = ...) -> None: ...

class MatchEnded(_message.Message):
    __slots__ = ("result", "ended_by")
    RESULT_FIELD_NUMBER: _ClassVar[int]
    ENDED_BY_FIELD_NUMBER: _ClassVar[int]
    result: _common_pb2.GameResult
    ended_by: str
    def __init__(self, result: _Optional[_Union[_common_pb2.GameResult, _Mapping]] = ..., ended_by: _Optional[str] = ...) -> None: ...

class Replay(_message.Message):
    __slots__ = ("match_id", "data")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    data: bytes
    def __init__(self, match_id: _Optional[str] = ..., data: _Optional[bytes] = ...) -> None: ...

class ListBotsRequest(_message.Message):
    __slots__ = ("bot_id",)
    BOT_ID_FIELD_NUMBER: _ClassVar[int]
    bot_id: int
    def __init__(self, bot_id: _Optional[int] = ...) -> None: ...

class ListBotsResponse(_message.Message):
    __slots__ = ("bots",)
    BOTS_FIELD_NUMBER: _ClassVar[int]
    bots: _containers.RepeatedCompositeFieldContainer[LobbyBot]
    def __init__(self, bots: _Optional[_Iterable[_Union[LobbyBot, _Mapping]]] = ...) -> None: ...

class LobbyBot(_message.Message):
    __slots__ = ("bot_id", "name", "bot_name", "connection_id", "connected_at_ms", "games", "match_id", "queued")
    BOT_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    CONNECTION_ID_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    QUEUED_FIELD_NUMBER: _ClassVar[int]
    bot_id: int
    name: str
    bot_name: str
    connection_id: str
    connected_at_ms: int
    games: int
    match_id: str
    queued: int
    def __init__(self, bot_id: _Optional[int] = ..., name: _Optional[str] = ..., bot_name: _Optional[str] = ..., connection_id: _Optional[str] = ..., connected_at_ms: _Optional[int] = ..., games: _Optional[int] = ..., match_id: _Optional[str] = ..., queued: _Optional[int] = ...) -> None: ...

class CancelMatchRequest(_message.Message):
    __slots__ = ("match_id", "reason")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    reason: str
    def __init__(self, match_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...
