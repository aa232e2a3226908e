from . import clank_pb2 as _clank_pb2
from . import options_pb2 as _options_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ClankLegacyObservation(_message.Message):
    __slots__ = ("game", "seat", "step", "round", "current", "phase", "over", "board", "open_paths", "you", "players", "pool", "turn", "pending", "row", "adventure_deck_size", "adventure_discard", "reserve", "patrons", "contracts", "claimed_contracts", "market", "mugs_left", "rage", "rage_draws", "bag", "clank_area", "artifacts", "major_secrets", "bank", "fruit_spaces", "fruit_supply", "last_attack", "end_reason", "mvp", "prologue", "epilogue", "choices", "campaign", "campaign_now")
    class ReserveEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class ClaimedContractsEntry(_message.Message):
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
    PHASE_FIELD_NUMBER: _ClassVar[int]
    OVER_FIELD_NUMBER: _ClassVar[int]
    BOARD_FIELD_NUMBER: _ClassVar[int]
    OPEN_PATHS_FIELD_NUMBER: _ClassVar[int]
    YOU_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    ROW_FIELD_NUMBER: _ClassVar[int]
    ADVENTURE_DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    ADVENTURE_DISCARD_FIELD_NUMBER: _ClassVar[int]
    RESERVE_FIELD_NUMBER: _ClassVar[int]
    PATRONS_FIELD_NUMBER: _ClassVar[int]
    CONTRACTS_FIELD_NUMBER: _ClassVar[int]
    CLAIMED_CONTRACTS_FIELD_NUMBER: _ClassVar[int]
    MARKET_FIELD_NUMBER: _ClassVar[int]
    MUGS_LEFT_FIELD_NUMBER: _ClassVar[int]
    RAGE_FIELD_NUMBER: _ClassVar[int]
    RAGE_DRAWS_FIELD_NUMBER: _ClassVar[int]
    BAG_FIELD_NUMBER: _ClassVar[int]
    CLANK_AREA_FIELD_NUMBER: _ClassVar[int]
    ARTIFACTS_FIELD_NUMBER: _ClassVar[int]
    MAJOR_SECRETS_FIELD_NUMBER: _ClassVar[int]
    BANK_FIELD_NUMBER: _ClassVar[int]
    FRUIT_SPACES_FIELD_NUMBER: _ClassVar[int]
    FRUIT_SUPPLY_FIELD_NUMBER: _ClassVar[int]
    LAST_ATTACK_FIELD_NUMBER: _ClassVar[int]
    END_REASON_FIELD_NUMBER: _ClassVar[int]
    MVP_FIELD_NUMBER: _ClassVar[int]
    PROLOGUE_FIELD_NUMBER: _ClassVar[int]
    EPILOGUE_FIELD_NUMBER: _ClassVar[int]
    CHOICES_FIELD_NUMBER: _ClassVar[int]
    CAMPAIGN_FIELD_NUMBER: _ClassVar[int]
    CAMPAIGN_NOW_FIELD_NUMBER: _ClassVar[int]
    game: str
    seat: int
    step: int
    round: int
    current: int
    phase: str
    over: bool
    board: str
    open_paths: _containers.RepeatedScalarFieldContainer[int]
    you: ClankLegacyYou
    players: _containers.RepeatedCompositeFieldContainer[ClankLegacyPlayer]
    pool: _clank_pb2.ClankPool
    turn: ClankLegacyTurn
    pending: ClankLegacyPending
    row: _containers.RepeatedScalarFieldContainer[str]
    adventure_deck_size: int
    adventure_discard: _containers.RepeatedScalarFieldContainer[str]
    reserve: _containers.ScalarMap[str, int]
    patrons: _containers.RepeatedScalarFieldContainer[str]
    contracts: _containers.RepeatedScalarFieldContainer[str]
    claimed_contracts: _containers.ScalarMap[str, int]
    market: _containers.ScalarMap[str, int]
    mugs_left: int
    rage: int
    rage_draws: int
    bag: _clank_pb2.ClankBag
    clank_area: _containers.RepeatedScalarFieldContainer[int]
    artifacts: _containers.ScalarMap[str, int]
    major_secrets: _containers.ScalarMap[str, int]
    bank: ClankLegacyBank
    fruit_spaces: _containers.RepeatedScalarFieldContainer[str]
    fruit_supply: int
    last_attack: _clank_pb2.ClankAttack
    end_reason: str
    mvp: int
    prologue: int
    epilogue: int
    choices: _containers.RepeatedScalarFieldContainer[int]
    campaign: ClankLegacyCampaign
    campaign_now: ClankLegacyCampaign
    def __init__(self, game: _Optional[str] = ..., seat: _Optional[int] = ..., step: _Optional[int] = ..., round: _Optional[int] = ..., current: _Optional[int] = ..., phase: _Optional[str] = ..., over: _Optional[bool] = ..., board: _Optional[str] = ..., open_paths: _Optional[_Iterable[int]] = ..., you: _Optional[_Union[ClankLegacyYou, _Mapping]] = ..., players: _Optional[_Iterable[_Union[ClankLegacyPlayer, _Mapping]]] = ..., pool: _Optional[_Union[_clank_pb2.ClankPool, _Mapping]] = ..., turn: _Optional[_Union[ClankLegacyTurn, _Mapping]] = ..., pending: _Optional[_Union[ClankLegacyPending, _Mapping]] = ..., row: _Optional[_Iterable[str]] = ..., adventure_deck_size: _Optional[int] = ..., adventure_discard: _Optional[_Iterable[str]] = ..., reserve: _Optional[_Mapping[str, int]] = ..., patrons: _Optional[_Iterable[str]] = ..., contracts: _Optional[_Iterable[str]] = ..., claimed_contracts: _Optional[_Mapping[str, int]] = ..., market: _Optional[_Mapping[str, int]] = ..., mugs_left: _Optional[int] = ..., rage: _Optional[int] = ..., rage_draws: _Optional[int] = ..., bag: _Optional[_Union[_clank_pb2.ClankBag, _Mapping]] = ..., clank_area: _Optional[_Iterable[int]] = ..., artifacts: _Optional[_Mapping[str, int]] = ..., major_secrets: _Optional[_Mapping[str, int]] = ..., bank: _Optional[_Union[ClankLegacyBank, _Mapping]] = ..., fruit_spaces: _Optional[_Iterable[str]] = ..., fruit_supply: _Optional[int] = ..., last_attack: _Optional[_Union[_clank_pb2.ClankAttack, _Mapping]] = ..., end_reason: _Optional[str] = ..., mvp: _Optional[int] = ..., prologue: _Optional[int] = ..., epilogue: _Optional[int] = ..., choices: _Optional[_Iterable[int]] = ..., campaign: _Optional[_Union[ClankLegacyCampaign, _Mapping]] = ..., campaign_now: _Optional[_Union[ClankLegacyCampaign, _Mapping]] = ...) -> None: ...

class ClankLegacyYou(_message.Message):
    __slots__ = ("hand", "deck_contents", "may_take", "new_in_hand")
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
    NEW_IN_HAND_FIELD_NUMBER: _ClassVar[int]
    hand: _containers.RepeatedScalarFieldContainer[str]
    deck_contents: _containers.ScalarMap[str, int]
    may_take: bool
    new_in_hand: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, hand: _Optional[_Iterable[str]] = ..., deck_contents: _Optional[_Mapping[str, int]] = ..., may_take: _Optional[bool] = ..., new_in_hand: _Optional[_Iterable[str]] = ...) -> None: ...

class ClankLegacyPlayer(_message.Message):
    __slots__ = ("seat", "space", "status", "forfeited", "damage", "health", "supply", "gold", "artifacts", "items", "secrets", "potions", "fruit", "fruit_expended", "mug", "hand_size", "deck_size", "play", "discard", "trashed", "visited", "clank_area", "bag_cubes")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SPACE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_FIELD_NUMBER: _ClassVar[int]
    DAMAGE_FIELD_NUMBER: _ClassVar[int]
    HEALTH_FIELD_NUMBER: _ClassVar[int]
    SUPPLY_FIELD_NUMBER: _ClassVar[int]
    GOLD_FIELD_NUMBER: _ClassVar[int]
    ARTIFACTS_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    SECRETS_FIELD_NUMBER: _ClassVar[int]
    POTIONS_FIELD_NUMBER: _ClassVar[int]
    FRUIT_FIELD_NUMBER: _ClassVar[int]
    FRUIT_EXPENDED_FIELD_NUMBER: _ClassVar[int]
    MUG_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    TRASHED_FIELD_NUMBER: _ClassVar[int]
    VISITED_FIELD_NUMBER: _ClassVar[int]
    CLANK_AREA_FIELD_NUMBER: _ClassVar[int]
    BAG_CUBES_FIELD_NUMBER: _ClassVar[int]
    seat: int
    space: str
    status: str
    forfeited: bool
    damage: int
    health: int
    supply: int
    gold: int
    artifacts: _containers.RepeatedScalarFieldContainer[int]
    items: _containers.RepeatedScalarFieldContainer[str]
    secrets: _containers.RepeatedScalarFieldContainer[str]
    potions: _containers.RepeatedScalarFieldContainer[str]
    fruit: int
    fruit_expended: int
    mug: bool
    hand_size: int
    deck_size: int
    play: _containers.RepeatedScalarFieldContainer[str]
    discard: _containers.RepeatedScalarFieldContainer[str]
    trashed: int
    visited: _containers.RepeatedScalarFieldContainer[str]
    clank_area: int
    bag_cubes: int
    def __init__(self, seat: _Optional[int] = ..., space: _Optional[str] = ..., status: _Optional[str] = ..., forfeited: _Optional[bool] = ..., damage: _Optional[int] = ..., health: _Optional[int] = ..., supply: _Optional[int] = ..., gold: _Optional[int] = ..., artifacts: _Optional[_Iterable[int]] = ..., items: _Optional[_Iterable[str]] = ..., secrets: _Optional[_Iterable[str]] = ..., potions: _Optional[_Iterable[str]] = ..., fruit: _Optional[int] = ..., fruit_expended: _Optional[int] = ..., mug: _Optional[bool] = ..., hand_size: _Optional[int] = ..., deck_size: _Optional[int] = ..., play: _Optional[_Iterable[str]] = ..., discard: _Optional[_Iterable[str]] = ..., trashed: _Optional[int] = ..., visited: _Optional[_Iterable[str]] = ..., clank_area: _Optional[int] = ..., bag_cubes: _Optional[int] = ...) -> None: ...

class ClankLegacyTurn(_message.Message):
    __slots__ = ("acquired", "defeated", "patron_used", "waiting_conditions")
    ACQUIRED_FIELD_NUMBER: _ClassVar[int]
    DEFEATED_FIELD_NUMBER: _ClassVar[int]
    PATRON_USED_FIELD_NUMBER: _ClassVar[int]
    WAITING_CONDITIONS_FIELD_NUMBER: _ClassVar[int]
    acquired: int
    defeated: int
    patron_used: bool
    waiting_conditions: _containers.RepeatedCompositeFieldContainer[_clank_pb2.ClankEffectList]
    def __init__(self, acquired: _Optional[int] = ..., defeated: _Optional[int] = ..., patron_used: _Optional[bool] = ..., waiting_conditions: _Optional[_Iterable[_Union[_clank_pb2.ClankEffectList, _Mapping]]] = ...) -> None: ...

class ClankLegacyPending(_message.Message):
    __slots__ = ("kind", "seat", "prompt", "options", "then", "votes")
    KIND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    THEN_FIELD_NUMBER: _ClassVar[int]
    VOTES_FIELD_NUMBER: _ClassVar[int]
    kind: str
    seat: int
    prompt: str
    options: _containers.RepeatedCompositeFieldContainer[_clank_pb2.ClankEffectList]
    then: _containers.RepeatedCompositeFieldContainer[_clank_pb2.ClankEffect]
    votes: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, kind: _Optional[str] = ..., seat: _Optional[int] = ..., prompt: _Optional[str] = ..., options: _Optional[_Iterable[_Union[_clank_pb2.ClankEffectList, _Mapping]]] = ..., then: _Optional[_Iterable[_Union[_clank_pb2.ClankEffect, _Mapping]]] = ..., votes: _Optional[_Iterable[int]] = ...) -> None: ...

class ClankLegacyBank(_message.Message):
    __slots__ = ("minor_secrets", "major_secrets")
    MINOR_SECRETS_FIELD_NUMBER: _ClassVar[int]
    MAJOR_SECRETS_FIELD_NUMBER: _ClassVar[int]
    minor_secrets: int
    major_secrets: int
    def __init__(self, minor_secrets: _Optional[int] = ..., major_secrets: _Optional[int] = ...) -> None: ...

class ClankLegacyCampaign(_message.Message):
    __slots__ = ("version", "players", "names", "game_index", "next_prologue", "facts", "adventure_changes", "abilities", "paths", "checkmarks", "promotions", "reports", "over")
    class AdventureChangesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class PathsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    NAMES_FIELD_NUMBER: _ClassVar[int]
    GAME_INDEX_FIELD_NUMBER: _ClassVar[int]
    NEXT_PROLOGUE_FIELD_NUMBER: _ClassVar[int]
    FACTS_FIELD_NUMBER: _ClassVar[int]
    ADVENTURE_CHANGES_FIELD_NUMBER: _ClassVar[int]
    ABILITIES_FIELD_NUMBER: _ClassVar[int]
    PATHS_FIELD_NUMBER: _ClassVar[int]
    CHECKMARKS_FIELD_NUMBER: _ClassVar[int]
    PROMOTIONS_FIELD_NUMBER: _ClassVar[int]
    REPORTS_FIELD_NUMBER: _ClassVar[int]
    OVER_FIELD_NUMBER: _ClassVar[int]
    version: int
    players: int
    names: _containers.RepeatedScalarFieldContainer[str]
    game_index: int
    next_prologue: int
    facts: _containers.RepeatedScalarFieldContainer[str]
    adventure_changes: _containers.ScalarMap[str, int]
    abilities: _containers.RepeatedScalarFieldContainer[str]
    paths: _containers.ScalarMap[str, str]
    checkmarks: _containers.RepeatedScalarFieldContainer[int]
    promotions: _containers.RepeatedCompositeFieldContainer[ClankLegacyNames]
    reports: _containers.RepeatedCompositeFieldContainer[ClankLegacyReport]
    over: bool
    def __init__(self, version: _Optional[int] = ..., players: _Optional[int] = ..., names: _Optional[_Iterable[str]] = ..., game_index: _Optional[int] = ..., next_prologue: _Optional[int] = ..., facts: _Optional[_Iterable[str]] = ..., adventure_changes: _Optional[_Mapping[str, int]] = ..., abilities: _Optional[_Iterable[str]] = ..., paths: _Optional[_Mapping[str, str]] = ..., checkmarks: _Optional[_Iterable[int]] = ..., promotions: _Optional[_Iterable[_Union[ClankLegacyNames, _Mapping]]] = ..., reports: _Optional[_Iterable[_Union[ClankLegacyReport, _Mapping]]] = ..., over: _Optional[bool] = ...) -> None: ...

class ClankLegacyNames(_message.Message):
    __slots__ = ("names",)
    NAMES_FIELD_NUMBER: _ClassVar[int]
    names: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, names: _Optional[_Iterable[str]] = ...) -> None: ...

class ClankLegacyReport(_message.Message):
    __slots__ = ("game_index", "prologue", "epilogue", "board", "seed", "scores", "escaped", "knocked_out", "mvp", "choices", "state_before", "next_prologue")
    GAME_INDEX_FIELD_NUMBER: _ClassVar[int]
    PROLOGUE_FIELD_NUMBER: _ClassVar[int]
    EPILOGUE_FIELD_NUMBER: _ClassVar[int]
    BOARD_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    ESCAPED_FIELD_NUMBER: _ClassVar[int]
    KNOCKED_OUT_FIELD_NUMBER: _ClassVar[int]
    MVP_FIELD_NUMBER: _ClassVar[int]
    CHOICES_FIELD_NUMBER: _ClassVar[int]
    STATE_BEFORE_FIELD_NUMBER: _ClassVar[int]
    NEXT_PROLOGUE_FIELD_NUMBER: _ClassVar[int]
    game_index: int
    prologue: int
    epilogue: int
    board: str
    seed: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    escaped: _containers.RepeatedScalarFieldContainer[int]
    knocked_out: _containers.RepeatedScalarFieldContainer[int]
    mvp: int
    choices: _containers.RepeatedScalarFieldContainer[int]
    state_before: str
    next_prologue: int
    def __init__(self, game_index: _Optional[int] = ..., prologue: _Optional[int] = ..., epilogue: _Optional[int] = ..., board: _Optional[str] = ..., seed: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ..., escaped: _Optional[_Iterable[int]] = ..., knocked_out: _Optional[_Iterable[int]] = ..., mvp: _Optional[int] = ..., choices: _Optional[_Iterable[int]] = ..., state_before: _Optional[str] = ..., next_prologue: _Optional[int] = ...) -> None: ...

class ClankLegacyAction(_message.Message):
    __slots__ = ("play", "fight", "acquire", "buy_reserve", "fight_cultist", "patron", "move", "coach", "teleport", "take", "buy_item", "expend_fruit", "drink", "end_turn", "trash", "skip", "discard", "choose", "vote")
    PLAY_FIELD_NUMBER: _ClassVar[int]
    FIGHT_FIELD_NUMBER: _ClassVar[int]
    ACQUIRE_FIELD_NUMBER: _ClassVar[int]
    BUY_RESERVE_FIELD_NUMBER: _ClassVar[int]
    FIGHT_CULTIST_FIELD_NUMBER: _ClassVar[int]
    PATRON_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    COACH_FIELD_NUMBER: _ClassVar[int]
    TELEPORT_FIELD_NUMBER: _ClassVar[int]
    TAKE_FIELD_NUMBER: _ClassVar[int]
    BUY_ITEM_FIELD_NUMBER: _ClassVar[int]
    EXPEND_FRUIT_FIELD_NUMBER: _ClassVar[int]
    DRINK_FIELD_NUMBER: _ClassVar[int]
    END_TURN_FIELD_NUMBER: _ClassVar[int]
    TRASH_FIELD_NUMBER: _ClassVar[int]
    SKIP_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    CHOOSE_FIELD_NUMBER: _ClassVar[int]
    VOTE_FIELD_NUMBER: _ClassVar[int]
    play: _clank_pb2.ClankPlay
    fight: _clank_pb2.ClankRowCard
    acquire: _clank_pb2.ClankRowCard
    buy_reserve: _clank_pb2.ClankBuyReserve
    fight_cultist: ClankLegacyFightCultist
    patron: ClankLegacyPatron
    move: ClankLegacyMove
    coach: ClankLegacyCoach
    teleport: ClankLegacyTeleport
    take: _clank_pb2.ClankTake
    buy_item: _clank_pb2.ClankBuyItem
    expend_fruit: ClankLegacyExpendFruit
    drink: _clank_pb2.ClankDrink
    end_turn: _clank_pb2.ClankEndTurn
    trash: _clank_pb2.ClankTrash
    skip: _clank_pb2.ClankSkip
    discard: _clank_pb2.ClankDiscard
    choose: _clank_pb2.ClankChoose
    vote: ClankLegacyVote
    def __init__(self, play: _Optional[_Union[_clank_pb2.ClankPlay, _Mapping]] = ..., fight: _Optional[_Union[_clank_pb2.ClankRowCard, _Mapping]] = ..., acquire: _Optional[_Union[_clank_pb2.ClankRowCard, _Mapping]] = ..., buy_reserve: _Optional[_Union[_clank_pb2.ClankBuyReserve, _Mapping]] = ..., fight_cultist: _Optional[_Union[ClankLegacyFightCultist, _Mapping]] = ..., patron: _Optional[_Union[ClankLegacyPatron, _Mapping]] = ..., move: _Optional[_Union[ClankLegacyMove, _Mapping]] = ..., coach: _Optional[_Union[ClankLegacyCoach, _Mapping]] = ..., teleport: _Optional[_Union[ClankLegacyTeleport, _Mapping]] = ..., take: _Optional[_Union[_clank_pb2.ClankTake, _Mapping]] = ..., buy_item: _Optional[_Union[_clank_pb2.ClankBuyItem, _Mapping]] = ..., expend_fruit: _Optional[_Union[ClankLegacyExpendFruit, _Mapping]] = ..., drink: _Optional[_Union[_clank_pb2.ClankDrink, _Mapping]] = ..., end_turn: _Optional[_Union[_clank_pb2.ClankEndTurn, _Mapping]] = ..., trash: _Optional[_Union[_clank_pb2.ClankTrash, _Mapping]] = ..., skip: _Optional[_Union[_clank_pb2.ClankSkip, _Mapping]] = ..., discard: _Optional[_Union[_clank_pb2.ClankDiscard, _Mapping]] = ..., choose: _Optional[_Union[_clank_pb2.ClankChoose, _Mapping]] = ..., vote: _Optional[_Union[ClankLegacyVote, _Mapping]] = ...) -> None: ...

class ClankLegacyFightCultist(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ClankLegacyPatron(_message.Message):
    __slots__ = ("patron",)
    PATRON_FIELD_NUMBER: _ClassVar[int]
    patron: str
    def __init__(self, patron: _Optional[str] = ...) -> None: ...

class ClankLegacyMove(_message.Message):
    __slots__ = ("path_index", "swords_spent", "to_space", "damage")
    PATH_INDEX_FIELD_NUMBER: _ClassVar[int]
    SWORDS_SPENT_FIELD_NUMBER: _ClassVar[int]
    TO_SPACE_FIELD_NUMBER: _ClassVar[int]
    DAMAGE_FIELD_NUMBER: _ClassVar[int]
    path_index: int
    swords_spent: int
    to_space: str
    damage: int
    def __init__(self, path_index: _Optional[int] = ..., swords_spent: _Optional[int] = ..., to_space: _Optional[str] = ..., damage: _Optional[int] = ...) -> None: ...

class ClankLegacyCoach(_message.Message):
    __slots__ = ("to_space", "gold")
    TO_SPACE_FIELD_NUMBER: _ClassVar[int]
    GOLD_FIELD_NUMBER: _ClassVar[int]
    to_space: str
    gold: int
    def __init__(self, to_space: _Optional[str] = ..., gold: _Optional[int] = ...) -> None: ...

class ClankLegacyTeleport(_message.Message):
    __slots__ = ("path_index", "to_space")
    PATH_INDEX_FIELD_NUMBER: _ClassVar[int]
    TO_SPACE_FIELD_NUMBER: _ClassVar[int]
    path_index: int
    to_space: str
    def __init__(self, path_index: _Optional[int] = ..., to_space: _Optional[str] = ...) -> None: ...

class ClankLegacyExpendFruit(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ClankLegacyVote(_message.Message):
    __slots__ = ("option",)
    OPTION_FIELD_NUMBER: _ClassVar[int]
    option: int
    def __init__(self, option: _Optional[int] = ...) -> None: ...
