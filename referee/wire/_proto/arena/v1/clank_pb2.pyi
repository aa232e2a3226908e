from . import options_pb2 as _options_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ClankObservation(_message.Message):
    __slots__ = ("game", "seat", "step", "round", "current", "over", "board", "you", "players", "pool", "pending", "row", "dungeon_deck_size", "dungeon_discard", "reserve", "market", "crowns_sold", "mastery_left", "rage", "rage_draws", "bag", "clank_area", "artifacts", "minor_secrets", "major_secrets", "idols", "countdown", "countdown_seat", "last_attack")
    class ReserveEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class MarketEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class ArtifactsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class MinorSecretsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class MajorSecretsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    CURRENT_FIELD_NUMBER: _ClassVar[int]
    OVER_FIELD_NUMBER: _ClassVar[int]
    BOARD_FIELD_NUMBER: _ClassVar[int]
    YOU_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    ROW_FIELD_NUMBER: _ClassVar[int]
    DUNGEON_DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    DUNGEON_DISCARD_FIELD_NUMBER: _ClassVar[int]
    RESERVE_FIELD_NUMBER: _ClassVar[int]
    MARKET_FIELD_NUMBER: _ClassVar[int]
    CROWNS_SOLD_FIELD_NUMBER: _ClassVar[int]
    MASTERY_LEFT_FIELD_NUMBER: _ClassVar[int]
    RAGE_FIELD_NUMBER: _ClassVar[int]
    RAGE_DRAWS_FIELD_NUMBER: _ClassVar[int]
    BAG_FIELD_NUMBER: _ClassVar[int]
    CLANK_AREA_FIELD_NUMBER: _ClassVar[int]
    ARTIFACTS_FIELD_NUMBER: _ClassVar[int]
    MINOR_SECRETS_FIELD_NUMBER: _ClassVar[int]
    MAJOR_SECRETS_FIELD_NUMBER: _ClassVar[int]
    IDOLS_FIELD_NUMBER: _ClassVar[int]
    COUNTDOWN_FIELD_NUMBER: _ClassVar[int]
    COUNTDOWN_SEAT_FIELD_NUMBER: _ClassVar[int]
    LAST_ATTACK_FIELD_NUMBER: _ClassVar[int]
    game: str
    seat: int
    step: int
    round: int
    current: int
    over: bool
    board: str
    you: ClankYou
    players: _containers.RepeatedCompositeFieldContainer[ClankPlayer]
    pool: ClankPool
    pending: ClankPending
    row: _containers.RepeatedScalarFieldContainer[str]
    dungeon_deck_size: int
    dungeon_discard: _containers.RepeatedScalarFieldContainer[str]
    reserve: _containers.ScalarMap[str, int]
    market: _containers.ScalarMap[str, int]
    crowns_sold: int
    mastery_left: int
    rage: int
    rage_draws: int
    bag: ClankBag
    clank_area: _containers.RepeatedScalarFieldContainer[int]
    artifacts: _containers.ScalarMap[str, int]
    minor_secrets: _containers.ScalarMap[str, int]
    major_secrets: _containers.ScalarMap[str, int]
    idols: _containers.RepeatedScalarFieldContainer[str]
    countdown: int
    countdown_seat: int
    last_attack: ClankAttack
    def __init__(self, game: _Optional[str] = ..., seat: _Optional[int] = ..., step: _Optional[int] = ..., round: _Optional[int] = ..., current: _Optional[int] = ..., over: _Optional[bool] = ..., board: _Optional[str] = ..., you: _Optional[_Union[ClankYou, _Mapping]] = ..., players: _Optional[_Iterable[_Union[ClankPlayer, _Mapping]]] = ..., pool: _Optional[_Union[ClankPool, _Mapping]] = ..., pending: _Optional[_Union[ClankPending, _Mapping]] = ..., row: _Optional[_Iterable[str]] = ..., dungeon_deck_size: _Optional[int] = ..., dungeon_discard: _Optional[_Iterable[str]] = ..., reserve: _Optional[_Mapping[str, int]] = ..., market: _Optional[_Mapping[str, int]] = ..., crowns_sold: _Optional[int] = ..., mastery_left: _Optional[int] = ..., rage: _Optional[int] = ..., rage_draws: _Optional[int] = ..., bag: _Optional[_Union[ClankBag, _Mapping]] = ..., clank_area: _Optional[_Iterable[int]] = ..., artifacts: _Optional[_Mapping[str, int]] = ..., minor_secrets: _Optional[_Mapping[str, int]] = ..., major_secrets: _Optional[_Mapping[str, int]] = ..., idols: _Optional[_Iterable[str]] = ..., countdown: _Optional[int] = ..., countdown_seat: _Optional[int] = ..., last_attack: _Optional[_Union[ClankAttack, _Mapping]] = ...) -> None: ...

class ClankYou(_message.Message):
    __slots__ = ("hand", "deck_contents", "may_take")
    class DeckContentsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    HAND_FIELD_NUMBER: _ClassVar[int]
    DECK_CONTENTS_FIELD_NUMBER: _ClassVar[int]
    MAY_TAKE_FIELD_NUMBER: _ClassVar[int]
    hand: _containers.RepeatedScalarFieldContainer[str]
    deck_contents: _containers.ScalarMap[str, int]
    may_take: bool
    def __init__(self, hand: _Optional[_Iterable[str]] = ..., deck_contents: _Optional[_Mapping[str, int]] = ..., may_take: _Optional[bool] = ...) -> None: ...

class ClankPlayer(_message.Message):
    __slots__ = ("seat", "room", "status", "forfeited", "damage", "health", "supply", "gold", "artifacts", "items", "idols", "secrets", "potions", "mastery", "hand_size", "deck_size", "play", "discard", "trashed", "clank_area", "bag_cubes")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ROOM_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_FIELD_NUMBER: _ClassVar[int]
    DAMAGE_FIELD_NUMBER: _ClassVar[int]
    HEALTH_FIELD_NUMBER: _ClassVar[int]
    SUPPLY_FIELD_NUMBER: _ClassVar[int]
    GOLD_FIELD_NUMBER: _ClassVar[int]
    ARTIFACTS_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    IDOLS_FIELD_NUMBER: _ClassVar[int]
    SECRETS_FIELD_NUMBER: _ClassVar[int]
    POTIONS_FIELD_NUMBER: _ClassVar[int]
    MASTERY_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    TRASHED_FIELD_NUMBER: _ClassVar[int]
    CLANK_AREA_FIELD_NUMBER: _ClassVar[int]
    BAG_CUBES_FIELD_NUMBER: _ClassVar[int]
    seat: int
    room: str
    status: str
    forfeited: bool
    damage: int
    health: int
    supply: int
    gold: int
    artifacts: _containers.RepeatedScalarFieldContainer[int]
    items: _containers.RepeatedScalarFieldContainer[str]
    idols: int
    secrets: _containers.RepeatedScalarFieldContainer[str]
    potions: _containers.RepeatedScalarFieldContainer[str]
    mastery: bool
    hand_size: int
    deck_size: int
    play: _containers.RepeatedScalarFieldContainer[str]
    discard: _containers.RepeatedScalarFieldContainer[str]
    trashed: int
    clank_area: int
    bag_cubes: int
    def __init__(self, seat: _Optional[int] = ..., room: _Optional[str] = ..., status: _Optional[str] = ..., forfeited: _Optional[bool] = ..., damage: _Optional[int] = ..., health: _Optional[int] = ..., supply: _Optional[int] = ..., gold: _Optional[int] = ..., artifacts: _Optional[_Iterable[int]] = ..., items: _Optional[_Iterable[str]] = ..., idols: _Optional[int] = ..., secrets: _Optional[_Iterable[str]] = ..., potions: _Optional[_Iterable[str]] = ..., mastery: _Optional[bool] = ..., hand_size: _Optional[int] = ..., deck_size: _Optional[int] = ..., play: _Optional[_Iterable[str]] = ..., discard: _Optional[_Iterable[str]] = ..., trashed: _Optional[int] = ..., clank_area: _Optional[int] = ..., bag_cubes: _Optional[int] = ...) -> None: ...

class ClankPool(_message.Message):
    __slots__ = ("skill", "swords", "boots", "teleports", "negative_clank", "exhausted")
    SKILL_FIELD_NUMBER: _ClassVar[int]
    SWORDS_FIELD_NUMBER: _ClassVar[int]
    BOOTS_FIELD_NUMBER: _ClassVar[int]
    TELEPORTS_FIELD_NUMBER: _ClassVar[int]
    NEGATIVE_CLANK_FIELD_NUMBER: _ClassVar[int]
    EXHAUSTED_FIELD_NUMBER: _ClassVar[int]
    skill: int
    swords: int
    boots: int
    teleports: int
    negative_clank: int
    exhausted: bool
    def __init__(self, skill: _Optional[int] = ..., swords: _Optional[int] = ..., boots: _Optional[int] = ..., teleports: _Optional[int] = ..., negative_clank: _Optional[int] = ..., exhausted: _Optional[bool] = ...) -> None: ...

class ClankEffect(_message.Message):
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
    then: _containers.RepeatedCompositeFieldContainer[ClankEffect]
    options: _containers.RepeatedCompositeFieldContainer[ClankEffectList]
    def __init__(self, op: _Optional[str] = ..., n: _Optional[int] = ..., cond: _Optional[str] = ..., arg: _Optional[str] = ..., then: _Optional[_Iterable[_Union[ClankEffect, _Mapping]]] = ..., options: _Optional[_Iterable[_Union[ClankEffectList, _Mapping]]] = ...) -> None: ...

class ClankEffectList(_message.Message):
    __slots__ = ("effects",)
    EFFECTS_FIELD_NUMBER: _ClassVar[int]
    effects: _containers.RepeatedCompositeFieldContainer[ClankEffect]
    def __init__(self, effects: _Optional[_Iterable[_Union[ClankEffect, _Mapping]]] = ...) -> None: ...

class ClankPending(_message.Message):
    __slots__ = ("kind", "seat", "prompt", "options", "then")
    KIND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    THEN_FIELD_NUMBER: _ClassVar[int]
    kind: str
    seat: int
    prompt: str
    options: _containers.RepeatedCompositeFieldContainer[ClankEffectList]
    then: _containers.RepeatedCompositeFieldContainer[ClankEffect]
    def __init__(self, kind: _Optional[str] = ..., seat: _Optional[int] = ..., prompt: _Optional[str] = ..., options: _Optional[_Iterable[_Union[ClankEffectList, _Mapping]]] = ..., then: _Optional[_Iterable[_Union[ClankEffect, _Mapping]]] = ...) -> None: ...

class ClankBag(_message.Message):
    __slots__ = ("black", "cubes")
    BLACK_FIELD_NUMBER: _ClassVar[int]
    CUBES_FIELD_NUMBER: _ClassVar[int]
    black: int
    cubes: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, black: _Optional[int] = ..., cubes: _Optional[_Iterable[int]] = ...) -> None: ...

class ClankAttack(_message.Message):
    __slots__ = ("reason", "round", "cubes", "black", "damage", "drawn")
    REASON_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    CUBES_FIELD_NUMBER: _ClassVar[int]
    BLACK_FIELD_NUMBER: _ClassVar[int]
    DAMAGE_FIELD_NUMBER: _ClassVar[int]
    DRAWN_FIELD_NUMBER: _ClassVar[int]
    reason: str
    round: int
    cubes: int
    black: int
    damage: _containers.RepeatedScalarFieldContainer[int]
    drawn: int
    def __init__(self, reason: _Optional[str] = ..., round: _Optional[int] = ..., cubes: _Optional[int] = ..., black: _Optional[int] = ..., damage: _Optional[_Iterable[int]] = ..., drawn: _Optional[int] = ...) -> None: ...

class ClankAction(_message.Message):
    __slots__ = ("play", "fight", "acquire", "buy_reserve", "fight_goblin", "move", "teleport", "take", "buy_item", "drink", "end_turn", "trash", "skip", "discard", "choose")
    PLAY_FIELD_NUMBER: _ClassVar[int]
    FIGHT_FIELD_NUMBER: _ClassVar[int]
    ACQUIRE_FIELD_NUMBER: _ClassVar[int]
    BUY_RESERVE_FIELD_NUMBER: _ClassVar[int]
    FIGHT_GOBLIN_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    TELEPORT_FIELD_NUMBER: _ClassVar[int]
    TAKE_FIELD_NUMBER: _ClassVar[int]
    BUY_ITEM_FIELD_NUMBER: _ClassVar[int]
    DRINK_FIELD_NUMBER: _ClassVar[int]
    END_TURN_FIELD_NUMBER: _ClassVar[int]
    TRASH_FIELD_NUMBER: _ClassVar[int]
    SKIP_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    CHOOSE_FIELD_NUMBER: _ClassVar[int]
    play: ClankPlay
    fight: ClankRowCard
    acquire: ClankRowCard
    buy_reserve: ClankBuyReserve
    fight_goblin: ClankFightGoblin
    move: ClankMove
    teleport: ClankTeleport
    take: ClankTake
    buy_item: ClankBuyItem
    drink: ClankDrink
    end_turn: ClankEndTurn
    trash: ClankTrash
    skip: ClankSkip
    discard: ClankDiscard
    choose: ClankChoose
    def __init__(self, play: _Optional[_Union[ClankPlay, _Mapping]] = ..., fight: _Optional[_Union[ClankRowCard, _Mapping]] = ..., acquire: _Optional[_Union[ClankRowCard, _Mapping]] = ..., buy_reserve: _Optional[_Union[ClankBuyReserve, _Mapping]] = ..., fight_goblin: _Optional[_Union[ClankFightGoblin, _Mapping]] = ..., move: _Optional[_Union[ClankMove, _Mapping]] = ..., teleport: _Optional[_Union[ClankTeleport, _Mapping]] = ..., take: _Optional[_Union[ClankTake, _Mapping]] = ..., buy_item: _Optional[_Union[ClankBuyItem, _Mapping]] = ..., drink: _Optional[_Union[ClankDrink, _Mapping]] = ..., end_turn: _Optional[_Union[ClankEndTurn, _Mapping]] = ..., trash: _Optional[_Union[ClankTrash, _Mapping]] = ..., skip: _Optional[_Union[ClankSkip, _Mapping]] = ..., discard: _Optional[_Union[ClankDiscard, _Mapping]] = ..., choose: _Optional[_Union[ClankChoose, _Mapping]] = ...) -> None: ...

class ClankPlay(_message.Message):
    __slots__ = ("card",)
    CARD_FIELD_NUMBER: _ClassVar[int]
    card: str
    def __init__(self, card: _Optional[str] = ...) -> None: ...

class ClankRowCard(_message.Message):
    __slots__ = ("slot", "card")
    SLOT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    slot: int
    card: str
    def __init__(self, slot: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...

class ClankBuyReserve(_message.Message):
    __slots__ = ("card",)
    CARD_FIELD_NUMBER: _ClassVar[int]
    card: str
    def __init__(self, card: _Optional[str] = ...) -> None: ...

class ClankFightGoblin(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ClankMove(_message.Message):
    __slots__ = ("tunnel_index", "swords_spent", "to_room", "damage")
    TUNNEL_INDEX_FIELD_NUMBER: _ClassVar[int]
    SWORDS_SPENT_FIELD_NUMBER: _ClassVar[int]
    TO_ROOM_FIELD_NUMBER: _ClassVar[int]
    DAMAGE_FIELD_NUMBER: _ClassVar[int]
    tunnel_index: int
    swords_spent: int
    to_room: str
    damage: int
    def __init__(self, tunnel_index: _Optional[int] = ..., swords_spent: _Optional[int] = ..., to_room: _Optional[str] = ..., damage: _Optional[int] = ...) -> None: ...

class ClankTeleport(_message.Message):
    __slots__ = ("tunnel_index", "to_room")
    TUNNEL_INDEX_FIELD_NUMBER: _ClassVar[int]
    TO_ROOM_FIELD_NUMBER: _ClassVar[int]
    tunnel_index: int
    to_room: str
    def __init__(self, tunnel_index: _Optional[int] = ..., to_room: _Optional[str] = ...) -> None: ...

class ClankTake(_message.Message):
    __slots__ = ("token",)
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    token: str
    def __init__(self, token: _Optional[str] = ...) -> None: ...

class ClankBuyItem(_message.Message):
    __slots__ = ("item",)
    ITEM_FIELD_NUMBER: _ClassVar[int]
    item: str
    def __init__(self, item: _Optional[str] = ...) -> None: ...

class ClankDrink(_message.Message):
    __slots__ = ("potion",)
    POTION_FIELD_NUMBER: _ClassVar[int]
    potion: str
    def __init__(self, potion: _Optional[str] = ...) -> None: ...

class ClankEndTurn(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ClankTrash(_message.Message):
    __slots__ = ("zone", "card")
    ZONE_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    zone: str
    card: str
    def __init__(self, zone: _Optional[str] = ..., card: _Optional[str] = ...) -> None: ...

class ClankSkip(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ClankDiscard(_message.Message):
    __slots__ = ("card",)
    CARD_FIELD_NUMBER: _ClassVar[int]
    card: str
    def __init__(self, card: _Optional[str] = ...) -> None: ...

class ClankChoose(_message.Message):
    __slots__ = ("option",)
    OPTION_FIELD_NUMBER: _ClassVar[int]
    option: int
    def __init__(self, option: _Optional[int] = ...) -> None: ...
