"""What each seat may see in Clank!: the one place hidden information is filtered.

Public: board, pawns, face-up tokens, the Dungeon Row, reserve counts, discard piles, the
Clank! Area, the bag by colour, Rage, countdown, health, gold, items, artifacts carried, taken
secrets, deck and hand sizes, and the active player's resource pool.
Own: hand, and what one's own deck holds (as counts: the order is unknown even to its owner).
Never: another hand, any deck order, face-down secrets, returned artifacts, the dungeon deck,
the random streams.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from referee.games.clank_core.rules import card_counts

if TYPE_CHECKING:
    from referee.games.clank.engine import ClankGame

__all__ = ["observe", "observe_all"]


# observe() runs once per decision: these helpers give what `dict(sorted(Counter(...).items()))`
# and `sorted(d.items())` gave, in the same key order, at a fraction of the cost. The secrets
# left and the rooms' order are remembered by what they are made from (a few fixed room sets):
# each call returns a new dict, a copy of the one remembered.

#: how many results each memo keeps; past this it starts over (bounded memory)
_KEPT = 4096


# (A deck's counts, `card_counts`, are not remembered: a referee's decks are many and change at
# every draw, so a memo of them grew to megabytes for a microsecond a call.)

#: keys as a dict holds them -> the same keys sorted. The rooms of a board holding secrets or
#: artifacts are a few fixed sets (a room's entry stays when its secrets are gone), so this stays
#: small; it is emptied if it ever grows past _KEPT.
_ORDERS: dict[tuple[str, ...], tuple[str, ...]] = {}


def _sorted_keys(d: dict[str, Any]) -> tuple[str, ...]:
    """sorted(d), remembered: observe sorts the same room names at every decision."""
    keys = tuple(d)
    order = _ORDERS.get(keys)
    if order is None:
        if len(_ORDERS) >= _KEPT:
            _ORDERS.clear()
        order = _ORDERS[keys] = tuple(sorted(keys))
    return order


_LEFT: dict[tuple[tuple[str, ...], tuple[int, ...]], dict[str, int]] = {}


def _left(rooms: dict[str, list[str]]) -> dict[str, int]:
    """Room -> face-down secrets left there, rooms with none left out, in room id order."""
    key = (tuple(rooms), tuple(map(len, rooms.values())))
    found = _LEFT.get(key)
    if found is None:
        found = {room: len(rooms[room]) for room in _sorted_keys(rooms) if rooms[room]}
        if len(_LEFT) >= _KEPT:
            _LEFT.clear()
        _LEFT[key] = found
    return found.copy()


def observe(game: ClankGame, seat: int) -> dict[str, Any]:
    """The observation of `seat` (JSON-able)."""
    s = game.s
    if not 0 <= seat < s.players_n:
        raise ValueError(f"no seat {seat}")
    rules = game.content.rules
    health = rules["health"]
    me = s.players[seat]
    clank_area, bag_cubes = s.clank_area, s.bag_cubes
    # `sorted(x) if x else []`: most of these lists are empty most of the game
    players = [
        {
            "seat": i,
            "room": p.room,
            "status": p.status,
            "forfeited": p.forfeited,
            "damage": p.damage,
            "health": health - p.damage,
            "supply": p.supply,
            "gold": p.gold,
            "artifacts": p.artifacts.copy(),
            "items": sorted(p.items) if p.items else [],
            "idols": p.idols,
            "secrets": sorted(p.kept_secrets) if p.kept_secrets else [],
            "potions": sorted(p.potions) if p.potions else [],
            "mastery": p.mastery,
            "hand_size": len(p.hand),
            "deck_size": len(p.deck),
            "play": p.play.copy(),
            "discard": p.discard.copy(),
            "trashed": p.trashed,
            "clank_area": clank_area[i],
            "bag_cubes": bag_cubes[i],
        }
        for i, p in enumerate(s.players)
    ]
    decision = game.decision()
    pending = None
    if decision is not None and decision.kind != "turn":
        top = s.stack[-1]
        pending = {
            "kind": decision.kind,
            "seat": decision.seat,
            "prompt": decision.prompt,
            "options": top.get("options", []),
            "then": top.get("then", []),
        }
    pool = s.pool
    artifacts = s.artifacts
    return {
        "game": "clank",
        "seat": seat,
        "step": s.step,
        "round": s.round,
        "current": s.current,
        "over": s.over,
        "board": s.board,
        "you": {
            "hand": me.hand.copy(),
            "deck_contents": card_counts(me.deck),
            "may_take": me.may_take,
        },
        "players": players,
        "pool": {
            "skill": pool.skill,
            "swords": pool.swords,
            "boots": pool.boots,
            "teleports": pool.teleports,
            "negative_clank": pool.negative_clank,
            "exhausted": pool.exhausted,
        },
        "pending": pending,
        "row": s.row.copy(),
        "dungeon_deck_size": len(s.dungeon_deck),
        "dungeon_discard": s.dungeon_discard.copy(),
        "reserve": s.reserve.copy(),
        "market": s.market.copy(),
        "crowns_sold": s.crowns_sold,
        "mastery_left": s.mastery_left,
        "rage": s.rage,
        "rage_draws": rules["rage_track"][s.rage],
        "bag": {"black": s.bag_black, "cubes": bag_cubes.copy()},
        "clank_area": clank_area.copy(),
        "artifacts": {room: artifacts[room] for room in _sorted_keys(artifacts)},
        "minor_secrets": _left(s.minor_secrets),
        "major_secrets": _left(s.major_secrets),
        "idols": s.idols.copy(),
        "countdown": s.countdown,
        "countdown_seat": s.countdown_seat,
        "last_attack": s.last_attack.copy(),
    }


def observe_all(game: ClankGame) -> dict[str, Any]:
    """Everything, for replay viewers and spectators of finished games."""
    s = game.s
    public = observe(game, s.current)
    public["seat"] = None
    public["you"] = None
    public["hands"] = [list(p.hand) for p in s.players]
    public["decks"] = [list(p.deck) for p in s.players]
    public["dungeon_deck"] = list(s.dungeon_deck)
    public["face_down_minor_secrets"] = {r: list(v) for r, v in sorted(s.minor_secrets.items())}
    public["face_down_major_secrets"] = {r: list(v) for r, v in sorted(s.major_secrets.items())}
    public["unused_secrets"] = list(s.unused_secrets)
    public["returned_artifacts"] = list(s.returned_artifacts)
    return public
