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

from referee.games.clank_core.observation import (
    check_seat,
    pending_view,
    players_view,
    pool_view,
    reveal_all,
    you_view,
)

if TYPE_CHECKING:
    from referee.games.clank.engine import ClankGame
    from referee.games.clank.state import PlayerState

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


def _own_fields(p: PlayerState) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A Clank! player's own fields: its Monkey Idols, the Mastery token."""
    return {"idols": p.idols}, {"mastery": p.mastery}, {}


def observe(game: ClankGame, seat: int) -> dict[str, Any]:
    """The observation of `seat` (JSON-able)."""
    s = game.s
    check_seat(s.players_n, seat)
    rules = game.content.rules
    clank_area, bag_cubes = s.clank_area, s.bag_cubes
    players = players_view(s.players, "room", rules["health"], clank_area, bag_cubes, _own_fields)
    artifacts = s.artifacts
    return {
        "game": "clank",
        "seat": seat,
        "step": s.step,
        "round": s.round,
        "current": s.current,
        "over": s.over,
        "board": s.board,
        "you": you_view(s.players[seat]),
        "players": players,
        "pool": pool_view(s.pool),
        "pending": pending_view(game.decision(), s.stack),
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
    public = reveal_all(observe(game, s.current), s.players)
    public["dungeon_deck"] = list(s.dungeon_deck)
    public["face_down_minor_secrets"] = {r: list(v) for r, v in sorted(s.minor_secrets.items())}
    public["face_down_major_secrets"] = {r: list(v) for r, v in sorted(s.major_secrets.items())}
    public["unused_secrets"] = list(s.unused_secrets)
    public["returned_artifacts"] = list(s.returned_artifacts)
    return public
