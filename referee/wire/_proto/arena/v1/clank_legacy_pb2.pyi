from . import clank_pb2 as _clank_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ClankLegacyObservation(_message.Message):
    __slots__ = ("base", "campaign_game", "contracts", "patron", "franchise_abilities", "dragon_marker", "campaign_json")
    BASE_FIELD_NUMBER: _ClassVar[int]
    CAMPAIGN_GAME_FIELD_NUMBER: _ClassVar[int]
    CONTRACTS_FIELD_NUMBER: _ClassVar[int]
    PATRON_FIELD_NUMBER: _ClassVar[int]
    FRANCHISE_ABILITIES_FIELD_NUMBER: _ClassVar[int]
    DRAGON_MARKER_FIELD_NUMBER: _ClassVar[int]
    CAMPAIGN_JSON_FIELD_NUMBER: _ClassVar[int]
    base: _clank_pb2.ClankObservation
    campaign_game: int
    contracts: _containers.RepeatedScalarFieldContainer[str]
    patron: str
    franchise_abilities: _containers.RepeatedScalarFieldContainer[str]
    dragon_marker: int
    campaign_json: str
    def __init__(self, base: _Optional[_Union[_clank_pb2.ClankObservation, _Mapping]] = ..., campaign_game: _Optional[int] = ..., contracts: _Optional[_Iterable[str]] = ..., patron: _Optional[str] = ..., franchise_abilities: _Optional[_Iterable[str]] = ..., dragon_marker: _Optional[int] = ..., campaign_json: _Optional[str] = ...) -> None: ...
