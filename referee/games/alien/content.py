"""Alien content: roles, crew characters, sergeants, the Hive, strikes, the Location, Objectives.

The files live in `content/` beside this module (schema in `content/README.md`). Every problem
found while loading raises `ContentError` naming the file, the entry and the field, so a bad edit
is caught at start-up, not in the middle of a ladder season. All names and texts are the
project's own.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path
from typing import Any

from referee.core import effects
from referee.core.content_files import (
    ContentEntry,
    ContentError,
    amount_effect,
    choose_effect,
    content_version,
    effect_items,
    load_json,
    then_effects,
)
from referee.core.effects import Effect, effects_from_json, effects_to_json

__all__ = [
    "AMOUNT_OPS",
    "CONDITIONS",
    "CONTENT_DIR",
    "EFFECT_OPS",
    "HIVE_KINDS",
    "AlienContent",
    "Effect",
    "HiveCard",
    "Location",
    "Objective",
    "PlayerCard",
    "Role",
    "StrikeCard",
    "default_content",
    "describe_effect",
    "describe_effects",
    "effects_from_json",
    "effects_to_json",
    "load_content",
]

CONTENT_DIR = Path(__file__).parent / "content"

#: amount ops take "n". The first group helps the players, the second is the Hive's.
PLAYER_OPS = frozenset({"attack", "recruit", "draw", "heal", "heal_any", "scan"})
HIVE_OPS = frozenset({"strike", "strike_each", "hatch", "hive", "discard", "discard_each"})
AMOUNT_OPS = PLAYER_OPS | HIVE_OPS
EFFECT_OPS = AMOUNT_OPS | {"choose", "if"}
#: conditions usable in {"op": "if"}; played_* look for *another* card played this turn
CONDITIONS = frozenset({"played_class", "played_crew", "hurt"})
HIVE_KINDS = frozenset({"enemy", "facehugger", "event", "hazard", "ally", "trigger", "chestburster"})
CONDITION_TYPES = frozenset({"spend", "kill"})


def _describe_amount(effect: Effect) -> str:
    """The rules text of an amount op (the only ops beside choose and if)."""
    return f"{effect.op} {effect.n}"


#: a short rules text for one effect, and for a list of effects ("nothing" for none)
describe_effect = partial(effects.describe_effect, own=_describe_amount)
describe_effects = partial(effects.describe_effects, own=_describe_amount)


@dataclass(frozen=True, slots=True)
class PlayerCard:
    """A card that can be in a player's deck: starter, role card, crew character, sergeant."""

    id: str
    name: str
    kind: str  # "starter", "role", "character", "sergeant"
    cls: str = ""
    crew: str = ""
    character: str = ""
    cost: int = 0
    count: int = 1
    coordinate: bool = False
    vigilant: bool = False
    play: tuple[Effect, ...] = ()
    once: tuple[Effect, ...] = ()
    once_cost_attack: int = 0
    once_cost_recruit: int = 0
    sacrifice: tuple[Effect, ...] = ()
    ongoing: tuple[Effect, ...] = ()
    release: tuple[Effect, ...] = ()
    mobilize: tuple[Effect, ...] = ()
    text: str = ""


@dataclass(frozen=True, slots=True)
class Role:
    """A Role: its Avatar's Health and its Character card (part of the starting deck)."""

    id: str
    name: str
    health: int
    card: str


@dataclass(frozen=True, slots=True)
class HiveCard:
    """A card of the Hive side: Hive deck cards, Hatchery cards and Chestbursters."""

    id: str
    name: str
    kind: str
    count: int = 1
    attack: int = 0
    strikes: int = 0
    drone: bool = False
    boss: bool = False
    final: bool = False
    reveal: tuple[Effect, ...] = ()
    death: tuple[Effect, ...] = ()
    text: str = ""

    @property
    def is_enemy(self) -> bool:
        """Enemies can be fought and strike from the Combat Zone."""
        return self.kind in ("enemy", "facehugger", "chestburster")


@dataclass(frozen=True, slots=True)
class StrikeCard:
    """A Strike card: damage (0 is a miss) and an optional extra effect."""

    id: str
    name: str
    damage: int
    count: int
    effects: tuple[Effect, ...] = ()
    text: str = ""


@dataclass(frozen=True, slots=True)
class Location:
    """The Location card: numbered Hazard abilities, triggered in order."""

    id: str
    name: str
    hazards: tuple[tuple[Effect, ...], ...]
    hazard_names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Objective:
    """An Objective: its Event ability, its completion condition and its mini-deck."""

    id: str
    name: str
    event: tuple[Effect, ...]
    condition: str  # "spend" or "kill"
    card: str  # the trigger card (spend) or the enemy to kill (kill)
    attack: int  # Attack to spend (spend only)
    deck: tuple[str, ...]
    text: str = ""


@dataclass(frozen=True, slots=True)
class AlienContent:
    """Everything an Alien game is set up from."""

    cards: Mapping[str, PlayerCard]
    roles: Mapping[str, Role]
    role_order: tuple[str, ...]
    characters: Mapping[str, tuple[str, ...]]  # character id -> its 14 card ids (expanded)
    character_names: Mapping[str, str]
    sergeants: tuple[str, ...]
    starting: tuple[str, ...]
    hive_cards: Mapping[str, HiveCard]
    drones: tuple[str, ...]
    chestbursters: tuple[str, ...]
    hatchery: tuple[str, ...]
    strikes: Mapping[str, StrikeCard]
    strike_deck: tuple[str, ...]
    location: Location
    objectives: tuple[Objective, ...]
    rules: Mapping[str, Any]
    version: str


# --- validation helpers -------------------------------------------------------------------


class _Entry(ContentEntry):
    """A content entry that also parses Alien effect lists."""

    def effects(self, fld: str, allowed: frozenset[str] = frozenset(EFFECT_OPS)) -> tuple[Effect, ...]:
        return _parse_effects(self, fld, self.data.get(fld, []), allowed)


def _parse_effects(
    e: _Entry, fld: str, raw: Any, allowed: frozenset[str], depth: int = 0
) -> tuple[Effect, ...]:
    def nested(where: str, raw: Any) -> tuple[Effect, ...]:
        return _parse_effects(e, where, raw, allowed, depth + 1)

    out: list[Effect] = []
    for where, item in effect_items(e, fld, raw, depth):
        op = item.get("op")
        if op not in EFFECT_OPS:
            raise e.fail(f"{where}.op", f"unknown op {op!r} (known: {', '.join(sorted(EFFECT_OPS))})")
        if op not in allowed:
            raise e.fail(f"{where}.op", f"op {op} is not allowed here")
        if op in AMOUNT_OPS:
            out.append(amount_effect(e, where, item, op, signed=False))
        elif op == "choose":
            out.append(choose_effect(e, where, item, nested, empty_options=False))
        else:  # "if"
            if set(item) - {"op", "cond", "arg", "then"}:
                raise e.fail(where, "op if takes only 'cond', 'arg' and 'then'")
            cond = item.get("cond")
            if cond not in CONDITIONS:
                raise e.fail(f"{where}.cond", f"unknown condition {cond!r} (known: {sorted(CONDITIONS)})")
            arg = item.get("arg", "")
            if cond in ("played_class", "played_crew"):
                if not isinstance(arg, str) or not arg:
                    raise e.fail(f"{where}.arg", f"condition {cond} needs an 'arg'")
            elif arg:
                raise e.fail(f"{where}.arg", f"condition {cond} takes no 'arg'")
            out.append(Effect(op=op, cond=cond, arg=arg, then=then_effects(e, where, item, nested)))
    return tuple(out)


def _check_tags(e: _Entry, effects: Sequence[Effect], fld: str, rules: Mapping[str, Any]) -> None:
    """Combo conditions must name a known class or crew."""
    for i, eff in enumerate(effects):
        if eff.op == "if":
            if eff.cond == "played_class" and eff.arg not in rules["classes"]:
                raise e.fail(f"{fld}[{i}].arg", f"unknown class {eff.arg!r}")
            if eff.cond == "played_crew" and eff.arg not in rules["crews"]:
                raise e.fail(f"{fld}[{i}].arg", f"unknown crew {eff.arg!r}")
            _check_tags(e, eff.then, f"{fld}[{i}].then", rules)
        for j, option in enumerate(eff.options):
            _check_tags(e, option, f"{fld}[{i}].options[{j}]", rules)


_PLAYER_CARD_FIELDS = {
    "id",
    "name",
    "class",
    "cost",
    "count",
    "coordinate",
    "vigilant",
    "play",
    "once",
    "once_cost",
    "sacrifice",
    "ongoing",
    "release",
    "mobilize",
    "text",
}


def _parse_player_card(
    e: _Entry, kind: str, rules: Mapping[str, Any], crew: str = "", character: str = ""
) -> PlayerCard:
    e.check_keys(_PLAYER_CARD_FIELDS)
    cls = str(e.data.get("class", ""))
    if kind in ("role", "character", "sergeant") and cls not in rules["classes"]:
        raise e.fail("class", f"must be one of {', '.join(rules['classes'])}")
    if kind == "starter" and cls:
        raise e.fail("class", "starting cards have no class")
    allowed = frozenset(PLAYER_OPS | {"choose", "if"})
    once_cost = e.data.get("once_cost", {})
    if not isinstance(once_cost, dict) or set(once_cost) - {"attack", "recruit"}:
        raise e.fail("once_cost", "must be an object with 'attack' and/or 'recruit'")
    cost_entry = _Entry(e.file, e.entry, once_cost, e.prefix + "once_cost.")
    card = PlayerCard(
        id=e.str_("id"),
        name=e.str_("name"),
        kind=kind,
        cls=cls,
        crew=crew,
        character=character,
        cost=e.int_("cost", default=0, lo=0, hi=12),
        count=e.int_("count", default=1, lo=1, hi=14),
        coordinate=e.bool_("coordinate"),
        vigilant=e.bool_("vigilant"),
        play=e.effects("play", allowed),
        once=e.effects("once", allowed),
        once_cost_attack=cost_entry.int_("attack", default=0, lo=0, hi=10),
        once_cost_recruit=cost_entry.int_("recruit", default=0, lo=0, hi=10),
        sacrifice=e.effects("sacrifice", allowed),
        ongoing=e.effects("ongoing", allowed),
        release=e.effects("release", allowed),
        mobilize=e.effects("mobilize", allowed),
        text=str(e.data.get("text", "")),
    )
    for fld in ("play", "once", "sacrifice", "ongoing", "release", "mobilize"):
        _check_tags(e, getattr(card, fld), fld, rules)
    if not card.play:
        raise e.fail("play", "a card needs play effects")
    if (card.ongoing or card.release) and not card.vigilant:
        raise e.fail("vigilant", "ongoing/release effects need vigilant: true")
    if card.vigilant and not card.release:
        raise e.fail("release", "a vigilant card needs release effects (its benefit when discarded)")
    if (card.once_cost_attack or card.once_cost_recruit) and not card.once:
        raise e.fail("once_cost", "a cost without a once ability")
    if kind in ("character", "sergeant") and card.cost < 1:
        raise e.fail("cost", "recruitable cards cost at least 1")
    if kind in ("starter", "role") and card.mobilize:
        raise e.fail("mobilize", "starting cards are never gained, so mobilize cannot trigger")
    return card


def _list_file(path: Path, key: str) -> list[Any]:
    raw = load_json(path)
    if not isinstance(raw, dict) or not isinstance(raw.get(key), list):
        raise ContentError(path.name, "*", key, f"file must be an object with a {key!r} list")
    items: list[Any] = raw[key]
    return items


def _entry_name(item: Any, index: int) -> str:
    if isinstance(item, dict) and isinstance(item.get("id"), str) and item["id"]:
        return str(item["id"])
    return f"#{index}"


def _add_card(cards: dict[str, PlayerCard], e: _Entry, card: PlayerCard) -> None:
    if card.id in cards:
        raise e.fail("id", "duplicate card id")
    cards[card.id] = card


_HIVE_FIELDS = {
    "id",
    "name",
    "kind",
    "count",
    "attack",
    "strikes",
    "drone",
    "boss",
    "final",
    "reveal",
    "death",
    "text",
}


def _parse_hive_card(e: _Entry) -> HiveCard:
    e.check_keys(_HIVE_FIELDS)
    kind = e.str_("kind")
    if kind not in HIVE_KINDS:
        raise e.fail("kind", f"must be one of {', '.join(sorted(HIVE_KINDS))}")
    card = HiveCard(
        id=e.str_("id"),
        name=e.str_("name"),
        kind=kind,
        count=e.int_("count", default=1, lo=1, hi=20),
        attack=e.int_("attack", default=0, lo=0, hi=20),
        strikes=e.int_("strikes", default=0, lo=0, hi=5),
        drone=e.bool_("drone"),
        boss=e.bool_("boss"),
        final=e.bool_("final"),
        reveal=e.effects("reveal"),
        death=e.effects("death"),
        text=str(e.data.get("text", "")),
    )
    if card.is_enemy and card.attack < 1:
        raise e.fail("attack", f"a {kind} needs an Attack value of at least 1")
    if kind in ("enemy", "chestburster") and card.strikes < 1:
        raise e.fail("strikes", f"a {kind} strikes at least once")
    if not card.is_enemy and (card.attack or card.strikes or card.death):
        raise e.fail("kind", f"a {kind} has no attack, strikes or death abilities")
    if (card.drone or card.boss or card.final) and kind != "enemy":
        raise e.fail("kind", "drone, boss and final cards must be enemies")
    if kind == "facehugger" and card.strikes:
        raise e.fail("strikes", "a facehugger never strikes (it latches on)")
    return card


def _ability_key(card: PlayerCard) -> str:
    """What a card does, without its names: two Role cards must differ in this."""
    parts: dict[str, Any] = {
        f: effects_to_json(getattr(card, f)) for f in ("play", "once", "sacrifice", "ongoing", "release")
    }
    parts["flags"] = [card.coordinate, card.vigilant, card.once_cost_attack, card.once_cost_recruit]
    return json.dumps(parts, sort_keys=True)


def load_content(directory: Path = CONTENT_DIR) -> AlienContent:
    """Load and validate all Alien content in `directory`. Raises ContentError.

    One phase a content file, in this order (a later phase checks against what an earlier one
    loaded): the rules, the player cards (starting cards, Roles, the Barracks' characters,
    Sergeants), the Hive and Hatchery, the Strikes, the Location, the Objectives."""
    rules = _load_rules(directory)
    cards: dict[str, PlayerCard] = {}
    starting = _load_starting(directory, rules, cards)
    roles = _load_roles(directory, rules, cards)
    characters, character_names = _load_characters(directory, rules, cards)
    sergeants = _load_sergeants(directory, rules, cards)
    hive_cards, hatchery, drones, chestbursters = _load_hive(directory, rules, cards)
    strikes, strike_deck = _load_strikes(directory, rules)
    location = _load_location(directory)
    objectives = _load_objectives(directory, rules, hive_cards)
    return AlienContent(
        cards=cards,
        roles=roles,
        role_order=tuple(roles),
        characters=characters,
        character_names=character_names,
        sergeants=tuple(sergeants),
        starting=tuple(starting),
        hive_cards=hive_cards,
        drones=drones,
        chestbursters=chestbursters,
        hatchery=hatchery,
        strikes=strikes,
        strike_deck=strike_deck,
        location=location,
        objectives=tuple(objectives),
        rules=rules,
        version=content_version(directory),
    )


def _load_rules(directory: Path) -> dict[str, Any]:
    """rules.json: an object with the keys the other phases read."""
    rules = load_json(directory / "rules.json")
    if not isinstance(rules, dict):
        raise ContentError("rules.json", "*", "*", "must be an object")
    for key in ("classes", "crews", "scan_costs", "starting_deck", "objective_decks", "health"):
        if key not in rules:
            raise ContentError("rules.json", "rules", key, "missing")
    if len(rules["scan_costs"]) != rules["rooms"]:
        raise ContentError("rules.json", "rules", "scan_costs", "needs one scan cost per room")
    return rules


def _load_starting(directory: Path, rules: Mapping[str, Any], cards: dict[str, PlayerCard]) -> list[str]:
    """starting.json: the starting cards (added to `cards`); returns one player's starting deck."""
    starting: list[str] = []
    for i, item in enumerate(_list_file(directory / "starting.json", "cards")):
        e = _Entry("starting.json", _entry_name(item, i), item)
        card = _parse_player_card(e, "starter", rules)
        _add_card(cards, e, card)
        starting += [card.id] * rules["starting_deck"].get(card.id, 0)
    if sorted(rules["starting_deck"]) != sorted(c for c in cards):
        raise ContentError(
            "starting.json", "*", "id", f"cards must be exactly {sorted(rules['starting_deck'])}"
        )
    return starting


def _load_roles(directory: Path, rules: Mapping[str, Any], cards: dict[str, PlayerCard]) -> dict[str, Role]:
    """roles.json: the Roles, their Character cards added to `cards` (each a distinct ability)."""
    roles: dict[str, Role] = {}
    lo, hi = rules["health"]
    for i, item in enumerate(_list_file(directory / "roles.json", "roles")):
        e = _Entry("roles.json", _entry_name(item, i), item)
        e.check_keys({"id", "name", "health", "card"})
        role = Role(id=e.str_("id"), name=e.str_("name"), health=e.int_("health", lo=lo, hi=hi), card="")
        card = _parse_player_card(_Entry("roles.json", role.id, e.data.get("card"), "card."), "role", rules)
        _add_card(cards, e, card)
        if role.id in roles:
            raise e.fail("id", "duplicate role id")
        roles[role.id] = Role(role.id, role.name, role.health, card.id)
    if len(roles) != rules["roles"]:
        raise ContentError("roles.json", "*", "roles", f"{len(roles)} roles, rules say {rules['roles']}")
    abilities = {_ability_key(cards[r.card]) for r in roles.values()}
    if len(abilities) != len(roles):
        raise ContentError("roles.json", "*", "card", "each Role card needs a distinct ability")
    return roles


def _load_characters(
    directory: Path, rules: Mapping[str, Any], cards: dict[str, PlayerCard]
) -> tuple[dict[str, tuple[str, ...]], dict[str, str]]:
    """characters.json: the crew characters of the Barracks, their cards added to `cards`;
    returns each character's cards and its name."""
    characters: dict[str, tuple[str, ...]] = {}
    character_names: dict[str, str] = {}
    for i, item in enumerate(_list_file(directory / "characters.json", "characters")):
        e = _Entry("characters.json", _entry_name(item, i), item)
        e.check_keys({"id", "name", "crew", "cards"})
        char_id, crew = e.str_("id"), e.str_("crew")
        if crew not in rules["crews"]:
            raise e.fail("crew", f"must be one of {', '.join(rules['crews'])}")
        ids: list[str] = []
        for j, raw in enumerate(e.list_("cards")):
            ce = _Entry("characters.json", _entry_name(raw, j), raw)
            card = _parse_player_card(ce, "character", rules, crew=crew, character=char_id)
            _add_card(cards, ce, card)
            ids += [card.id] * card.count
        if len(ids) != rules["character_cards"]:
            raise e.fail("cards", f"{len(ids)} cards, rules say {rules['character_cards']}")
        if char_id in characters:
            raise e.fail("id", "duplicate character id")
        characters[char_id] = tuple(ids)
        character_names[char_id] = e.str_("name")
    if len(characters) < rules["barracks_characters"]:
        raise ContentError(
            "characters.json", "*", "characters", f"needs at least {rules['barracks_characters']} characters"
        )
    barracks_cards = [cards[c] for ids in characters.values() for c in set(ids)]
    for keyword in ("coordinate", "vigilant", "sacrifice", "mobilize", "once"):
        if not any(getattr(c, keyword) for c in barracks_cards):
            raise ContentError("characters.json", "*", keyword, f"the Barracks needs a {keyword} card")
    return characters, character_names


def _load_sergeants(directory: Path, rules: Mapping[str, Any], cards: dict[str, PlayerCard]) -> list[str]:
    """sergeants.json: the Sergeants (added to `cards`), as many of each class as the rules say."""
    sergeants: list[str] = []
    per_class: dict[str, int] = {}
    for i, item in enumerate(_list_file(directory / "sergeants.json", "cards")):
        e = _Entry("sergeants.json", _entry_name(item, i), item)
        card = _parse_player_card(e, "sergeant", rules)
        _add_card(cards, e, card)
        if not card.coordinate:
            raise e.fail("coordinate", "every Sergeant has Coordinate")
        if card.cost != rules["sergeant_cost"]:
            raise e.fail("cost", f"Sergeants cost {rules['sergeant_cost']}")
        sergeants += [card.id] * card.count
        per_class[card.cls] = per_class.get(card.cls, 0) + card.count
    if len(sergeants) != rules["sergeants"] or per_class != rules["sergeant_classes"]:
        raise ContentError(
            "sergeants.json", "*", "class", f"needs {rules['sergeant_classes']}, has {per_class}"
        )
    return sergeants


def _load_hive(
    directory: Path, rules: Mapping[str, Any], cards: Mapping[str, PlayerCard]
) -> tuple[dict[str, HiveCard], tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """hive.json and hatchery.json: the Hive cards (no id shared with a player card); returns
    them with the Hatchery, the Drones and the Chestbursters."""
    hive_cards: dict[str, HiveCard] = {}
    for fname in ("hive.json", "hatchery.json"):
        for i, item in enumerate(_list_file(directory / fname, "cards")):
            e = _Entry(fname, _entry_name(item, i), item)
            hc = _parse_hive_card(e)
            if hc.id in hive_cards or hc.id in cards:
                raise e.fail("id", "duplicate card id")
            if fname == "hatchery.json" and hc.kind != "enemy":
                raise e.fail("kind", "Hatchery cards are enemies")
            hive_cards[hc.id] = hc
    hatchery = tuple(
        c["id"] for c in _list_file(directory / "hatchery.json", "cards") for _ in range(c.get("count", 1))
    )
    if len(hatchery) != rules["hatchery"]:
        raise ContentError(
            "hatchery.json", "*", "count", f"{len(hatchery)} cards, rules say {rules['hatchery']}"
        )
    drones = tuple(c.id for c in hive_cards.values() if c.drone for _ in range(c.count))
    need = 3 * rules["players"][1]
    if len(drones) < need:
        raise ContentError("hive.json", "*", "drone", f"{len(drones)} Drones; 5 players need {need}")
    chestbursters = tuple(
        c.id for c in hive_cards.values() if c.kind == "chestburster" for _ in range(c.count)
    )
    if not chestbursters:
        raise ContentError("hive.json", "*", "kind", "needs chestburster cards")
    return hive_cards, hatchery, drones, chestbursters


def _load_strikes(directory: Path, rules: Mapping[str, Any]) -> tuple[dict[str, StrikeCard], tuple[str, ...]]:
    """strikes.json: the Strike cards (misses and strikes with effects among them) and the deck."""
    strikes: dict[str, StrikeCard] = {}
    for i, item in enumerate(_list_file(directory / "strikes.json", "strikes")):
        e = _Entry("strikes.json", _entry_name(item, i), item)
        e.check_keys({"id", "name", "damage", "count", "effects", "text"})
        sc = StrikeCard(
            id=e.str_("id"),
            name=e.str_("name"),
            damage=e.int_("damage", lo=0, hi=3),
            count=e.int_("count", default=1, lo=1, hi=40),
            effects=e.effects("effects", frozenset(HIVE_OPS)),
            text=str(e.data.get("text", "")),
        )
        if sc.id in strikes:
            raise e.fail("id", "duplicate strike id")
        strikes[sc.id] = sc
    strike_deck = tuple(s.id for s in strikes.values() for _ in range(s.count))
    if len(strike_deck) != rules["strikes"]:
        raise ContentError(
            "strikes.json", "*", "count", f"{len(strike_deck)} strikes, rules say {rules['strikes']}"
        )
    if not any(s.damage == 0 for s in strikes.values()) or not any(s.effects for s in strikes.values()):
        raise ContentError("strikes.json", "*", "damage", "needs misses (damage 0) and strikes with effects")
    return strikes, strike_deck


def _load_location(directory: Path) -> Location:
    """location.json: the Location and its Hazard abilities (at least one, each doing something)."""
    raw_loc = load_json(directory / "location.json")
    le = _Entry("location.json", _entry_name(raw_loc, 0), raw_loc)
    le.check_keys({"id", "name", "hazards"})
    hazards: list[tuple[Effect, ...]] = []
    hazard_names: list[str] = []
    for i, item in enumerate(le.list_("hazards")):
        he = _Entry("location.json", le.entry, item, f"hazards[{i}].")
        he.check_keys({"name", "effects", "text"})
        hazard_names.append(he.str_("name"))
        effects = he.effects("effects")
        if not effects:
            raise he.fail("effects", "a Hazard ability must do something")
        hazards.append(effects)
    if not hazards:
        raise le.fail("hazards", "needs at least one Hazard ability")
    return Location(le.str_("id"), le.str_("name"), tuple(hazards), tuple(hazard_names))


def _load_objectives(
    directory: Path, rules: Mapping[str, Any], hive_cards: Mapping[str, HiveCard]
) -> list[Objective]:
    """objectives.json: the Objectives, one a mini-deck of the rules' size; between them the
    mini-decks hold every kind of Hive card and every boss, final and trigger card."""
    objectives: list[Objective] = []
    raw_objectives = _list_file(directory / "objectives.json", "objectives")
    if len(raw_objectives) != len(rules["objective_decks"]):
        raise ContentError("objectives.json", "*", "objectives", "needs exactly 3 Objectives")
    for k, item in enumerate(raw_objectives):
        last = k == len(raw_objectives) - 1
        objectives.append(_parse_objective(item, k, last, rules, hive_cards))
    for kind in ("enemy", "facehugger", "event", "hazard", "ally"):
        if not any(hive_cards[c].kind == kind for o in objectives for c in o.deck):
            raise ContentError("objectives.json", "*", "deck", f"the Hive needs at least one {kind}")
    in_decks = {c for o in objectives for c in o.deck}
    for hc in hive_cards.values():
        if (hc.boss or hc.final or hc.kind == "trigger") and hc.id not in in_decks:
            raise ContentError(
                "hive.json", hc.id, "kind", "boss, final and trigger cards must be in a mini-deck"
            )
    return objectives


def _parse_objective(
    item: Any, k: int, last: bool, rules: Mapping[str, Any], hive_cards: Mapping[str, HiveCard]
) -> Objective:
    """The `k`th Objective (`last`: its condition is killing the Final Enemy)."""
    e = _Entry("objectives.json", _entry_name(item, k), item)
    e.check_keys({"id", "name", "event", "event_text", "condition", "condition_text", "deck"})
    cond = _Entry("objectives.json", e.entry, e.data.get("condition"), "condition.")
    cond.check_keys({"type", "card", "attack"})
    ctype = cond.str_("type")
    if ctype not in CONDITION_TYPES:
        raise cond.fail("type", f"must be one of {sorted(CONDITION_TYPES)}")
    target = cond.str_("card")
    deck: list[str] = []
    for j, d in enumerate(e.list_("deck")):
        de = _Entry("objectives.json", e.entry, d, f"deck[{j}].")
        de.check_keys({"card", "count"})
        cid = de.str_("card")
        if cid not in hive_cards:
            raise de.fail("card", f"unknown Hive card {cid!r}")
        if hive_cards[cid].kind == "chestburster" or hive_cards[cid].drone:
            raise de.fail("card", "Drones and Chestbursters are not part of a mini-deck")
        deck += [cid] * de.int_("count", default=1, lo=1, hi=13)
    if len(deck) != rules["objective_decks"][k]:
        raise e.fail("deck", f"{len(deck)} cards, rules say {rules['objective_decks'][k]}")
    if target not in deck:
        raise cond.fail("card", f"{target!r} is not in this Objective's mini-deck")
    tcard = hive_cards[target]
    if ctype == "spend" and tcard.kind != "trigger":
        raise cond.fail("card", "a spend condition needs a trigger card")
    if ctype == "kill" and not (tcard.boss or tcard.final):
        raise cond.fail("card", "a kill condition needs a boss or final enemy")
    if last and not tcard.final:
        raise cond.fail("card", "the last Objective's condition is killing the Final Enemy")
    return Objective(
        id=e.str_("id"),
        name=e.str_("name"),
        event=e.effects("event"),
        condition=ctype,
        card=target,
        attack=cond.int_("attack", default=0, lo=1 if ctype == "spend" else 0, hi=20),
        deck=tuple(deck),
        text=str(e.data.get("condition_text", "")),
    )


@cache
def default_content() -> AlienContent:
    """The bundled content, loaded once per process."""
    return load_content()
