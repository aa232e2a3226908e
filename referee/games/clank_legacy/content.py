"""Clank! Legacy content: cards, both overworld board sides, tokens and the Book of Secrets.

The files live in `content/` beside this module; `content/README.md` is the schema, the meaning
of every effect primitive, the campaign's branching map and the checklist-to-data table. The
loader is pure (it only reads the packaged JSON) and strict: an unknown field, a wrong type, a
reference to something that does not exist, a space nobody can reach, or a campaign path that
strands an artifact behind a blocked path is a `ContentError` naming the file, the entry and the
field. This module holds no engine; `walk_campaign` only follows the Book's prologue and epilogue
passages so that the campaign graph can be checked (and later replayed) as data.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from referee.core.content_files import ContentEntry as _Entry
from referee.core.content_files import (
    ContentError,
    amount_effect,
    choose_effect,
    content_version,
    effect_items,
    file_entries,
    listed_entries,
    load_json,
    then_effects,
)
from referee.core.effects import Effect
from referee.games.clank_core.content import SECRET_FIELDS, SecretDef, add_secret, card_fields, secret_def

__all__ = [
    "CAMPAIGN_CONDITIONS",
    "CONTENT_DIR",
    "PLAY_CONDITIONS",
    "Ability",
    "Board",
    "BoardPath",
    "CampaignRun",
    "CampaignStep",
    "CardDef",
    "Contract",
    "ContractCheck",
    "Fact",
    "Franchise",
    "LegacyContent",
    "MarketItem",
    "Passage",
    "Patron",
    "Promotion",
    "SecretDef",
    "Space",
    "Tokens",
    "all_campaign_runs",
    "default_content",
    "load_content",
    "reachable",
    "walk_campaign",
]

CONTENT_DIR = Path(__file__).parent / "content"

# --- effect primitives (meanings in content/README.md) --------------------------------------

#: amounts a player gains (take `n`); only `clank` may be negative
PLAYER_AMOUNT_OPS = frozenset(
    {
        "skill",
        "swords",
        "boots",
        "gold",
        "clank",
        "draw",
        "heal",
        "teleport",
        "minor_secret",
        "major_secret",
        "mystic_fruit",
    }
)
#: amounts that hit every player still on the clock (no chooser: Events resolve during a refill)
GLOBAL_AMOUNT_OPS = frozenset({"clank_all", "rage", "gold_all", "heal_all"})
AMOUNT_OPS = PLAYER_AMOUNT_OPS | GLOBAL_AMOUNT_OPS
#: ops without fields
PLAIN_OPS = frozenset({"trash", "refresh_fruit", "end_campaign"})
#: ops whose `arg` names another piece of content (checked after every file is read)
REF_OPS: Mapping[str, str] = {
    "board_side": "board",
    "add_card": "campaign card",
    "remove_card": "adventure card",
    "grant_contract": "contract",
    "grant_patron": "patron",
    "gain_ability": "ability",
    "record_fact": "fact",
    "reveal_path": "hidden path",
    "block_path": "path",
}
#: ref ops that also take a copy count `n`
COUNTED_REF_OPS = frozenset({"add_card", "remove_card"})
STRUCT_OPS = frozenset({"discard_for", "choose", "if"})

PLAY_CONDITIONS = frozenset({"has_artifact", "has_fruit", "played_tag", "has_item"})
CAMPAIGN_CONDITIONS = frozenset({"has_fact", "lacks_fact"})

_CARD_OPS = PLAYER_AMOUNT_OPS | {"trash"} | STRUCT_OPS
_EVENT_OPS = GLOBAL_AMOUNT_OPS | {"refresh_fruit"}
_SECRET_OPS = frozenset({"skill", "swords", "boots", "gold", "draw", "heal"})
_REWARD_OPS = frozenset({"minor_secret", "draw", "gold", "heal"})
_WAYPOINT_OPS = (
    PLAYER_AMOUNT_OPS | _EVENT_OPS | {"choose", "if", "record_fact", "grant_contract", "reveal_path"}
)
_PERMANENT_OPS = frozenset(
    {"record_fact", "add_card", "remove_card", "gain_ability", "reveal_path", "block_path"}
)
_PROLOGUE_OPS = _PERMANENT_OPS | {"board_side", "grant_patron", "grant_contract", "choose", "if"}
_EPILOGUE_OPS = _PERMANENT_OPS | {"next_game", "end_campaign", "choose", "if"}

CARD_KINDS = frozenset({"card", "monster", "event"})
SPACE_KINDS_FOR_CONTRACTS = frozenset({"town", "waypoint", "coach", "forest", "danger_zone", "hq"})
CONTRACT_CONDS = frozenset(
    {"at_space", "defeated_this_turn", "acquired_this_turn", "gold_at_least", "has_fruit", "has_artifact"}
)
ABILITY_TIMINGS = frozenset({"setup", "first_turn", "escape"})
PASSAGE_KINDS = frozenset({"prologue", "waypoint", "epilogue"})


# --- data classes -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CardDef:
    """A card type of the Adventure deck, the Reserve, the starting deck, or the campaign box.

    `monster` cards have `defeat` effects; `event` cards resolve `reveal` effects when they enter
    the Adventure Row and are discarded at once; `card` cards have `play` / `acquire` effects.
    """

    id: str
    name: str
    kind: str
    cost: int
    count: int
    points: int = 0
    tags: tuple[str, ...] = ()
    dragon_attack: bool = False
    play: tuple[Effect, ...] = ()
    acquire: tuple[Effect, ...] = ()
    defeat: tuple[Effect, ...] = ()
    reveal: tuple[Effect, ...] = ()
    text: str = ""


@dataclass(frozen=True, slots=True)
class Space:
    """A space of the overworld. `coach` is its gold value (0: not a Coach space); `waypoint` is
    the Book passage entering it triggers (0: none); `artifact` the artifact value placed there."""

    id: str
    name: str
    forest: bool = False
    coach: int = 0
    town: bool = False
    waypoint: int = 0
    reward: tuple[Effect, ...] = ()
    major_secret: bool = False
    mystic_fruit: bool = False
    artifact: int = 0
    danger_zone: bool = False


@dataclass(frozen=True, slots=True)
class BoardPath:
    """A path between spaces `a` and `b`: `boots` footprints (1 to 3), `monsters` icons (1 damage
    each unless a Sword is spent per icon), `canoe` (needs a canoe), `one_way` (only a to b),
    `hidden` (closed until a passage reveals it)."""

    id: str
    a: str
    b: str
    boots: int = 1
    monsters: int = 0
    canoe: bool = False
    one_way: bool = False
    hidden: bool = False


@dataclass(frozen=True, slots=True)
class Board:
    """One side of the overworld board."""

    id: str
    name: str
    hq: str
    spaces: Mapping[str, Space]
    paths: tuple[BoardPath, ...]
    #: path id -> index into `paths`
    path_index: Mapping[str, int] = field(default_factory=dict)

    def open_paths(self, revealed: Iterable[str] = (), blocked: Iterable[str] = ()) -> frozenset[int]:
        """Indices of the paths usable given the campaign's revealed and blocked path ids."""
        rev, blk = set(revealed), set(blocked)
        return frozenset(
            i for i, p in enumerate(self.paths) if (not p.hidden or p.id in rev) and p.id not in blk
        )

    def artifact_spaces(self) -> list[str]:
        """Artifact spaces, least valuable first."""
        return [s.id for s in sorted(self.spaces.values(), key=lambda s: s.artifact) if s.artifact]


@dataclass(frozen=True, slots=True)
class MarketItem:
    """A market item type on the Franchise Board (price in rules.json, one per type per player)."""

    id: str
    name: str
    count: int
    points: int = 0
    carry: int = 0
    effects: tuple[Effect, ...] = ()
    text: str = ""


@dataclass(frozen=True, slots=True)
class Tokens:
    """Mugs, mystic fruit and the dragon's name."""

    mug_name: str
    mug_per_player: int
    mug_points: int
    fruit_name: str
    fruit_count: int
    fruit_expend: tuple[Effect, ...]
    dragon_name: str


@dataclass(frozen=True, slots=True)
class ContractCheck:
    """The end-of-turn condition of a Contract."""

    cond: str
    arg: str = ""
    n: int = 0


@dataclass(frozen=True, slots=True)
class Contract:
    """A Contract card: checked at the end of each turn; `once` contracts leave when claimed."""

    id: str
    name: str
    check: ContractCheck
    reward: tuple[Effect, ...]
    once: bool
    text: str = ""


@dataclass(frozen=True, slots=True)
class Patron:
    """A Patron in the Reserve: once per turn a player may pay `cost` Skill for `favor`."""

    id: str
    name: str
    cost: int
    favor: tuple[Effect, ...]
    text: str = ""


@dataclass(frozen=True, slots=True)
class Ability:
    """A permanent Franchise Board ability; `timing` says when its effects resolve."""

    id: str
    name: str
    timing: str
    effects: tuple[Effect, ...]
    text: str = ""


@dataclass(frozen=True, slots=True)
class Franchise:
    """The Franchise Board: Clank! Area, Market Area, ability slots and the abilities it can gain."""

    name: str
    market_area: tuple[str, ...]
    ability_slots: int
    abilities: Mapping[str, Ability]


@dataclass(frozen=True, slots=True)
class Promotion:
    """A promotion's permanent starting-deck upgrade: one `replace` card becomes `with_`."""

    id: str
    name: str
    replace: str
    with_: str
    text: str = ""


@dataclass(frozen=True, slots=True)
class Fact:
    """A campaign fact a passage may record and a later passage may test."""

    id: str
    text: str


@dataclass(frozen=True, slots=True)
class Passage:
    """A numbered Book of Secrets passage. Prologues and epilogues carry their `game` number; a
    prologue names its `epilogue`."""

    id: int
    kind: str
    title: str
    text: str
    effects: tuple[Effect, ...]
    game: int = 0
    epilogue: int = 0


@dataclass(frozen=True, slots=True)
class LegacyContent:
    """Everything a Clank! Legacy campaign is set up from."""

    cards: Mapping[str, CardDef]
    adventure: Mapping[str, int]
    reserve: Mapping[str, int]
    cultist: str
    starting: Mapping[str, int]
    campaign_cards: Mapping[str, int]
    upgrades: Mapping[str, int]
    secrets: Mapping[str, SecretDef]
    boards: Mapping[str, Board]
    market: Mapping[str, MarketItem]
    tokens: Tokens
    contracts: Mapping[str, Contract]
    patrons: Mapping[str, Patron]
    franchise: Franchise
    promotions: Mapping[str, Promotion]
    facts: Mapping[str, Fact]
    passages: Mapping[int, Passage]
    first_prologue: int
    rules: Mapping[str, Any]
    version: str


# --- effects ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Ref:
    """A reference found while parsing, resolved once every file is read."""

    kind: str
    name: str
    file: str
    entry: str
    field: str


def _parse_effects(
    e: _Entry,
    fld: str,
    raw: Any,
    ops: frozenset[str],
    conds: frozenset[str],
    refs: list[_Ref],
    depth: int = 0,
) -> tuple[Effect, ...]:
    """Parse an effect list allowing only `ops` and `conds`; references go to `refs`."""

    def nested(where: str, raw: Any) -> tuple[Effect, ...]:
        return _parse_effects(e, where, raw, ops, conds, refs, depth + 1)

    out: list[Effect] = []
    for where, item in effect_items(e, fld, raw, depth):
        op = item.get("op")
        if not isinstance(op, str) or op not in ops:
            raise e.fail(f"{where}.op", f"op {op!r} not allowed here (allowed: {', '.join(sorted(ops))})")
        keys = set(item) - {"op"}
        if op in AMOUNT_OPS:
            out.append(amount_effect(e, where, item, op, signed=True))
        elif op in PLAIN_OPS:
            if keys:
                raise e.fail(where, f"op {op} takes no fields")
            out.append(Effect(op=op))
        elif op in REF_OPS:
            allowed = {"arg", "n"} if op in COUNTED_REF_OPS else {"arg"}
            if keys - allowed:
                raise e.fail(where, f"op {op} takes only {', '.join(sorted(allowed))}")
            arg = item.get("arg")
            if not isinstance(arg, str) or not arg:
                raise e.fail(f"{where}.arg", f"op {op} needs an 'arg' naming a {REF_OPS[op]}")
            n = 0
            if op in COUNTED_REF_OPS:
                n = item.get("n", 1)
                if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 10:
                    raise e.fail(f"{where}.n", "copies must be an integer in 1..10")
            refs.append(_Ref(REF_OPS[op], arg, e.file, e.entry, e.prefix + f"{where}.arg"))
            out.append(Effect(op=op, n=n, arg=arg))
        elif op == "next_game":
            if keys - {"n"}:
                raise e.fail(where, "op next_game takes only 'n'")
            passage = item.get("n")
            if isinstance(passage, bool) or not isinstance(passage, int) or passage < 1:
                raise e.fail(f"{where}.n", "next_game needs a passage number")
            refs.append(_Ref("prologue", str(passage), e.file, e.entry, e.prefix + f"{where}.n"))
            out.append(Effect(op=op, n=passage))
        elif op == "discard_for":
            if keys - {"then"}:
                raise e.fail(where, "op discard_for takes only 'then'")
            out.append(Effect(op=op, then=then_effects(e, where, item, nested)))
        elif op == "choose":
            out.append(choose_effect(e, where, item, nested, empty_options=False))
        else:  # "if"
            if keys - {"cond", "arg", "then"}:
                raise e.fail(where, "op if takes only 'cond', 'arg' and 'then'")
            cond = item.get("cond")
            if not isinstance(cond, str) or cond not in conds:
                raise e.fail(
                    f"{where}.cond",
                    f"condition {cond!r} not allowed here (allowed: {', '.join(sorted(conds))})",
                )
            arg = item.get("arg", "")
            if cond in ("played_tag", "has_item", "has_fact", "lacks_fact"):
                if not isinstance(arg, str) or not arg:
                    raise e.fail(f"{where}.arg", f"condition {cond} needs an 'arg'")
                if cond == "played_tag":
                    refs.append(_Ref("tag", arg, e.file, e.entry, e.prefix + f"{where}.arg"))
                elif cond == "has_item":
                    refs.append(_Ref("market item", arg, e.file, e.entry, e.prefix + f"{where}.arg"))
                elif cond in ("has_fact", "lacks_fact"):
                    refs.append(_Ref("fact", arg, e.file, e.entry, e.prefix + f"{where}.arg"))
            elif arg:
                raise e.fail(f"{where}.arg", f"condition {cond} takes no 'arg'")
            out.append(Effect(op=op, cond=cond, arg=str(arg), then=then_effects(e, where, item, nested)))
    return tuple(out)


def _effects(
    e: _Entry, fld: str, ops: frozenset[str], refs: list[_Ref], conds: frozenset[str] = frozenset()
) -> tuple[Effect, ...]:
    return _parse_effects(e, fld, e.data.get(fld, []), ops, conds, refs)


def _text(e: _Entry) -> str:
    v = e.data.get("text", "")
    if not isinstance(v, str):
        raise e.fail("text", "must be a string")
    return v


# --- cards ------------------------------------------------------------------------------------

_CARD_FIELDS = {
    "id", "name", "kind", "cost", "count", "points", "tags", "dragon_attack",
    "play", "acquire", "defeat", "reveal", "text",
}  # fmt: skip


def _card_file(directory: Path, name: str, cards: dict[str, CardDef], refs: list[_Ref]) -> dict[str, int]:
    """Read a card file into `cards`; returns id -> copies in that file."""
    counts: dict[str, int] = {}
    for e in file_entries(name, load_json(directory / name), "cards"):
        e.check_keys(_CARD_FIELDS)
        card = CardDef(
            **card_fields(e, CARD_KINDS),
            dragon_attack=e.bool_("dragon_attack"),
            play=_effects(e, "play", _CARD_OPS, refs, PLAY_CONDITIONS),
            acquire=_effects(e, "acquire", _CARD_OPS, refs, PLAY_CONDITIONS),
            defeat=_effects(e, "defeat", _CARD_OPS, refs, PLAY_CONDITIONS),
            reveal=_effects(e, "reveal", _EVENT_OPS, refs),
            text=_text(e),
        )
        if card.kind == "monster" and (card.play or card.acquire or card.reveal or card.cost < 1):
            raise e.fail("kind", "a monster costs at least 1 Sword and has only 'defeat' effects")
        if card.kind == "event" and (
            card.play or card.acquire or card.defeat or not card.reveal or card.cost or card.points
        ):
            raise e.fail("kind", "an event costs 0, scores 0 and has only (non-empty) 'reveal' effects")
        if card.kind == "card" and (card.defeat or card.reveal):
            raise e.fail("kind", "a card has 'play' and 'acquire' effects only")
        if card.id in cards:
            raise e.fail("id", "duplicate card id (ids are unique across all card files)")
        cards[card.id] = card
        counts[card.id] = card.count
    return counts


# --- secrets, tokens, contracts, patrons, franchise, reviews ----------------------------------


def _parse_secrets(directory: Path, refs: list[_Ref]) -> dict[str, SecretDef]:
    out: dict[str, SecretDef] = {}
    for e in file_entries("secrets.json", load_json(directory / "secrets.json"), "secrets"):
        e.check_keys(SECRET_FIELDS)
        add_secret(e, secret_def(e, 20, lambda entry: _effects(entry, "effects", _SECRET_OPS, refs)), out)
    return out


def _parse_tokens(directory: Path, refs: list[_Ref]) -> tuple[dict[str, MarketItem], Tokens]:
    file = "tokens.json"
    raw = load_json(directory / file)
    top = _Entry(file, "*", raw)
    top.check_keys({"market", "mug", "mystic_fruit", "dragon"})
    market: dict[str, MarketItem] = {}
    for i, item in enumerate(top.list_("market")):
        e = _Entry(
            file, str(item.get("id", f"market[{i}]")) if isinstance(item, dict) else f"market[{i}]", item
        )
        e.check_keys({"id", "name", "count", "points", "carry", "effects", "text"})
        m = MarketItem(
            id=e.str_("id"),
            name=e.str_("name"),
            count=e.int_("count", lo=1, hi=10),
            points=e.int_("points", default=0, lo=0, hi=20),
            carry=e.int_("carry", default=0, lo=0, hi=2),
            effects=_effects(e, "effects", PLAYER_AMOUNT_OPS, refs),
            text=_text(e),
        )
        if m.id in market:
            raise e.fail("id", "duplicate market item id")
        market[m.id] = m
    if "canoe" not in market:
        raise top.fail("market", "needs a 'canoe' item: canoe paths need a canoe")
    mug = _Entry(file, "mug", raw.get("mug"))
    mug.check_keys({"name", "per_player", "points", "text"})
    fruit = _Entry(file, "mystic_fruit", raw.get("mystic_fruit"))
    fruit.check_keys({"name", "count", "expend", "text"})
    dragon = _Entry(file, "dragon", raw.get("dragon"))
    dragon.check_keys({"name", "text"})
    tokens = Tokens(
        mug_name=mug.str_("name"),
        mug_per_player=mug.int_("per_player", lo=1, hi=1),
        mug_points=mug.int_("points", lo=1, hi=100),
        fruit_name=fruit.str_("name"),
        fruit_count=fruit.int_("count", lo=1, hi=20),
        fruit_expend=_effects(fruit, "expend", PLAYER_AMOUNT_OPS, refs),
        dragon_name=dragon.str_("name"),
    )
    if not tokens.fruit_expend:
        raise fruit.fail("expend", "expending a mystic fruit must do something")
    return market, tokens


def _parse_contracts(directory: Path, refs: list[_Ref]) -> dict[str, Contract]:
    out: dict[str, Contract] = {}
    for e in file_entries("contracts.json", load_json(directory / "contracts.json"), "contracts"):
        e.check_keys({"id", "name", "check", "once", "reward", "text"})
        c = _Entry(e.file, e.entry, e.data.get("check"), prefix="check.")
        c.check_keys({"cond", "arg", "n"})
        cond = c.str_("cond")
        if cond not in CONTRACT_CONDS:
            raise c.fail(
                "cond", f"unknown contract condition {cond!r} (known: {', '.join(sorted(CONTRACT_CONDS))})"
            )
        arg, n = "", 0
        if cond == "at_space":
            arg = c.str_("arg")
            if arg not in SPACE_KINDS_FOR_CONTRACTS:
                raise c.fail("arg", f"unknown space kind {arg!r}")
        elif cond in ("defeated_this_turn", "acquired_this_turn", "gold_at_least"):
            n = c.int_("n", lo=1, hi=50)
        if cond != "at_space" and "arg" in c.data:
            raise c.fail("arg", f"condition {cond} takes no 'arg'")
        if not n and "n" in c.data:
            raise c.fail("n", f"condition {cond} takes no 'n'")
        if not isinstance(e.data.get("once"), bool):
            raise e.fail("once", "required true or false")
        contract = Contract(
            id=e.str_("id"),
            name=e.str_("name"),
            check=ContractCheck(cond=cond, arg=arg, n=n),
            reward=_effects(e, "reward", PLAYER_AMOUNT_OPS, refs),
            once=e.bool_("once"),
            text=_text(e),
        )
        if not contract.reward:
            raise e.fail("reward", "a contract needs a reward")
        if contract.id in out:
            raise e.fail("id", "duplicate contract id")
        out[contract.id] = contract
    return out


def _parse_patrons(directory: Path, refs: list[_Ref]) -> dict[str, Patron]:
    out: dict[str, Patron] = {}
    for e in file_entries("patrons.json", load_json(directory / "patrons.json"), "patrons"):
        e.check_keys({"id", "name", "cost", "favor", "text"})
        p = Patron(
            id=e.str_("id"),
            name=e.str_("name"),
            cost=e.int_("cost", lo=1, hi=10),
            favor=_effects(e, "favor", PLAYER_AMOUNT_OPS, refs),
            text=_text(e),
        )
        if not p.favor:
            raise e.fail("favor", "a patron's favour must do something")
        if p.id in out:
            raise e.fail("id", "duplicate patron id")
        out[p.id] = p
    return out


def _parse_franchise(directory: Path, market: Mapping[str, MarketItem], refs: list[_Ref]) -> Franchise:
    file = "franchise.json"
    raw = load_json(directory / file)
    top = _Entry(file, "franchise", raw)
    top.check_keys({"name", "clank_area", "market_area", "ability_slots", "abilities"})
    if top.data.get("clank_area") is not True:
        raise top.fail("clank_area", "the Franchise Board has a Clank! Area (true)")
    area = top.list_("market_area")
    for i, item in enumerate(area):
        if item not in market:
            raise top.fail(f"market_area[{i}]", f"unknown market item {item!r}")
    if sorted(area) != sorted(market):
        raise top.fail("market_area", "must list every market item of tokens.json once")
    abilities: dict[str, Ability] = {}
    for i, item in enumerate(top.list_("abilities")):
        e = _Entry(
            file,
            str(item.get("id", f"abilities[{i}]")) if isinstance(item, dict) else f"abilities[{i}]",
            item,
        )
        e.check_keys({"id", "name", "timing", "effects", "text"})
        timing = e.str_("timing")
        if timing not in ABILITY_TIMINGS:
            raise e.fail("timing", f"must be one of {', '.join(sorted(ABILITY_TIMINGS))}")
        a = Ability(
            id=e.str_("id"),
            name=e.str_("name"),
            timing=timing,
            effects=_effects(e, "effects", PLAYER_AMOUNT_OPS, refs),
            text=_text(e),
        )
        if not a.effects:
            raise e.fail("effects", "an ability must do something")
        if a.id in abilities:
            raise e.fail("id", "duplicate ability id")
        abilities[a.id] = a
    return Franchise(
        name=top.str_("name"),
        market_area=tuple(str(x) for x in area),
        ability_slots=top.int_("ability_slots", lo=1, hi=20),
        abilities=abilities,
    )


def _parse_reviews(
    directory: Path, starting: Mapping[str, int], upgrades: Mapping[str, int]
) -> dict[str, Promotion]:
    out: dict[str, Promotion] = {}
    for e in file_entries("reviews.json", load_json(directory / "reviews.json"), "promotions"):
        e.check_keys({"id", "name", "replace", "with", "text"})
        p = Promotion(
            id=e.str_("id"),
            name=e.str_("name"),
            replace=e.str_("replace"),
            with_=e.str_("with"),
            text=_text(e),
        )
        if p.replace not in starting:
            raise e.fail("replace", f"{p.replace!r} is not a starting-deck card")
        if p.with_ not in upgrades:
            raise e.fail("with", f"{p.with_!r} is not a card of upgrades.json")
        if p.id in out:
            raise e.fail("id", "duplicate promotion id")
        out[p.id] = p
    return out


# --- boards -----------------------------------------------------------------------------------

_SPACE_FIELDS = {
    "id", "name", "forest", "coach", "town", "waypoint", "reward", "major_secret",
    "mystic_fruit", "artifact", "danger_zone",
}  # fmt: skip
_PATH_FIELDS = {"id", "a", "b", "boots", "monsters", "canoe", "one_way", "hidden"}


def reachable(
    board: Board, open_paths: frozenset[int], source: str, forward: bool = True, canoe: bool = True
) -> set[str]:
    """Spaces reachable from `source` over `open_paths` respecting one-way arrows (`forward`
    False: the spaces from which `source` can be reached). `canoe` False ignores canoe paths."""
    # the open paths as a successor list first: the search then visits each path once per end,
    # not every open path for every space it reaches (the loader runs this for each side after
    # every path change of every campaign the Book allows)
    successors: dict[str, list[str]] = {}
    for i in open_paths:
        p = board.paths[i]
        if p.canoe and not canoe:
            continue
        start, end = (p.a, p.b) if forward else (p.b, p.a)
        successors.setdefault(start, []).append(end)
        if not p.one_way:
            successors.setdefault(end, []).append(start)
    seen = {source}
    frontier = [source]
    while frontier:
        for nxt in successors.get(frontier.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                frontier.append(nxt)
    return seen


def _parse_board(path: Path, rules: Mapping[str, Any], refs: list[_Ref]) -> Board:
    file = f"boards/{path.name}"
    raw = load_json(path)
    top = _Entry(file, "board", raw)
    top.check_keys({"id", "name", "hq", "spaces", "paths"})
    spaces: dict[str, Space] = {}
    for e in listed_entries(file, top, "spaces"):
        e.check_keys(_SPACE_FIELDS)
        s = Space(
            id=e.str_("id"),
            name=e.str_("name"),
            forest=e.bool_("forest"),
            coach=e.int_("coach", default=0, lo=0, hi=5),
            town=e.bool_("town"),
            waypoint=e.int_("waypoint", default=0, lo=0, hi=99),
            reward=_effects(e, "reward", _REWARD_OPS, refs),
            major_secret=e.bool_("major_secret"),
            mystic_fruit=e.bool_("mystic_fruit"),
            artifact=e.int_("artifact", default=0, lo=0, hi=100),
            danger_zone=e.bool_("danger_zone"),
        )
        if s.id in spaces:
            raise e.fail("id", "duplicate space id")
        tokens = [bool(s.reward), s.major_secret, s.mystic_fruit, s.artifact > 0]
        if sum(tokens) > 1:
            raise e.fail("id", "a space holds at most one of reward / major secret / mystic fruit / artifact")
        if s.waypoint:
            refs.append(_Ref("waypoint passage", str(s.waypoint), file, s.id, "waypoint"))
        spaces[s.id] = s
    hq = top.str_("hq")
    if hq not in spaces:
        raise top.fail("hq", f"unknown space {hq!r}")
    h = spaces[hq]
    if (
        h.danger_zone
        or h.forest
        or h.coach
        or h.town
        or h.waypoint
        or h.reward
        or h.major_secret
        or h.mystic_fruit
        or h.artifact
    ):
        raise ContentError(file, hq, "id", "HQ is a plain space outside the Danger Zone")
    paths: list[BoardPath] = []
    ids: dict[str, int] = {}
    pairs: set[frozenset[str]] = set()
    for i, item in enumerate(top.list_("paths")):
        e = _Entry(file, f"paths[{i}]", item)
        e.check_keys(_PATH_FIELDS)
        a, b = e.str_("a"), e.str_("b")
        for end, sid in (("a", a), ("b", b)):
            if sid not in spaces:
                raise e.fail(end, f"unknown space {sid!r}")
        if a == b:
            raise e.fail("b", "a path joins two different spaces")
        pid = e.str_("id", default=f"{a}-{b}")
        p = BoardPath(
            id=pid, a=a, b=b,
            boots=e.int_("boots", default=1, lo=1, hi=3),
            monsters=e.int_("monsters", default=0, lo=0, hi=3),
            canoe=e.bool_("canoe"),
            one_way=e.bool_("one_way"),
            hidden=e.bool_("hidden"),
        )  # fmt: skip
        if pid in ids:
            raise e.fail("id", f"duplicate path id {pid!r}")
        if frozenset((a, b)) in pairs:
            raise e.fail("b", f"second path between {a} and {b}")
        pairs.add(frozenset((a, b)))
        ids[pid] = len(paths)
        paths.append(p)
    board = Board(
        id=top.str_("id"), name=top.str_("name"), hq=hq, spaces=spaces, paths=tuple(paths), path_index=ids
    )
    if path.stem != board.id:
        raise top.fail("id", f"board id {board.id!r} must match its file name {path.stem!r}")
    _check_board(file, board, rules)
    return board


def _check_board(file: str, board: Board, rules: Mapping[str, Any]) -> None:
    """Whole-board checks: every feature the checklist names is present, artifacts match the
    rules, and no space is unreachable or a trap."""
    spaces = list(board.spaces.values())
    lo, hi = rules["board_spaces"]
    if not lo <= len(spaces) <= hi:
        raise ContentError(file, "board", "spaces", f"needs {lo}..{hi} spaces, has {len(spaces)}")
    values = sorted(s.artifact for s in spaces if s.artifact)
    if values != sorted(rules["artifact_values"]):
        raise ContentError(
            file,
            "board",
            "artifact",
            f"artifact values {values} differ from rules {sorted(rules['artifact_values'])}",
        )
    needs: list[tuple[str, bool]] = [
        ("forest", any(s.forest for s in spaces)),
        ("coach", sum(1 for s in spaces if s.coach) >= 2),
        ("town", any(s.town for s in spaces)),
        ("waypoint", any(s.waypoint for s in spaces)),
        ("major_secret", any(s.major_secret for s in spaces)),
        ("mystic_fruit", any(s.mystic_fruit for s in spaces)),
        ("danger_zone", any(s.danger_zone for s in spaces)),
    ]
    for op in sorted(_REWARD_OPS):
        needs.append((f"reward:{op}", any(e.op == op for s in spaces for e in s.reward)))
    for what, ok in needs:
        if not ok:
            what_field = what.split(":")[0]
            raise ContentError(
                file, "board", what_field, f"needs {'at least two coach spaces' if what == 'coach' else what}"
            )
    kinds: list[tuple[str, Callable[[BoardPath], bool]]] = [
        ("boots", lambda p: p.boots == 2),
        ("boots", lambda p: p.boots == 3),
        ("monsters", lambda p: p.monsters > 0),
        ("canoe", lambda p: p.canoe),
        ("one_way", lambda p: p.one_way),
    ]
    for what, test in kinds:
        if not any(test(p) for p in board.paths):
            raise ContentError(file, "board", what, f"needs paths of every kind ({what} missing)")
    top_value = max(values)
    if not any(s.danger_zone and s.artifact == top_value for s in spaces):
        raise ContentError(file, "board", "danger_zone", "the most valuable artifact lies in the Danger Zone")
    every = frozenset(range(len(board.paths)))
    there = reachable(board, every, board.hq)
    back = reachable(board, every, board.hq, forward=False)
    for s in spaces:
        if s.id not in there:
            raise ContentError(file, s.id, "id", "space cannot be reached from HQ by any path")
        if s.id not in back:
            raise ContentError(file, s.id, "id", "no way back to HQ from this space")
    _check_open_board(file, board, board.open_paths(), "board")


def _check_open_board(file: str, board: Board, open_paths: frozenset[int], entry: str) -> None:
    """With these paths open: every artifact is reachable from HQ without a canoe, and every
    space reachable from HQ has a way back (a figure can never be trapped by the map)."""
    there = reachable(board, open_paths, board.hq)
    on_foot = reachable(board, open_paths, board.hq, canoe=False)
    back = reachable(board, open_paths, board.hq, forward=False)
    for sid in board.artifact_spaces():
        if sid not in on_foot:
            raise ContentError(
                file, entry, "paths", f"artifact space {sid!r} cannot be reached from HQ on foot"
            )
    for sid in sorted(there - back):
        raise ContentError(file, entry, "paths", f"space {sid!r} is reachable from HQ but has no way back")


# --- the Book of Secrets ----------------------------------------------------------------------


def _parse_book(directory: Path, refs: list[_Ref]) -> tuple[dict[str, Fact], dict[int, Passage], int]:
    file = "book.json"
    raw = load_json(directory / file)
    top = _Entry(file, "book", raw)
    top.check_keys({"first_prologue", "facts", "passages"})
    facts: dict[str, Fact] = {}
    for i, item in enumerate(top.list_("facts")):
        e = _Entry(
            file, str(item.get("id", f"facts[{i}]")) if isinstance(item, dict) else f"facts[{i}]", item
        )
        e.check_keys({"id", "text"})
        f = Fact(id=e.str_("id"), text=e.str_("text"))
        if f.id in facts:
            raise e.fail("id", "duplicate fact id")
        facts[f.id] = f
    passages: dict[int, Passage] = {}
    for i, item in enumerate(top.list_("passages")):
        name = f"passage {item.get('id')}" if isinstance(item, dict) else f"passages[{i}]"
        e = _Entry(file, name, item)
        e.check_keys({"id", "kind", "game", "epilogue", "title", "text", "effects"})
        kind = e.str_("kind")
        if kind not in PASSAGE_KINDS:
            raise e.fail("kind", f"must be one of {', '.join(sorted(PASSAGE_KINDS))}")
        ops = {"prologue": _PROLOGUE_OPS, "epilogue": _EPILOGUE_OPS, "waypoint": _WAYPOINT_OPS}[kind]
        conds = CAMPAIGN_CONDITIONS | (PLAY_CONDITIONS if kind == "waypoint" else frozenset())
        p = Passage(
            id=e.int_("id", lo=1, hi=9999),
            kind=kind,
            title=e.str_("title"),
            text=e.str_("text"),
            effects=_effects(e, "effects", ops, refs, conds),
            game=e.int_(
                "game", default=0, lo=0 if kind == "waypoint" else 1, hi=0 if kind == "waypoint" else 99
            ),
            epilogue=e.int_("epilogue", default=0, lo=0, hi=9999),
        )
        if p.id in passages:
            raise e.fail("id", "duplicate passage number")
        if not p.effects:
            raise e.fail("effects", "a passage must do something")
        if kind == "prologue":
            if not p.epilogue:
                raise e.fail("epilogue", "a prologue names its epilogue")
            refs.append(_Ref("epilogue", str(p.epilogue), file, name, "epilogue"))
            sides = [x for x in p.effects if x.op == "board_side"]
            if len(sides) != 1 or _nested_has(p.effects, "board_side", top_level_ok=True):
                raise e.fail("effects", "a prologue chooses exactly one board side, at its top level")
        elif p.epilogue:
            raise e.fail("epilogue", f"only a prologue names an epilogue, not a {kind}")
        if kind == "epilogue" and any(
            _nested_has(p.effects, op, top_level_ok=True, in_choose_ok=True)
            for op in ("next_game", "end_campaign")
        ):
            raise e.fail("effects", "next_game / end_campaign may not sit inside an 'if'")
        passages[p.id] = p
    first = top.int_("first_prologue", lo=1, hi=9999)
    if first not in passages or passages[first].kind != "prologue" or passages[first].game != 1:
        raise top.fail("first_prologue", f"passage {first} is not a prologue of game 1")
    return facts, passages, first


def _nested_has(effects: Sequence[Effect], op: str, top_level_ok: bool, in_choose_ok: bool = False) -> bool:
    """Whether `op` appears where it is not allowed: below the top level (or, with
    `in_choose_ok`, anywhere but the top level and directly in a top-level choose option)."""

    def inside(es: Sequence[Effect]) -> bool:
        return any(e.op == op or inside(e.then) or any(inside(o) for o in e.options) for e in es)

    for e in effects:
        if e.op == op and not top_level_ok:
            return True
        if inside(e.then):
            return True
        for o in e.options:
            if in_choose_ok:
                if any(inside(x.then) or any(inside(oo) for oo in x.options) for x in o):
                    return True
            elif inside(o):
                return True
    return False


# --- the campaign walk ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CampaignStep:
    """One game of a campaign as its prologue sets it up."""

    game: int
    prologue: int
    epilogue: int
    board: str
    patrons: tuple[str, ...]
    contracts: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CampaignRun:
    """Where a sequence of prologue/epilogue choices leads: the games and the permanent state."""

    steps: tuple[CampaignStep, ...]
    choices: tuple[int, ...]
    facts: frozenset[str]
    adventure: Mapping[str, int]
    abilities: tuple[str, ...]
    revealed: frozenset[str]
    blocked: frozenset[str]

    def components(self) -> frozenset[tuple[str, str, int]]:
        """The end-of-campaign components as comparable facts: Adventure deck copies per card,
        Franchise abilities, revealed and blocked paths, recorded facts."""
        out: set[tuple[str, str, int]] = {("card", c, n) for c, n in self.adventure.items() if n}
        out |= {("ability", a, 1) for a in self.abilities}
        out |= {("revealed", p, 1) for p in self.revealed}
        out |= {("blocked", p, 1) for p in self.blocked}
        out |= {("fact", f, 1) for f in self.facts}
        return frozenset(out)


class _NeedChoice(Exception):
    """The walk reached a choice its choice sequence does not cover."""

    def __init__(self, options: int) -> None:
        super().__init__(options)
        self.options = options


class _Walk:
    """Mutable state of one campaign walk (the loader and tests see only CampaignRun)."""

    def __init__(self, content: LegacyContent, choices: Sequence[int], facts: Iterable[str]) -> None:
        self.content = content
        self.choices = list(choices)
        self.used = 0
        self.facts = set(facts)
        self.adventure = dict(content.adventure)
        self.abilities: list[str] = []
        self.revealed: set[str] = set()
        self.blocked: set[str] = set()
        self.board = ""
        self.patrons: list[str] = []
        self.contracts: list[str] = []
        self.next: list[int] = []
        self.ended = False

    def fail(self, passage: int, problem: str) -> ContentError:
        return ContentError("book.json", f"passage {passage}", "effects", problem)

    def pick(self, passage: int, options: int) -> int:
        if self.used >= len(self.choices):
            raise _NeedChoice(options)
        c = self.choices[self.used]
        self.used += 1
        if not 0 <= c < options:
            raise ValueError(f"choice {c} at passage {passage} is not one of 0..{options - 1}")
        return c

    def run(self, passage: int, effects: Sequence[Effect]) -> None:
        for e in effects:
            if e.op == "choose":
                self.run(passage, e.options[self.pick(passage, len(e.options))])
            elif e.op == "if":
                held = e.arg in self.facts
                if held == (e.cond == "has_fact"):
                    self.run(passage, e.then)
            elif e.op == "board_side":
                self.board = e.arg
            elif e.op == "grant_patron":
                self.patrons.append(e.arg)
            elif e.op == "grant_contract":
                self.contracts.append(e.arg)
            elif e.op == "record_fact":
                self.facts.add(e.arg)
            elif e.op == "add_card":
                have = self.adventure.get(e.arg, 0)
                box = self.content.campaign_cards[e.arg]
                if have + e.n > box:
                    raise self.fail(passage, f"adds {e.n} {e.arg}: the box has only {box}")
                self.adventure[e.arg] = have + e.n
            elif e.op == "remove_card":
                have = self.adventure.get(e.arg, 0)
                if have < e.n:
                    raise self.fail(passage, f"removes {e.n} {e.arg}: the deck has {have} on this path")
                self.adventure[e.arg] = have - e.n
            elif e.op == "gain_ability":
                if e.arg in self.abilities:
                    raise self.fail(passage, f"ability {e.arg} gained twice on one path")
                self.abilities.append(e.arg)
                if len(self.abilities) > self.content.franchise.ability_slots:
                    raise self.fail(passage, "more abilities than Franchise Board slots")
            elif e.op == "reveal_path":
                self.revealed.add(e.arg)
                self.blocked.discard(e.arg)
            elif e.op == "block_path":
                self.blocked.add(e.arg)
            elif e.op == "next_game":
                self.next.append(e.n)
            elif e.op == "end_campaign":
                self.ended = True
            else:  # the loader allows no other op in prologues and epilogues
                raise self.fail(passage, f"op {e.op} cannot resolve outside a game")


def walk_campaign(
    content: LegacyContent, choices: Sequence[int], facts: Iterable[str] = (), games: int | None = None
) -> CampaignRun:
    """Follow the campaign from the first prologue, taking `choices` in order at each `choose`
    of a prologue or epilogue (option indices). `facts` are facts recorded during play (Waypoint
    passages) assumed from the start. With `games`, stop after that many games' epilogues: the
    permanent state a campaign resumes from (its last step's epilogue names the next prologue).
    Raises ValueError if `choices` runs out or has extra or out-of-range entries; ContentError if
    a passage on this path is inconsistent."""
    try:
        return _walk(content, choices, facts, games)
    except _NeedChoice as need:
        raise ValueError(
            f"choices end before the campaign does (next choice has {need.options} options)"
        ) from None


def _walk(
    content: LegacyContent,
    choices: Sequence[int],
    facts: Iterable[str],
    games: int | None = None,
    checked: set[tuple[str, frozenset[int]]] | None = None,
) -> CampaignRun:
    """`walk_campaign`'s body; `checked` carries the (side, open paths) already found sound
    from one walk to the next (`all_campaign_runs` walks every path through the Book)."""
    w = _Walk(content, choices, facts)
    steps: list[CampaignStep] = []
    current = content.first_prologue
    seen: set[int] = set()
    while True:
        prologue = content.passages[current]
        if current in seen:
            raise w.fail(current, "the campaign loops back to this prologue")
        seen.add(current)
        if prologue.game != len(steps) + 1:
            raise ContentError(
                "book.json",
                f"passage {current}",
                "game",
                f"reached as game {len(steps) + 1} but numbered {prologue.game}",
            )
        w.board, w.patrons, w.contracts = "", [], []
        w.run(current, prologue.effects)
        _check_path_changes(content, w, current, checked)
        epilogue = content.passages[prologue.epilogue]
        if epilogue.game != prologue.game:
            raise ContentError(
                "book.json",
                f"passage {epilogue.id}",
                "game",
                f"epilogue of game {prologue.game} numbered {epilogue.game}",
            )
        steps.append(
            CampaignStep(prologue.game, current, epilogue.id, w.board, tuple(w.patrons), tuple(w.contracts))
        )
        w.next, w.ended = [], False
        w.run(epilogue.id, epilogue.effects)
        _check_path_changes(content, w, epilogue.id, checked)
        if len(w.next) + int(w.ended) != 1:
            raise w.fail(epilogue.id, "an epilogue resolves to exactly one next_game or end_campaign")
        if w.ended or len(steps) == games:
            break
        current = w.next[0]
    if w.used != len(w.choices):
        raise ValueError(f"{len(w.choices) - w.used} choices left over after the campaign ended")
    return CampaignRun(
        steps=tuple(steps),
        choices=tuple(w.choices),
        facts=frozenset(w.facts),
        adventure={k: v for k, v in sorted(w.adventure.items())},
        abilities=tuple(w.abilities),
        revealed=frozenset(w.revealed),
        blocked=frozenset(w.blocked),
    )


def _check_path_changes(
    content: LegacyContent, w: _Walk, passage: int, checked: set[tuple[str, frozenset[int]]] | None = None
) -> None:
    """After a passage changed paths: every artifact still reachable and no trap, per side.
    A side whose open paths are in `checked` passed before (the check depends on nothing else);
    those that pass now are added to it."""
    for bid, board in content.boards.items():
        rev = [r.split(":", 1)[1] for r in w.revealed if r.startswith(bid + ":")]
        blk = [b.split(":", 1)[1] for b in w.blocked if b.startswith(bid + ":")]
        if rev or blk:
            open_paths = board.open_paths(rev, blk)
            if checked is not None and (bid, open_paths) in checked:
                continue
            _check_open_board("book.json", board, open_paths, f"passage {passage}")
            if checked is not None:
                checked.add((bid, open_paths))


def all_campaign_runs(content: LegacyContent, facts: Iterable[str] = ()) -> list[CampaignRun]:
    """Every campaign the Book allows: one run per sequence of prologue/epilogue choices."""
    fixed = tuple(facts)
    runs: list[CampaignRun] = []
    stack: list[tuple[int, ...]] = [()]
    checked: set[tuple[str, frozenset[int]]] = set()  # sides' open paths found sound so far
    while stack:
        prefix = stack.pop()
        try:
            runs.append(_walk(content, prefix, fixed, checked=checked))
        except _NeedChoice as need:
            stack.extend((*prefix, i) for i in reversed(range(need.options)))
        if len(runs) > 10_000:
            raise ContentError("book.json", "campaign", "passages", "more than 10000 campaign paths")
    return runs


# --- loading ----------------------------------------------------------------------------------

_RULE_KEYS = {
    "players", "row_size", "hand_size", "health", "cubes", "black_cubes", "rage_track",
    "rage_start", "starting_clank", "off_clock_draw", "adventure_cards", "reserve_piles",
    "starting_deck", "minor_secrets", "major_secrets", "gold_tokens", "artifact_values",
    "artifacts_carried", "market_price", "market_one_per_type", "mug_points",
    "monster_icon_damage", "swords_per_icon", "coach_boots", "board_spaces",
    "campaign_min_games", "checkmarks_per_promotion", "checkmark_for", "group_tie_break",
    "mission_report", "score_parts", "tie_break", "waypoint_trigger", "reward_trigger",
    "event_symbol_triggers_attack",
}  # fmt: skip
_MISSION_FIELDS = frozenset(
    {
        "game",
        "prologue",
        "board",
        "seats",
        "mvp",
        "escaped",
        "knocked_out",
        "scores",
        "choices",
        "epilogue",
        "next_prologue",
    }
)


def _check_rules(rules: Any) -> dict[str, Any]:
    e = _Entry("rules.json", "rules", rules)
    e.check_keys(_RULE_KEYS)
    for key in sorted(_RULE_KEYS):
        if key not in rules:
            raise e.fail(key, "required field is missing")
    for key in (
        "row_size",
        "hand_size",
        "health",
        "cubes",
        "black_cubes",
        "adventure_cards",
        "minor_secrets",
        "major_secrets",
        "artifacts_carried",
        "market_price",
        "mug_points",
        "monster_icon_damage",
        "swords_per_icon",
        "coach_boots",
        "campaign_min_games",
        "checkmarks_per_promotion",
    ):
        e.int_(key, lo=1, hi=1000)

    def int_list(key: str, length: int | None = None) -> list[int]:
        v = rules[key]
        if not isinstance(v, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
            raise e.fail(key, "must be a list of integers")
        if length is not None and len(v) != length:
            raise e.fail(key, f"must have {length} entries")
        return v

    lo, hi = int_list("players", 2)
    counts = [str(n) for n in range(lo, hi + 1)]
    track = int_list("rage_track")
    for key in ("rage_start", "off_clock_draw"):
        v = rules[key]
        if not isinstance(v, dict) or sorted(v) != sorted(counts):
            raise e.fail(key, f"needs one entry per player count {counts}")
        if not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in v.values()):
            raise e.fail(key, "values must be integers >= 0")
    if any(x >= len(track) for x in rules["rage_start"].values()):
        raise e.fail("rage_start", "a start space beyond the Rage track")
    int_list("starting_clank", hi)
    int_list("gold_tokens")
    int_list("artifact_values")
    int_list("board_spaces", 2)
    for key in ("reserve_piles", "starting_deck"):
        if not isinstance(rules[key], dict):
            raise e.fail(key, "must be an object of card id -> copies")
    if not isinstance(rules["market_one_per_type"], bool):
        raise e.fail("market_one_per_type", "must be true or false")
    report = rules["mission_report"]
    if not isinstance(report, list) or set(report) - _MISSION_FIELDS or "next_prologue" not in report:
        raise e.fail(
            "mission_report", f"a list of fields from {sorted(_MISSION_FIELDS)} including next_prologue"
        )
    if not isinstance(rules["checkmark_for"], list) or set(rules["checkmark_for"]) - {"mvp", "escaped"}:
        raise e.fail("checkmark_for", "a list of 'mvp' / 'escaped'")
    if rules["score_parts"] != ["cards", "artifact", "tokens", "gold"]:
        raise e.fail(
            "score_parts", "must be ['cards', 'artifact', 'tokens', 'gold'] (the checklist's scoring)"
        )
    if rules["tie_break"] != "artifact_value":
        raise e.fail("tie_break", "must be 'artifact_value' (ties go to the most valuable artifact)")
    for key in ("waypoint_trigger", "reward_trigger"):
        if rules[key] not in ("every_entry", "first_entry_per_player"):
            raise e.fail(key, "must be 'every_entry' or 'first_entry_per_player'")
    if not isinstance(rules["event_symbol_triggers_attack"], bool):
        raise e.fail("event_symbol_triggers_attack", "must be true or false")
    if rules["group_tie_break"] != "mvp":
        raise e.fail("group_tie_break", "must be 'mvp' (pinned in the checklist)")
    return dict(rules)


def _resolve_refs(content: LegacyContent, refs: Sequence[_Ref]) -> None:
    """Every name a file uses must exist in the file that defines it."""
    path_ids = {f"{b.id}:{p.id}" for b in content.boards.values() for p in b.paths}
    hidden = {f"{b.id}:{p.id}" for b in content.boards.values() for p in b.paths if p.hidden}
    known: dict[str, Callable[[str], bool]] = {
        "board": lambda x: x in content.boards,
        "campaign card": lambda x: x in content.campaign_cards,
        "adventure card": lambda x: x in content.adventure or x in content.campaign_cards,
        "contract": lambda x: x in content.contracts,
        "patron": lambda x: x in content.patrons,
        "ability": lambda x: x in content.franchise.abilities,
        "fact": lambda x: x in content.facts,
        "path": lambda x: x in path_ids,
        # revealing an always-open path would silently do nothing
        "hidden path": lambda x: x in hidden,
        "market item": lambda x: x in content.market,
        "tag": lambda x: any(x in c.tags for c in content.cards.values()),
        "prologue": lambda x: x.isdigit() and content.passages.get(int(x), _NO_PASSAGE).kind == "prologue",
        "epilogue": lambda x: x.isdigit() and content.passages.get(int(x), _NO_PASSAGE).kind == "epilogue",
        "waypoint passage": lambda x: (
            x.isdigit() and content.passages.get(int(x), _NO_PASSAGE).kind == "waypoint"
        ),
    }
    for r in refs:
        if not known[r.kind](r.name):
            raise ContentError(r.file, r.entry, r.field, f"unknown {r.kind} {r.name!r}")


_NO_PASSAGE = Passage(id=0, kind="", title="", text="", effects=())


def _flat(effects: Sequence[Effect]) -> list[Effect]:
    out: list[Effect] = []
    for e in effects:
        out.append(e)
        out.extend(_flat(e.then))
        for o in e.options:
            out.extend(_flat(o))
    return out


def load_content(directory: Path = CONTENT_DIR) -> LegacyContent:
    """Load and validate all Clank! Legacy content in `directory`. Raises ContentError."""
    rules = _check_rules(load_json(directory / "rules.json"))
    refs: list[_Ref] = []
    cards: dict[str, CardDef] = {}
    adventure = _card_file(directory, "adventure.json", cards, refs)
    reserve = _card_file(directory, "reserve.json", cards, refs)
    starting = _card_file(directory, "starting.json", cards, refs)
    campaign_cards = _card_file(directory, "campaign_cards.json", cards, refs)
    upgrades = _card_file(directory, "upgrades.json", cards, refs)
    secrets = _parse_secrets(directory, refs)
    market, tokens = _parse_tokens(directory, refs)
    contracts = _parse_contracts(directory, refs)
    patrons = _parse_patrons(directory, refs)
    franchise = _parse_franchise(directory, market, refs)
    promotions = _parse_reviews(directory, starting, upgrades)
    facts, passages, first = _parse_book(directory, refs)

    total = sum(adventure.values())
    if total != rules["adventure_cards"]:
        raise ContentError(
            "adventure.json", "*", "count", f"deck has {total} cards, rules say {rules['adventure_cards']}"
        )
    kinds = {cards[c].kind for c in adventure}
    for kind in sorted(CARD_KINDS):
        if kind not in kinds:
            raise ContentError("adventure.json", "*", "kind", f"the deck needs at least one {kind}")
    if not any(cards[c].dragon_attack for c in adventure):
        raise ContentError("adventure.json", "*", "dragon_attack", "the deck needs Dragon Attack symbols")
    for name, group in (("starting.json", starting), ("upgrades.json", upgrades)):
        for cid in group:
            if cards[cid].kind != "card" or cards[cid].cost:
                raise ContentError(name, cid, "kind", "starting and upgrade cards are kind 'card' costing 0")
    monsters = [c for c in reserve if cards[c].kind == "monster"]
    if monsters != ["cultist"] or reserve["cultist"] != 1:
        raise ContentError(
            "reserve.json", "*", "kind", "the Reserve has exactly one monster, the cultist, count 1"
        )
    piles = {c: n for c, n in reserve.items() if c != "cultist"}
    if piles != dict(rules["reserve_piles"]):
        raise ContentError(
            "reserve.json", "*", "count", f"piles {piles} differ from rules {rules['reserve_piles']}"
        )
    if starting != dict(rules["starting_deck"]):
        raise ContentError(
            "starting.json", "*", "count", f"deck {starting} differs from rules {rules['starting_deck']}"
        )
    for size in ("major", "minor"):
        have = sum(s.count for s in secrets.values() if s.size == size)
        want = rules[f"{size}_secrets"]
        if have != want:
            raise ContentError("secrets.json", "*", "count", f"{have} {size} secrets, rules say {want}")
    if not any(s.dragon_egg for s in secrets.values()):
        raise ContentError("secrets.json", "*", "dragon_egg", "at least one secret is a dragon egg")
    if tokens.mug_points != rules["mug_points"]:
        raise ContentError(
            "tokens.json", "mug", "points", f"{tokens.mug_points} differs from rules {rules['mug_points']}"
        )

    boards: dict[str, Board] = {}
    board_dir = directory / "boards"
    for path in sorted(board_dir.glob("*.json")):
        board = _parse_board(path, rules, refs)
        boards[board.id] = board
    if len(boards) != 2:
        raise ContentError(
            "boards/", "*", "*", f"the overworld has two sides, found {len(boards)} board files"
        )
    for board in boards.values():
        file = f"boards/{board.id}.json"
        fruit = sum(s.mystic_fruit for s in board.spaces.values())
        if fruit > tokens.fruit_count:
            raise ContentError(
                file, "board", "mystic_fruit", f"{fruit} fruit spaces, only {tokens.fruit_count} fruit"
            )
        major = sum(s.major_secret for s in board.spaces.values())
        if major > rules["major_secrets"]:
            raise ContentError(
                file,
                "board",
                "major_secret",
                f"{major} major-secret spaces, only {rules['major_secrets']} secrets",
            )

    content = LegacyContent(
        cards=cards,
        adventure=adventure,
        reserve=piles,
        cultist="cultist",
        starting=starting,
        campaign_cards=campaign_cards,
        upgrades=upgrades,
        secrets=secrets,
        boards=boards,
        market=market,
        tokens=tokens,
        contracts=contracts,
        patrons=patrons,
        franchise=franchise,
        promotions=promotions,
        facts=facts,
        passages=passages,
        first_prologue=first,
        rules=rules,
        version=content_version(directory),
    )
    _resolve_refs(content, refs)
    _check_hidden_paths_revealed(content)
    _check_campaign(content)
    return content


def _check_hidden_paths_revealed(content: LegacyContent) -> None:
    """A hidden path no passage ever reveals would be dead board: refuse it."""
    revealed = {e.arg for p in content.passages.values() for e in _flat(p.effects) if e.op == "reveal_path"}
    for board in content.boards.values():
        for i, path in enumerate(board.paths):
            if path.hidden and f"{board.id}:{path.id}" not in revealed:
                raise ContentError(
                    f"boards/{board.id}.json", f"paths[{i}]", "hidden", f"no passage reveals path {path.id!r}"
                )


def _check_campaign(content: LegacyContent) -> None:
    """Every campaign path (with and without the facts Waypoints can record) lasts at least
    `campaign_min_games` games, and every prologue and epilogue lies on some path."""
    waypoint_facts = {
        e.arg for p in content.passages.values() if p.kind == "waypoint"
        for e in _flat(p.effects) if e.op == "record_fact"
    }  # fmt: skip
    visited: set[int] = set()
    for facts in (frozenset(), frozenset(waypoint_facts)):
        for run in all_campaign_runs(content, facts):
            if len(run.steps) < content.rules["campaign_min_games"]:
                raise ContentError(
                    "book.json", "campaign", "passages",
                    f"choices {list(run.choices)} end the campaign after {len(run.steps)} games, "
                    f"fewer than {content.rules['campaign_min_games']}",
                )  # fmt: skip
            for s in run.steps:
                visited |= {s.prologue, s.epilogue}
    for p in content.passages.values():
        if p.kind != "waypoint" and p.id not in visited:
            raise ContentError("book.json", f"passage {p.id}", "id", "no campaign path reaches this passage")
    used = {s.waypoint for b in content.boards.values() for s in b.spaces.values() if s.waypoint}
    for p in content.passages.values():
        if p.kind == "waypoint" and p.id not in used:
            raise ContentError(
                "book.json", f"passage {p.id}", "id", "no board space triggers this waypoint passage"
            )


@cache
def default_content() -> LegacyContent:
    """The bundled content, loaded once per process."""
    return load_content()
