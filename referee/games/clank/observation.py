"""What each seat may see in Clank!: the one place hidden information is filtered.

Public: board, pawns, face-up tokens, the Dungeon Row, reserve counts, discard piles, the
Clank! Area, the bag by colour, Rage, countdown, health, gold, items, artifacts carried, taken
secrets, deck and hand sizes, and the active player's resource pool.
Own: hand, and what one's own deck holds (as counts: the order is unknown even to its owner).
Never: another hand, any deck order, face-down secrets, returned artifacts, the dungeon deck,
the random streams.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.games.clank.engine import ClankGame

__all__ = ["observe", "observe_all"]


def _counts(cards: list[str]) -> dict[str, int]:
    return dict(sorted(Counter(cards).items()))


def observe(game: ClankGame, seat: int) -> dict[str, Any]:
    """The observation of `seat` (JSON-able)."""
    s = game.s
    if not 0 <= seat < s.players_n:
        raise ValueError(f"no seat {seat}")
    rules = game.content.rules
    me = s.players[seat]
    players = []
    for i, p in enumerate(s.players):
        players.append(
            {
                "seat": i,
                "room": p.room,
                "status": p.status,
                "forfeited": p.forfeited,
                "damage": p.damage,
                "health": rules["health"] - p.damage,
                "supply": p.supply,
                "gold": p.gold,
                "artifacts": list(p.artifacts),
                "items": sorted(p.items),
                "idols": p.idols,
                "secrets": sorted(p.kept_secrets),
                "potions": sorted(p.potions),
                "mastery": p.mastery,
                "hand_size": len(p.hand),
                "deck_size": len(p.deck),
                "play": list(p.play),
                "discard": list(p.discard),
                "trashed": p.trashed,
                "clank_area": s.clank_area[i],
                "bag_cubes": s.bag_cubes[i],
            }
        )
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
    return {
        "game": "clank",
        "seat": seat,
        "step": s.step,
        "round": s.round,
        "current": s.current,
        "over": s.over,
        "board": s.board,
        "you": {
            "hand": list(me.hand),
            "deck_contents": _counts(me.deck),
            "may_take": me.may_take,
        },
        "players": players,
        "pool": {
            "skill": s.pool.skill,
            "swords": s.pool.swords,
            "boots": s.pool.boots,
            "teleports": s.pool.teleports,
            "negative_clank": s.pool.negative_clank,
            "exhausted": s.pool.exhausted,
        },
        "pending": pending,
        "row": list(s.row),
        "dungeon_deck_size": len(s.dungeon_deck),
        "dungeon_discard": list(s.dungeon_discard),
        "reserve": dict(s.reserve),
        "market": dict(s.market),
        "crowns_sold": s.crowns_sold,
        "mastery_left": s.mastery_left,
        "rage": s.rage,
        "rage_draws": rules["rage_track"][s.rage],
        "bag": {"black": s.bag_black, "cubes": list(s.bag_cubes)},
        "clank_area": list(s.clank_area),
        "artifacts": dict(sorted(s.artifacts.items())),
        "minor_secrets": {r: len(v) for r, v in sorted(s.minor_secrets.items()) if v},
        "major_secrets": {r: len(v) for r, v in sorted(s.major_secrets.items()) if v},
        "idols": list(s.idols),
        "countdown": s.countdown,
        "countdown_seat": s.countdown_seat,
        "last_attack": dict(s.last_attack),
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
