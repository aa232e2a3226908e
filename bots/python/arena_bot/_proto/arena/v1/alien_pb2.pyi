from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AlienObservation(_message.Message):
    __slots__ = ("game", "seat", "step", "current", "phase", "hand", "complex", "combat_zone", "hq", "players", "objective", "hive_size", "barracks_size", "strike_deck_size", "sergeants_left", "hatchery_top", "hazards_used", "attack", "recruit")
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    CURRENT_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    COMPLEX_FIELD_NUMBER: _ClassVar[int]
    COMBAT_ZONE_FIELD_NUMBER: _ClassVar[int]
    HQ_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    OBJECTIVE_FIELD_NUMBER: _ClassVar[int]
    HIVE_SIZE_FIELD_NUMBER: _ClassVar[int]
    BARRACKS_SIZE_FIELD_NUMBER: _ClassVar[int]
    STRIKE_DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    SERGEANTS_LEFT_FIELD_NUMBER: _ClassVar[int]
    HATCHERY_TOP_FIELD_NUMBER: _ClassVar[int]
    HAZARDS_USED_FIELD_NUMBER: _ClassVar[int]
    ATTACK_FIELD_NUMBER: _ClassVar[int]
    RECRUIT_FIELD_NUMBER: _ClassVar[int]
    game: str
    seat: int
    step: int
    current: int
    phase: str
    hand: _containers.RepeatedScalarFieldContainer[str]
    complex: _containers.RepeatedCompositeFieldContainer[AlienRoom]
    combat_zone: _containers.RepeatedScalarFieldContainer[str]
    hq: _containers.RepeatedScalarFieldContainer[str]
    players: _containers.RepeatedCompositeFieldContainer[AlienPlayer]
    objective: int
    hive_size: int
    barracks_size: int
    strike_deck_size: int
    sergeants_left: int
    hatchery_top: str
    hazards_used: int
    attack: int
    recruit: int
    def __init__(self, game: _Optional[str] = ..., seat: _Optional[int] = ..., step: _Optional[int] = ..., current: _Optional[int] = ..., phase: _Optional[str] = ..., hand: _Optional[_Iterable[str]] = ..., complex: _Optional[_Iterable[_Union[AlienRoom, _Mapping]]] = ..., combat_zone: _Optional[_Iterable[str]] = ..., hq: _Optional[_Iterable[str]] = ..., players: _Optional[_Iterable[_Union[AlienPlayer, _Mapping]]] = ..., objective: _Optional[int] = ..., hive_size: _Optional[int] = ..., barracks_size: _Optional[int] = ..., strike_deck_size: _Optional[int] = ..., sergeants_left: _Optional[int] = ..., hatchery_top: _Optional[str] = ..., hazards_used: _Optional[int] = ..., attack: _Optional[int] = ..., recruit: _Optional[int] = ...) -> None: ...

class AlienRoom(_message.Message):
    __slots__ = ("occupied", "face_up", "card", "scan_cost")
    OCCUPIED_FIELD_NUMBER: _ClassVar[int]
    FACE_UP_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    SCAN_COST_FIELD_NUMBER: _ClassVar[int]
    occupied: bool
    face_up: bool
    card: str
    scan_cost: int
    def __init__(self, occupied: _Optional[bool] = ..., face_up: _Optional[bool] = ..., card: _Optional[str] = ..., scan_cost: _Optional[int] = ...) -> None: ...

class AlienPlayer(_message.Message):
    __slots__ = ("seat", "role", "health", "damage", "alive", "hand_size", "play", "discard", "vigilant", "facehuggers")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    HEALTH_FIELD_NUMBER: _ClassVar[int]
    DAMAGE_FIELD_NUMBER: _ClassVar[int]
    ALIVE_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    VIGILANT_FIELD_NUMBER: _ClassVar[int]
    FACEHUGGERS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    role: str
    health: int
    damage: int
    alive: bool
    hand_size: int
    play: _containers.RepeatedScalarFieldContainer[str]
    discard: _containers.RepeatedScalarFieldContainer[str]
    vigilant: _containers.RepeatedScalarFieldContainer[str]
    facehuggers: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, seat: _Optional[int] = ..., role: _Optional[str] = ..., health: _Optional[int] = ..., damage: _Optional[int] = ..., alive: _Optional[bool] = ..., hand_size: _Optional[int] = ..., play: _Optional[_Iterable[str]] = ..., discard: _Optional[_Iterable[str]] = ..., vigilant: _Optional[_Iterable[str]] = ..., facehuggers: _Optional[_Iterable[str]] = ...) -> None: ...
