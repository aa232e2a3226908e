from . import options_pb2 as _options_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AlienObservation(_message.Message):
    __slots__ = ("game", "seat", "step", "turn", "round", "current", "phase", "over", "won", "you", "players", "pool", "to_act", "pending", "complex", "scan_costs", "combat", "facehuggers", "strike_queue", "strike_log", "hq", "barracks_size", "hive_size", "strike_deck_size", "strike_discard", "sergeants_size", "hatchery_top", "hatchery_size", "chestbursters_left", "location", "hazards_used", "objective", "objective_id", "met", "hive_discard", "dead_enemies", "dead_characters")
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    CURRENT_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    OVER_FIELD_NUMBER: _ClassVar[int]
    WON_FIELD_NUMBER: _ClassVar[int]
    YOU_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    COMPLEX_FIELD_NUMBER: _ClassVar[int]
    SCAN_COSTS_FIELD_NUMBER: _ClassVar[int]
    COMBAT_FIELD_NUMBER: _ClassVar[int]
    FACEHUGGERS_FIELD_NUMBER: _ClassVar[int]
    STRIKE_QUEUE_FIELD_NUMBER: _ClassVar[int]
    STRIKE_LOG_FIELD_NUMBER: _ClassVar[int]
    HQ_FIELD_NUMBER: _ClassVar[int]
    BARRACKS_SIZE_FIELD_NUMBER: _ClassVar[int]
    HIVE_SIZE_FIELD_NUMBER: _ClassVar[int]
    STRIKE_DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    STRIKE_DISCARD_FIELD_NUMBER: _ClassVar[int]
    SERGEANTS_SIZE_FIELD_NUMBER: _ClassVar[int]
    HATCHERY_TOP_FIELD_NUMBER: _ClassVar[int]
    HATCHERY_SIZE_FIELD_NUMBER: _ClassVar[int]
    CHESTBURSTERS_LEFT_FIELD_NUMBER: _ClassVar[int]
    LOCATION_FIELD_NUMBER: _ClassVar[int]
    HAZARDS_USED_FIELD_NUMBER: _ClassVar[int]
    OBJECTIVE_FIELD_NUMBER: _ClassVar[int]
    OBJECTIVE_ID_FIELD_NUMBER: _ClassVar[int]
    MET_FIELD_NUMBER: _ClassVar[int]
    HIVE_DISCARD_FIELD_NUMBER: _ClassVar[int]
    DEAD_ENEMIES_FIELD_NUMBER: _ClassVar[int]
    DEAD_CHARACTERS_FIELD_NUMBER: _ClassVar[int]
    game: str
    seat: int
    step: int
    turn: int
    round: int
    current: int
    phase: str
    over: bool
    won: bool
    you: AlienYou
    players: _containers.RepeatedCompositeFieldContainer[AlienPlayer]
    pool: AlienPool
    to_act: AlienToAct
    pending: AlienPending
    complex: _containers.RepeatedCompositeFieldContainer[AlienRoom]
    scan_costs: _containers.RepeatedScalarFieldContainer[int]
    combat: _containers.RepeatedScalarFieldContainer[str]
    facehuggers: _containers.RepeatedCompositeFieldContainer[AlienFacehugger]
    strike_queue: _containers.RepeatedScalarFieldContainer[str]
    strike_log: _containers.RepeatedCompositeFieldContainer[AlienStrike]
    hq: _containers.RepeatedScalarFieldContainer[str]
    barracks_size: int
    hive_size: int
    strike_deck_size: int
    strike_discard: _containers.RepeatedScalarFieldContainer[str]
    sergeants_size: int
    hatchery_top: str
    hatchery_size: int
    chestbursters_left: int
    location: str
    hazards_used: int
    objective: int
    objective_id: str
    met: _containers.RepeatedScalarFieldContainer[bool]
    hive_discard: _containers.RepeatedScalarFieldContainer[str]
    dead_enemies: _containers.RepeatedScalarFieldContainer[str]
    dead_characters: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, game: _Optional[str] = ..., seat: _Optional[int] = ..., step: _Optional[int] = ..., turn: _Optional[int] = ..., round: _Optional[int] = ..., current: _Optional[int] = ..., phase: _Optional[str] = ..., over: _Optional[bool] = ..., won: _Optional[bool] = ..., you: _Optional[_Union[AlienYou, _Mapping]] = ..., players: _Optional[_Iterable[_Union[AlienPlayer, _Mapping]]] = ..., pool: _Optional[_Union[AlienPool, _Mapping]] = ..., to_act: _Optional[_Union[AlienToAct, _Mapping]] = ..., pending: _Optional[_Union[AlienPending, _Mapping]] = ..., complex: _Optional[_Iterable[_Union[AlienRoom, _Mapping]]] = ..., scan_costs: _Optional[_Iterable[int]] = ..., combat: _Optional[_Iterable[str]] = ..., facehuggers: _Optional[_Iterable[_Union[AlienFacehugger, _Mapping]]] = ..., strike_queue: _Optional[_Iterable[str]] = ..., strike_log: _Optional[_Iterable[_Union[AlienStrike, _Mapping]]] = ..., hq: _Optional[_Iterable[str]] = ..., barracks_size: _Optional[int] = ..., hive_size: _Optional[int] = ..., strike_deck_size: _Optional[int] = ..., strike_discard: _Optional[_Iterable[str]] = ..., sergeants_size: _Optional[int] = ..., hatchery_top: _Optional[str] = ..., hatchery_size: _Optional[int] = ..., chestbursters_left: _Optional[int] = ..., location: _Optional[str] = ..., hazards_used: _Optional[int] = ..., objective: _Optional[int] = ..., objective_id: _Optional[str] = ..., met: _Optional[_Iterable[bool]] = ..., hive_discard: _Optional[_Iterable[str]] = ..., dead_enemies: _Optional[_Iterable[str]] = ..., dead_characters: _Optional[_Iterable[str]] = ...) -> None: ...

class AlienYou(_message.Message):
    __slots__ = ("hand", "deck_contents")
    class DeckContentsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    HAND_FIELD_NUMBER: _ClassVar[int]
    DECK_CONTENTS_FIELD_NUMBER: _ClassVar[int]
    hand: _containers.RepeatedScalarFieldContainer[str]
    deck_contents: _containers.ScalarMap[str, int]
    def __init__(self, hand: _Optional[_Iterable[str]] = ..., deck_contents: _Optional[_Mapping[str, int]] = ...) -> None: ...

class AlienPlayer(_message.Message):
    __slots__ = ("seat", "role", "status", "forfeited", "health", "damage", "health_left", "strikes", "hand_size", "deck_size", "play", "once_used", "vigilant", "set_aside", "discard")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_FIELD_NUMBER: _ClassVar[int]
    HEALTH_FIELD_NUMBER: _ClassVar[int]
    DAMAGE_FIELD_NUMBER: _ClassVar[int]
    HEALTH_LEFT_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    ONCE_USED_FIELD_NUMBER: _ClassVar[int]
    VIGILANT_FIELD_NUMBER: _ClassVar[int]
    SET_ASIDE_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    role: str
    status: str
    forfeited: bool
    health: int
    damage: int
    health_left: int
    strikes: _containers.RepeatedScalarFieldContainer[str]
    hand_size: int
    deck_size: int
    play: _containers.RepeatedScalarFieldContainer[str]
    once_used: _containers.RepeatedScalarFieldContainer[bool]
    vigilant: _containers.RepeatedScalarFieldContainer[str]
    set_aside: _containers.RepeatedScalarFieldContainer[str]
    discard: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, seat: _Optional[int] = ..., role: _Optional[str] = ..., status: _Optional[str] = ..., forfeited: _Optional[bool] = ..., health: _Optional[int] = ..., damage: _Optional[int] = ..., health_left: _Optional[int] = ..., strikes: _Optional[_Iterable[str]] = ..., hand_size: _Optional[int] = ..., deck_size: _Optional[int] = ..., play: _Optional[_Iterable[str]] = ..., once_used: _Optional[_Iterable[bool]] = ..., vigilant: _Optional[_Iterable[str]] = ..., set_aside: _Optional[_Iterable[str]] = ..., discard: _Optional[_Iterable[str]] = ...) -> None: ...

class AlienPool(_message.Message):
    __slots__ = ("attack", "recruit")
    ATTACK_FIELD_NUMBER: _ClassVar[int]
    RECRUIT_FIELD_NUMBER: _ClassVar[int]
    attack: int
    recruit: int
    def __init__(self, attack: _Optional[int] = ..., recruit: _Optional[int] = ...) -> None: ...

class AlienToAct(_message.Message):
    __slots__ = ("seat", "kind")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    seat: int
    kind: str
    def __init__(self, seat: _Optional[int] = ..., kind: _Optional[str] = ...) -> None: ...

class AlienEffect(_message.Message):
    __slots__ = ("op", "n", "cond", "arg", "then", "options")
    OP_FIELD_NUMBER: _ClassVar[int]
    N_FIELD_NUMBER: _ClassVar[int]
    COND_FIELD_NUMBER: _ClassVar[int]
    ARG_FIELD_NUMBER: _ClassVar[int]
    THEN_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    op: str
    n: int
    cond: str
    arg: str
    then: _containers.RepeatedCompositeFieldContainer[AlienEffect]
    options: _containers.RepeatedCompositeFieldContainer[AlienEffectList]
    def __init__(self, op: _Optional[str] = ..., n: _Optional[int] = ..., cond: _Optional[str] = ..., arg: _Optional[str] = ..., then: _Optional[_Iterable[_Union[AlienEffect, _Mapping]]] = ..., options: _Optional[_Iterable[_Union[AlienEffectList, _Mapping]]] = ...) -> None: ...

class AlienEffectList(_message.Message):
    __slots__ = ("effects",)
    EFFECTS_FIELD_NUMBER: _ClassVar[int]
    effects: _containers.RepeatedCompositeFieldContainer[AlienEffect]
    def __init__(self, effects: _Optional[_Iterable[_Union[AlienEffect, _Mapping]]] = ...) -> None: ...

class AlienPending(_message.Message):
    __slots__ = ("kind", "prompt", "options", "n")
    KIND_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    N_FIELD_NUMBER: _ClassVar[int]
    kind: str
    prompt: str
    options: _containers.RepeatedCompositeFieldContainer[AlienEffectList]
    n: int
    def __init__(self, kind: _Optional[str] = ..., prompt: _Optional[str] = ..., options: _Optional[_Iterable[_Union[AlienEffectList, _Mapping]]] = ..., n: _Optional[int] = ...) -> None: ...

class AlienRoom(_message.Message):
    __slots__ = ("card", "up", "empty")
    CARD_FIELD_NUMBER: _ClassVar[int]
    UP_FIELD_NUMBER: _ClassVar[int]
    EMPTY_FIELD_NUMBER: _ClassVar[int]
    card: str
    up: bool
    empty: bool
    def __init__(self, card: _Optional[str] = ..., up: _Optional[bool] = ..., empty: _Optional[bool] = ...) -> None: ...

class AlienFacehugger(_message.Message):
    __slots__ = ("card", "seat", "expires")
    CARD_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_FIELD_NUMBER: _ClassVar[int]
    card: str
    seat: int
    expires: int
    def __init__(self, card: _Optional[str] = ..., seat: _Optional[int] = ..., expires: _Optional[int] = ...) -> None: ...

class AlienStrike(_message.Message):
    __slots__ = ("seat", "enemy", "strike")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ENEMY_FIELD_NUMBER: _ClassVar[int]
    STRIKE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    enemy: str
    strike: str
    def __init__(self, seat: _Optional[int] = ..., enemy: _Optional[str] = ..., strike: _Optional[str] = ...) -> None: ...

class AlienAction(_message.Message):
    __slots__ = ("play", "use_once", "sacrifice", "release", "recruit", "recruit_sergeant", "scan", "fight", "complete", "ask", "end_turn", "coordinate", "discard", "choose", "scan_free", "heal_target")
    PLAY_FIELD_NUMBER: _ClassVar[int]
    USE_ONCE_FIELD_NUMBER: _ClassVar[int]
    SACRIFICE_FIELD_NUMBER: _ClassVar[int]
    RELEASE_FIELD_NUMBER: _ClassVar[int]
    RECRUIT_FIELD_NUMBER: _ClassVar[int]
    RECRUIT_SERGEANT_FIELD_NUMBER: _ClassVar[int]
    SCAN_FIELD_NUMBER: _ClassVar[int]
    FIGHT_FIELD_NUMBER: _ClassVar[int]
    COMPLETE_FIELD_NUMBER: _ClassVar[int]
    ASK_FIELD_NUMBER: _ClassVar[int]
    END_TURN_FIELD_NUMBER: _ClassVar[int]
    COORDINATE_FIELD_NUMBER: _ClassVar[int]
    PASS_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    CHOOSE_FIELD_NUMBER: _ClassVar[int]
    SCAN_FREE_FIELD_NUMBER: _ClassVar[int]
    HEAL_TARGET_FIELD_NUMBER: _ClassVar[int]
    play: AlienPlay
    use_once: AlienPlayedCard
    sacrifice: AlienPlayedCard
    release: AlienRelease
    recruit: AlienRecruit
    recruit_sergeant: AlienRecruitSergeant
    scan: AlienScan
    fight: AlienFight
    complete: AlienComplete
    ask: AlienAsk
    end_turn: AlienEndTurn
    coordinate: AlienCoordinate
    discard: AlienDiscard
    choose: AlienChoose
    scan_free: AlienScan
    heal_target: AlienHealTarget
    def __init__(self, play: _Optional[_Union[AlienPlay, _Mapping]] = ..., use_once: _Optional[_Union[AlienPlayedCard, _Mapping]] = ..., sacrifice: _Optional[_Union[AlienPlayedCard, _Mapping]] = ..., release: _Optional[_Union[AlienRelease, _Mapping]] = ..., recruit: _Optional[_Union[AlienRecruit, _Mapping]] = ..., recruit_sergeant: _Optional[_Union[AlienRecruitSergeant, _Mapping]] = ..., scan: _Optional[_Union[AlienScan, _Mapping]] = ..., fight: _Optional[_Union[AlienFight, _Mapping]] = ..., complete: _Optional[_Union[AlienComplete, _Mapping]] = ..., ask: _Optional[_Union[AlienAsk, _Mapping]] = ..., end_turn: _Optional[_Union[AlienEndTurn, _Mapping]] = ..., coordinate: _Optional[_Union[AlienCoordinate, _Mapping]] = ..., discard: _Optional[_Union[AlienDiscard, _Mapping]] = ..., choose: _Optional[_Union[AlienChoose, _Mapping]] = ..., scan_free: _Optional[_Union[AlienScan, _Mapping]] = ..., heal_target: _Optional[_Union[AlienHealTarget, _Mapping]] = ..., **kwargs) -> None: ...

class AlienPlay(_message.Message):
    __slots__ = ("card",)
    CARD_FIELD_NUMBER: _ClassVar[int]
    card: str
    def __init__(self, card: _Optional[str] = ...) -> None: ...

class AlienPlayedCard(_message.Message):
    __slots__ = ("play_index", "card")
    PLAY_INDEX_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    play_index: int
    card: str
    def __init__(self, play_index: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...

class AlienRelease(_message.Message):
    __slots__ = ("vigilant_index", "card")
    VIGILANT_INDEX_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    vigilant_index: int
    card: str
    def __init__(self, vigilant_index: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...

class AlienRecruit(_message.Message):
    __slots__ = ("hq_slot", "card")
    HQ_SLOT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    hq_slot: int
    card: str
    def __init__(self, hq_slot: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...

class AlienRecruitSergeant(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class AlienScan(_message.Message):
    __slots__ = ("room",)
    ROOM_FIELD_NUMBER: _ClassVar[int]
    room: int
    def __init__(self, room: _Optional[int] = ...) -> None: ...

class AlienFight(_message.Message):
    __slots__ = ("zone", "index", "card")
    ZONE_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    zone: str
    index: int
    card: str
    def __init__(self, zone: _Optional[str] = ..., index: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...

class AlienComplete(_message.Message):
    __slots__ = ("objective",)
    OBJECTIVE_FIELD_NUMBER: _ClassVar[int]
    objective: int
    def __init__(self, objective: _Optional[int] = ...) -> None: ...

class AlienAsk(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class AlienEndTurn(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class AlienCoordinate(_message.Message):
    __slots__ = ("card",)
    CARD_FIELD_NUMBER: _ClassVar[int]
    card: str
    def __init__(self, card: _Optional[str] = ...) -> None: ...

class AlienPass(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class AlienDiscard(_message.Message):
    __slots__ = ("card",)
    CARD_FIELD_NUMBER: _ClassVar[int]
    card: str
    def __init__(self, card: _Optional[str] = ...) -> None: ...

class AlienChoose(_message.Message):
    __slots__ = ("option",)
    OPTION_FIELD_NUMBER: _ClassVar[int]
    option: int
    def __init__(self, option: _Optional[int] = ...) -> None: ...

class AlienHealTarget(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...
