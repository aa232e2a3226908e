"""The parts of an observation both Clank! games build alike (their `observation.py` call these).

A seat's view of a player, of the turn pool, of its own hand and deck, of the pending choice,
what `observe_all` adds (every hand and deck) and the lines `summarize` prints of the hands, the
pool and the row are the same in Clank! and Clank! Legacy. Each game adds its own fields at its
own places (`player_view` takes them), so an observation's keys keep the order they always had.
These run at every decision: copies rather than `list()`, and `sorted(x) if x else []` (most of
these lists are empty most of the game).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from referee.core.game import Decision
from referee.games.clank_core.game import GamePlayer
from referee.games.clank_core.rules import CoreCard, card_counts
from referee.games.clank_core.state import TurnPool

__all__ = [
    "check_seat",
    "pending_view",
    "player_view",
    "players_view",
    "pool_view",
    "reveal_all",
    "summary_lines",
    "you_view",
]


class SeenPlayer(GamePlayer, Protocol):
    """What the shared views read of a player, beyond the shared accessors' shape."""

    kept_secrets: list[str]
    potions: list[str]
    may_take: bool


def check_seat(players_n: int, seat: int) -> None:
    """Refuse a seat the game does not have (ValueError)."""
    if not 0 <= seat < players_n:
        raise ValueError(f"no seat {seat}")


#: a game's own fields of a player: (after `items`, after `potions`, after `trashed`)
OwnFields = Callable[[Any], tuple[Mapping[str, Any], Mapping[str, Any], Mapping[str, Any]]]


def players_view(
    players: Sequence[SeenPlayer],
    place: str,
    health: int,
    clank_area: Sequence[int],
    bag_cubes: Sequence[int],
    own: OwnFields,
) -> list[dict[str, Any]]:
    """Every player's `player_view`, its figure's place read from the field `place` ("room",
    "space"), its game's own fields from `own(player)`."""
    return [
        player_view(i, p, (place, getattr(p, place)), health, clank_area, bag_cubes, *own(p))
        for i, p in enumerate(players)
    ]


def player_view(
    i: int,
    p: SeenPlayer,
    where: tuple[str, str],
    health: int,
    clank_area: Sequence[int],
    bag_cubes: Sequence[int],
    after_items: Mapping[str, Any],
    after_potions: Mapping[str, Any],
    after_trashed: Mapping[str, Any],
) -> dict[str, Any]:
    """What every seat sees of player `i`: `where` is the game's (key, place) of its figure, and
    the game's own fields go after `items`, after `potions` and after `trashed`. A Clank! Area or
    a bag not set up yet (before a Legacy game's Prologue chose its board) reads 0."""
    return {
        "seat": i,
        where[0]: where[1],
        "status": p.status,
        "forfeited": p.forfeited,
        "damage": p.damage,
        "health": health - p.damage,
        "supply": p.supply,
        "gold": p.gold,
        "artifacts": p.artifacts.copy(),
        "items": sorted(p.items) if p.items else [],
        **after_items,
        "secrets": sorted(p.kept_secrets) if p.kept_secrets else [],
        "potions": sorted(p.potions) if p.potions else [],
        **after_potions,
        "hand_size": len(p.hand),
        "deck_size": len(p.deck),
        "play": p.play.copy(),
        "discard": p.discard.copy(),
        "trashed": p.trashed,
        **after_trashed,
        "clank_area": clank_area[i] if clank_area else 0,
        "bag_cubes": bag_cubes[i] if bag_cubes else 0,
    }


def you_view(me: SeenPlayer) -> dict[str, Any]:
    """What a seat sees of itself only: its hand, its deck's contents (not the order), and
    whether it may still take a token where it stands."""
    return {"hand": me.hand.copy(), "deck_contents": card_counts(me.deck), "may_take": me.may_take}


def pool_view(pool: TurnPool) -> dict[str, Any]:
    """The active player's turn pool."""
    return {
        "skill": pool.skill,
        "swords": pool.swords,
        "boots": pool.boots,
        "teleports": pool.teleports,
        "negative_clank": pool.negative_clank,
        "exhausted": pool.exhausted,
    }


def pending_view(decision: Decision | None, stack: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The pending choice on top of the stack (None on a main turn or when the game is over)."""
    if decision is None or decision.kind == "turn":
        return None
    top = stack[-1]
    return {
        "kind": decision.kind,
        "seat": decision.seat,
        "prompt": decision.prompt,
        "options": top.get("options", []),
        "then": top.get("then", []),
    }


def reveal_all(public: dict[str, Any], players: Sequence[SeenPlayer]) -> dict[str, Any]:
    """`observe_all`'s start, from the current seat's observation: no seat, every hand and deck
    (the game adds its own hidden piles)."""
    public["seat"] = None
    public["you"] = None
    public["hands"] = [list(p.hand) for p in players]
    public["decks"] = [list(p.deck) for p in players]
    return public


def summary_lines(cards: Mapping[str, CoreCard], obs: Mapping[str, Any]) -> list[str]:
    """`summarize`'s lines of the hand (every hand, in an `observe_all`), the pool and the row."""
    if obs["you"] is not None:
        hands = "hand: " + ", ".join(cards[c].name for c in obs["you"]["hand"])
    else:
        hands = "hands: " + " | ".join(", ".join(cards[c].name for c in h) for h in obs["hands"])
    pool = obs["pool"]
    return [
        hands,
        f"pool: skill {pool['skill']} swords {pool['swords']} boots {pool['boots']}"
        f" teleports {pool['teleports']}{' exhausted' if pool['exhausted'] else ''}",
        "row: " + ", ".join(cards[c].name if c else "-" for c in obs["row"]),
    ]
