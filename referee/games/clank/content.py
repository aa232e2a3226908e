"""Clank! content: cards, board and tokens, loaded from JSON and validated.

The files live in `content/` beside this module (see `content/README.md` for the schema). Every
problem found while loading raises `ContentError` naming the file, the entry and the field, so a
bad edit is caught at start-up, not in the middle of a ladder season.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, partial
from pathlib import Path
from typing import Any

from referee.core import effects
from referee.core.content_files import ContentEntry as _Entry
from referee.core.content_files import (
    ContentError,
    amount_effect,
    choose_effect,
    content_version,
    effect_items,
    listed_entries,
    load_json,
    then_effects,
)
from referee.core.effects import Effect, effects_from_json, effects_to_json
from referee.games.clank_core.content import SECRET_FIELDS, SecretDef, add_secret, card_fields, secret_def

__all__ = [
    "CARD_KINDS",
    "CONDITIONS",
    "EFFECT_OPS",
    "Board",
    "CardDef",
    "ClankContent",
    "Effect",
    "Room",
    "SecretDef",
    "Tunnel",
    "default_content",
    "describe_effect",
    "describe_effects",
    "effects_from_json",
    "effects_to_json",
    "load_content",
]

CONTENT_DIR = Path(__file__).parent / "content"

#: effect primitives. Amount ops take "n"; the rest take the fields named in content/README.md.
AMOUNT_OPS = frozenset(
    {"skill", "swords", "boots", "gold", "clank", "draw", "heal", "teleport", "clank_all", "rage"}
)
EFFECT_OPS = AMOUNT_OPS | {"trash", "discard_for", "choose", "if"}
#: Arrive effects resolve with no player to choose for, so only these global ops are allowed
ARRIVE_OPS = frozenset({"clank_all", "rage"})
#: conditions usable in {"op": "if"}
CONDITIONS = frozenset({"has_artifact", "in_depths", "played_tag", "has_item"})
CARD_KINDS = frozenset({"card", "monster", "device"})
ITEM_KINDS = ("master_key", "backpack", "crown")


def _describe_amount(effect: Effect) -> str:
    """The rules text of an amount op (the only ops beside the structural ones)."""
    sign = "+" if effect.n >= 0 else ""
    if effect.op == "clank_all":
        return f"each player in the dungeon {sign}{effect.n} Clank!"
    if effect.op == "rage":
        return f"Rage +{effect.n}"
    return f"{sign}{effect.n} {effect.op}"


#: a short rules text for one effect, and for a list of effects ("nothing" for none)
describe_effect = partial(effects.describe_effect, own=_describe_amount)
describe_effects = partial(effects.describe_effects, own=_describe_amount)


@dataclass(frozen=True, slots=True)
class CardDef:
    """A card type: dungeon card, reserve card or starting card."""

    id: str
    name: str
    kind: str
    cost: int
    count: int
    points: int = 0
    tags: tuple[str, ...] = ()
    danger: bool = False
    dragon_attack: bool = False
    play: tuple[Effect, ...] = ()
    acquire: tuple[Effect, ...] = ()
    arrive: tuple[Effect, ...] = ()
    defeat: tuple[Effect, ...] = ()
    use: tuple[Effect, ...] = ()
    text: str = ""


@dataclass(frozen=True, slots=True)
class Room:
    """A room of the board and its features."""

    id: str
    name: str
    depths: bool = False
    crystal: bool = False
    market: bool = False
    minor_secrets: int = 0
    major_secret: bool = False
    artifact_rank: int = 0
    idol: bool = False


@dataclass(frozen=True, slots=True)
class Tunnel:
    """A tunnel between rooms `a` and `b`. A one-way tunnel runs only from `a` to `b`."""

    a: str
    b: str
    boots: int = 1
    monsters: int = 0
    locked: bool = False
    one_way: bool = False


@dataclass(frozen=True, slots=True)
class Board:
    """One side of the board."""

    id: str
    name: str
    start: str
    rooms: Mapping[str, Room]
    tunnels: tuple[Tunnel, ...]
    #: room id -> tunnel indices leaving it (respecting one-way arrows)
    exits: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    #: room id -> tunnel indices touching it in either direction (teleport ignores arrows)
    touching: Mapping[str, tuple[int, ...]] = field(default_factory=dict)

    def other_end(self, tunnel_index: int, room: str) -> str:
        """The room at the far end of tunnel `tunnel_index` from `room`."""
        t = self.tunnels[tunnel_index]
        return t.b if t.a == room else t.a

    def artifact_rooms(self) -> list[str]:
        """Artifact rooms ordered from nearest the entrance (rank 1) to deepest."""
        rooms = [r for r in self.rooms.values() if r.artifact_rank]
        return [r.id for r in sorted(rooms, key=lambda r: r.artifact_rank)]


@dataclass(frozen=True, slots=True)
class ClankContent:
    """Everything a Clank! game is set up from."""

    cards: Mapping[str, CardDef]
    dungeon: tuple[str, ...]
    reserve: tuple[str, ...]
    goblin: str
    starting: tuple[str, ...]
    secrets: Mapping[str, SecretDef]
    boards: Mapping[str, Board]
    artifacts: tuple[int, ...]
    rules: Mapping[str, Any]
    version: str


# --- validation helpers -------------------------------------------------------------------


def _parse_effects(e: _Entry, fld: str, raw: Any, depth: int = 0) -> tuple[Effect, ...]:
    def nested(where: str, raw: Any) -> tuple[Effect, ...]:
        return _parse_effects(e, where, raw, depth + 1)

    out: list[Effect] = []
    for where, item in effect_items(e, fld, raw, depth):
        op = item.get("op")
        if op not in EFFECT_OPS:
            raise e.fail(f"{where}.op", f"unknown op {op!r} (known: {', '.join(sorted(EFFECT_OPS))})")
        if op in AMOUNT_OPS:
            out.append(amount_effect(e, where, item, op, signed=True))
        elif op == "trash":
            if set(item) - {"op"}:
                raise e.fail(where, "op trash takes no fields")
            out.append(Effect(op=op))
        elif op == "discard_for":
            if set(item) - {"op", "then"}:
                raise e.fail(where, "op discard_for takes only 'then'")
            out.append(Effect(op=op, then=then_effects(e, where, item, nested)))
        elif op == "choose":
            out.append(choose_effect(e, where, item, nested, empty_options=True))
        else:  # "if"
            if set(item) - {"op", "cond", "arg", "then"}:
                raise e.fail(where, "op if takes only 'cond', 'arg' and 'then'")
            cond = item.get("cond")
            if cond not in CONDITIONS:
                raise e.fail(f"{where}.cond", f"unknown condition {cond!r}")
            arg = item.get("arg", "")
            if cond in ("played_tag", "has_item"):
                if not isinstance(arg, str) or not arg:
                    raise e.fail(f"{where}.arg", f"condition {cond} needs an 'arg'")
                if cond == "has_item" and arg not in ITEM_KINDS:
                    raise e.fail(f"{where}.arg", f"unknown item {arg!r}")
            elif arg:
                raise e.fail(f"{where}.arg", f"condition {cond} takes no 'arg'")
            out.append(Effect(op=op, cond=cond, arg=arg, then=then_effects(e, where, item, nested)))
    return tuple(out)


_CARD_FIELDS = {
    "id",
    "name",
    "kind",
    "cost",
    "count",
    "points",
    "tags",
    "danger",
    "dragon_attack",
    "play",
    "acquire",
    "arrive",
    "defeat",
    "use",
    "text",
}


def _parse_card(file: str, index: int, raw: Any) -> CardDef:
    entry_name = raw.get("id", f"#{index}") if isinstance(raw, dict) else f"#{index}"
    e = _Entry(file, str(entry_name), raw)
    e.check_keys(_CARD_FIELDS)
    e.str_("id")  # a card with no id is named so before anything else
    card = CardDef(
        **card_fields(e, CARD_KINDS),
        danger=e.bool_("danger"),
        dragon_attack=e.bool_("dragon_attack"),
        play=_parse_effects(e, "play", e.data.get("play", [])),
        acquire=_parse_effects(e, "acquire", e.data.get("acquire", [])),
        arrive=_parse_effects(e, "arrive", e.data.get("arrive", [])),
        defeat=_parse_effects(e, "defeat", e.data.get("defeat", [])),
        use=_parse_effects(e, "use", e.data.get("use", [])),
        text=str(e.data.get("text", "")),
    )
    for eff in card.arrive:
        if eff.op not in ARRIVE_OPS:
            raise e.fail("arrive", f"op {eff.op} cannot be an Arrive effect (allowed: {sorted(ARRIVE_OPS)})")
    if card.kind == "monster":
        if card.play or card.acquire or card.use:
            raise e.fail("kind", "a monster has only 'defeat' (and 'arrive') effects")
        if card.cost < 1:
            raise e.fail("cost", "a monster needs at least 1 Sword")
    if card.kind == "device":
        if card.play or card.acquire or card.defeat:
            raise e.fail("kind", "a device has only 'use' (and 'arrive') effects")
        if not card.use:
            raise e.fail("use", "a device needs effects")
    if card.kind == "card" and (card.defeat or card.use):
        raise e.fail("kind", "a card has 'play', 'acquire' and 'arrive' effects only")
    return card


def _card_file(path: Path, cards: dict[str, CardDef]) -> list[CardDef]:
    raw = load_json(path)
    if not isinstance(raw, dict) or not isinstance(raw.get("cards"), list):
        raise ContentError(path.name, "*", "cards", "file must be an object with a 'cards' list")
    out = []
    for i, item in enumerate(raw["cards"]):
        card = _parse_card(path.name, i, item)
        if card.id in cards:
            raise ContentError(path.name, card.id, "id", "duplicate card id")
        cards[card.id] = card
        out.append(card)
    return out


_ROOM_FIELDS = {
    "id",
    "name",
    "depths",
    "crystal",
    "market",
    "minor_secrets",
    "major_secret",
    "artifact_rank",
    "idol",
}
_TUNNEL_FIELDS = {"a", "b", "boots", "monsters", "locked", "one_way"}


def _parse_board(path: Path, rules: Mapping[str, Any]) -> Board:
    file = path.name
    raw = load_json(path)
    top = _Entry(file, "board", raw)
    top.check_keys({"id", "name", "start", "rooms", "tunnels"})
    rooms: dict[str, Room] = {}
    for e in listed_entries(file, top, "rooms"):
        e.check_keys(_ROOM_FIELDS)
        room = Room(
            id=e.str_("id"),
            name=e.str_("name"),
            depths=e.bool_("depths"),
            crystal=e.bool_("crystal"),
            market=e.bool_("market"),
            minor_secrets=e.int_("minor_secrets", default=0, lo=0, hi=2),
            major_secret=e.bool_("major_secret"),
            artifact_rank=e.int_("artifact_rank", default=0, lo=0, hi=7),
            idol=e.bool_("idol"),
        )
        if room.id in rooms:
            raise e.fail("id", "duplicate room id")
        features = [room.minor_secrets > 0, room.major_secret, room.artifact_rank > 0, room.idol]
        if sum(features) > 1:
            raise e.fail("id", "a room holds at most one kind of token")
        rooms[room.id] = room
    start = top.str_("start")
    if start not in rooms:
        raise top.fail("start", f"unknown room {start!r}")
    tunnels: list[Tunnel] = []
    seen: set[frozenset[str]] = set()
    for i, item in enumerate(top.list_("tunnels")):
        e = _Entry(file, f"tunnels[{i}]", item)
        e.check_keys(_TUNNEL_FIELDS)
        t = Tunnel(
            a=e.str_("a"),
            b=e.str_("b"),
            boots=e.int_("boots", default=1, lo=1, hi=2),
            monsters=e.int_("monsters", default=0, lo=0, hi=2),
            locked=e.bool_("locked"),
            one_way=e.bool_("one_way"),
        )
        for end in ("a", "b"):
            if getattr(t, end) not in rooms:
                raise e.fail(end, f"unknown room {getattr(t, end)!r}")
        if t.a == t.b:
            raise e.fail("b", "a tunnel must join two different rooms")
        pair = frozenset((t.a, t.b))
        if pair in seen:
            raise e.fail("b", f"second tunnel between {t.a} and {t.b}")
        seen.add(pair)
        tunnels.append(t)
    exits: dict[str, list[int]] = {r: [] for r in rooms}
    touching: dict[str, list[int]] = {r: [] for r in rooms}
    for i, t in enumerate(tunnels):
        exits[t.a].append(i)
        if not t.one_way:
            exits[t.b].append(i)
        touching[t.a].append(i)
        touching[t.b].append(i)
    board = Board(
        id=top.str_("id"),
        name=top.str_("name"),
        start=start,
        rooms=rooms,
        tunnels=tuple(tunnels),
        exits={k: tuple(v) for k, v in exits.items()},
        touching={k: tuple(v) for k, v in touching.items()},
    )
    _check_board(file, board, rules)
    return board


def _reachable(board: Board, source: str, forward: bool) -> set[str]:
    seen = {source}
    frontier = [source]
    while frontier:
        room = frontier.pop()
        for i, t in enumerate(board.tunnels):
            if forward:
                nxt = t.b if t.a == room else (t.a if t.b == room and not t.one_way else None)
            else:
                nxt = t.a if t.b == room else (t.b if t.a == room and not t.one_way else None)
            del i
            if nxt is not None and nxt not in seen:
                seen.add(nxt)
                frontier.append(nxt)
    return seen


def _check_board(file: str, board: Board, rules: Mapping[str, Any]) -> None:
    """Whole-board checks: counts the rules need and that every room can be left and reached."""
    rooms = board.rooms.values()
    lo, hi = rules["board_rooms"]
    if not lo <= len(board.rooms) <= hi:
        raise ContentError(file, "board", "rooms", f"needs {lo}..{hi} rooms, has {len(board.rooms)}")
    ranks = sorted(r.artifact_rank for r in rooms if r.artifact_rank)
    if ranks != list(range(1, 8)):
        raise ContentError(file, "board", "artifact_rank", f"needs ranks 1..7 once each, has {ranks}")
    minor = sum(r.minor_secrets for r in rooms)
    if minor != rules["minor_secrets_on_board"]:
        raise ContentError(
            file,
            "board",
            "minor_secrets",
            f"rooms hold {minor} minor secrets, rules say {rules['minor_secrets_on_board']}",
        )
    major = sum(r.major_secret for r in rooms)
    if major != rules["major_secret_rooms"]:
        raise ContentError(
            file,
            "board",
            "major_secret",
            f"{major} major-secret rooms, rules say {rules['major_secret_rooms']}",
        )
    if sum(r.idol for r in rooms) != 3:
        raise ContentError(file, "board", "idol", "needs exactly 3 monkey-idol rooms")
    if not any(r.market for r in rooms):
        raise ContentError(file, "board", "market", "needs at least one market room")
    if board.rooms[board.start].depths:
        raise ContentError(file, board.start, "depths", "the start cannot be in the Depths")
    for kind, test in (
        ("crystal", lambda t: False),
        ("locked", lambda t: t.locked),
        ("one_way", lambda t: t.one_way),
        ("monsters", lambda t: t.monsters > 0),
        ("boots", lambda t: t.boots == 2),
    ):
        if kind == "crystal":
            if not any(r.crystal for r in rooms):
                raise ContentError(file, "board", "crystal", "needs at least one crystal cave")
        elif not any(test(t) for t in board.tunnels):
            raise ContentError(file, "board", kind, f"needs at least one tunnel with {kind}")
    ranked = {r.id: r.artifact_rank for r in rooms if r.artifact_rank}
    if not any(board.rooms[r].depths for r in ranked):
        raise ContentError(file, "board", "depths", "the deeper artifacts must lie in the Depths")
    # Every room must be reachable from the start and able to get back (ignoring locks: a key
    # can always be bought), so no pawn is ever stranded by the map itself.
    from_start = _reachable(board, board.start, forward=True)
    to_start = _reachable(board, board.start, forward=False)
    for room in board.rooms:
        if room not in from_start:
            raise ContentError(file, room, "id", "room cannot be reached from the start")
        if room not in to_start:
            raise ContentError(file, room, "id", "no way back to the start from this room")


def _parse_secrets(path: Path) -> dict[str, SecretDef]:
    raw = load_json(path)
    if not isinstance(raw, dict) or not isinstance(raw.get("secrets"), list):
        raise ContentError(path.name, "*", "secrets", "file must be an object with a 'secrets' list")
    out: dict[str, SecretDef] = {}
    for i, item in enumerate(raw["secrets"]):
        e = _Entry(path.name, str(item.get("id", f"#{i}")) if isinstance(item, dict) else f"#{i}", item)
        e.check_keys(SECRET_FIELDS)
        s = secret_def(e, 18, lambda entry: _parse_effects(entry, "effects", entry.data.get("effects", [])))
        for eff in s.effects:
            if eff.op in ("trash", "discard_for", "choose", "if", "clank_all"):
                raise e.fail("effects", f"op {eff.op} is not allowed on a secret")
        add_secret(e, s, out)
    return out


_RULE_KEYS = (
    "dungeon_cards",
    "row_size",
    "hand_size",
    "health",
    "cubes",
    "black_cubes",
    "rage_track",
    "rage_start",
    "artifact_values",
    "artifacts_returned",
    "starting_clank",
    "market",
    "market_price",
    "crown_points",
    "idol_points",
    "mastery_points",
    "countdown_extra",
    "countdown_spaces",
    "reserve_piles",
    "starting_deck",
    "major_secrets",
    "minor_secrets",
    "minor_secrets_on_board",
    "major_secret_rooms",
    "board_rooms",
)


def load_content(directory: Path = CONTENT_DIR) -> ClankContent:
    """Load and validate all Clank! content in `directory`. Raises ContentError."""
    rules = load_json(directory / "rules.json")
    if not isinstance(rules, dict):
        raise ContentError("rules.json", "*", "*", "must be an object")
    for key in _RULE_KEYS:
        if key not in rules:
            raise ContentError("rules.json", "rules", key, "required field is missing")
    cards: dict[str, CardDef] = {}
    dungeon = _card_file(directory / "dungeon.json", cards)
    reserve = _card_file(directory / "reserve.json", cards)
    starting = _card_file(directory / "starting.json", cards)
    secrets = _parse_secrets(directory / "secrets.json")

    total = sum(c.count for c in dungeon)
    if total != rules["dungeon_cards"]:
        raise ContentError(
            "dungeon.json", "*", "count", f"deck has {total} cards, rules say {rules['dungeon_cards']}"
        )
    for kind in CARD_KINDS:
        if not any(c.kind == kind for c in dungeon):
            raise ContentError("dungeon.json", "*", "kind", f"the deck needs at least one {kind}")
    for flag in ("danger", "dragon_attack"):
        if not any(getattr(c, flag) for c in dungeon):
            raise ContentError("dungeon.json", "*", flag, f"the deck needs at least one {flag} card")
    for timing in ("arrive", "acquire"):
        if not any(getattr(c, timing) for c in dungeon):
            raise ContentError("dungeon.json", "*", timing, f"the deck needs a card with {timing} effects")

    goblins = [c for c in reserve if c.kind == "monster"]
    if len(goblins) != 1 or goblins[0].count != 1:
        raise ContentError(
            "reserve.json", "*", "kind", "the reserve needs exactly one monster (the Goblin), count 1"
        )
    piles = {c.id: c.count for c in reserve if c.kind != "monster"}
    if piles != dict(rules["reserve_piles"]):
        raise ContentError(
            "reserve.json", "*", "count", f"piles {piles} differ from rules {rules['reserve_piles']}"
        )
    start_counts = {c.id: c.count for c in starting}
    if start_counts != dict(rules["starting_deck"]):
        raise ContentError(
            "starting.json", "*", "count", f"deck {start_counts} differs from rules {rules['starting_deck']}"
        )

    for size, want in (("major", rules["major_secrets"]), ("minor", rules["minor_secrets"])):
        have = sum(s.count for s in secrets.values() if s.size == size)
        if have != want:
            raise ContentError("secrets.json", "*", "count", f"{have} {size} secrets, rules say {want}")
    if not any(s.dragon_egg for s in secrets.values() if s.size == "major"):
        raise ContentError(
            "secrets.json", "*", "dragon_egg", "at least one major secret must be a dragon egg"
        )

    boards: dict[str, Board] = {}
    for path in sorted((directory / "boards").glob("*.json")):
        board = _parse_board(path, rules)
        if board.id in boards:
            raise ContentError(path.name, board.id, "id", "duplicate board id")
        boards[board.id] = board
    if not boards:
        raise ContentError("boards/", "*", "*", "no board files")

    def expand(defs: Sequence[CardDef]) -> tuple[str, ...]:
        return tuple(c.id for c in defs for _ in range(c.count))

    return ClankContent(
        cards=cards,
        dungeon=expand(dungeon),
        reserve=tuple(c.id for c in reserve if c.kind != "monster"),
        goblin=goblins[0].id,
        starting=expand(starting),
        secrets=secrets,
        boards=boards,
        artifacts=tuple(rules["artifact_values"]),
        rules=rules,
        version=content_version(directory),
    )


@cache
def default_content() -> ClankContent:
    """The bundled content, loaded once per process."""
    return load_content()
