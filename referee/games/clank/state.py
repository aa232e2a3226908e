"""The Clank! game state: plain data, JSON-able, copyable and hashable.

Only primitives, lists and dicts live here (no objects with behaviour), so that
`to_json` / `from_json` are exact and a digest of the state is stable across machines.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee.core.state_data import DataState
from referee.games.clank_core.state import ESCAPED, KNOCKED_OUT, PLAYING, TurnPool

__all__ = ["ESCAPED", "KNOCKED_OUT", "PLAYING", "ClankState", "PlayerState", "TurnPool"]


@dataclass(slots=True)
class PlayerState:
    """One player's pieces."""

    deck: list[str]
    hand: list[str] = field(default_factory=list)
    play: list[str] = field(default_factory=list)
    discard: list[str] = field(default_factory=list)
    room: str = ""
    damage: int = 0
    supply: int = 30
    gold: int = 0
    artifacts: list[int] = field(default_factory=list)
    items: list[str] = field(default_factory=list)
    crown_points: int = 0
    idols: int = 0
    #: taken secrets kept for their points (chalices, dragon eggs...), by secret id
    kept_secrets: list[str] = field(default_factory=list)
    #: potions held face up, drunk later
    potions: list[str] = field(default_factory=list)
    status: str = PLAYING
    mastery: bool = False
    #: forfeited seats score zero whatever they carry
    forfeited: bool = False
    #: may take one token (or buy one market item) in the current room: set on entering it,
    #: cleared on taking, on leaving and at the end of the turn ("when you enter a room")
    may_take: bool = False
    #: cards acquired this turn, by where they are now (a draw effect may reshuffle the discard
    #: pile into the deck mid-turn and draw one); "other newly acquired cards cannot be used
    #: that turn", so those drawn (new_hand) cannot be played. All three empty between turns.
    new_discard: list[str] = field(default_factory=list)
    new_deck: list[str] = field(default_factory=list)
    new_hand: list[str] = field(default_factory=list)
    #: how many cards this player trashed (they leave the game)
    trashed: int = 0


@dataclass(slots=True)
class ClankState(DataState):
    """The whole state of one Clank! game."""

    player_class = PlayerState
    nested_classes = {"pool": TurnPool}

    seed: int
    players_n: int
    board: str
    content_version: str
    players: list[PlayerState]
    step: int = 0
    round: int = 1
    current: int = 0
    pool: TurnPool = field(default_factory=TurnPool)
    dungeon_deck: list[str] = field(default_factory=list)
    dungeon_discard: list[str] = field(default_factory=list)
    row: list[str | None] = field(default_factory=list)
    reserve: dict[str, int] = field(default_factory=dict)
    clank_area: list[int] = field(default_factory=list)
    bag_black: int = 0
    bag_cubes: list[int] = field(default_factory=list)
    rage: int = 0
    artifacts: dict[str, int] = field(default_factory=dict)
    returned_artifacts: list[int] = field(default_factory=list)
    minor_secrets: dict[str, list[str]] = field(default_factory=dict)
    major_secrets: dict[str, list[str]] = field(default_factory=dict)
    unused_secrets: list[str] = field(default_factory=list)
    idols: list[str] = field(default_factory=list)
    market: dict[str, int] = field(default_factory=dict)
    crowns_sold: int = 0
    mastery_left: int = 0
    #: countdown space (-1: not started); advances each time the turn order reaches countdown_seat
    countdown: int = -1
    countdown_seat: int = -1
    #: pending choices, top of stack last; each a JSON-able dict with "kind" and "seat"
    stack: list[dict[str, Any]] = field(default_factory=list)
    rng: dict[str, int] = field(default_factory=dict)
    #: public record of the most recent dragon attack
    last_attack: dict[str, Any] = field(default_factory=dict)
    over: bool = False

    # copy, json_view, to_json, from_json: DataState
