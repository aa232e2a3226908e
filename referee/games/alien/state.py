"""The Alien game state: plain data, JSON-able, copyable and hashable.

Only primitives, lists and dicts live here (no objects with behaviour), so that `to_json` /
`from_json` are exact and a digest of the state is stable across machines.

Card piles are lists whose *last* element is the top (Hive, decks, Barracks, Strikes,
Sergeants), except the Hatchery, which is face up and read from index 0. The Complex is a list of
5 rooms, index 0 the first room (where Hive cards enter) and index 4 the Airlock; a room is
`None` or `{"card": id, "up": bool}`. The Combat Zone is a list with the newest card at index 0
(the left) and the longest-standing at the end (the right).
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field
from typing import Any

from referee.core.state_data import DataState

__all__ = ["ALIVE", "DEAD", "AlienState", "PlayerState"]

ALIVE = "alive"
DEAD = "dead"


@dataclass(slots=True)
class PlayerState:
    """One player's pieces."""

    role: str
    health: int
    deck: list[str]
    hand: list[str] = field(default_factory=list)
    #: cards played this turn, and per card whether its "Once this turn" ability was used
    play: list[str] = field(default_factory=list)
    once_used: list[bool] = field(default_factory=list)
    #: Vigilant cards that stayed in play from earlier turns
    vigilant: list[str] = field(default_factory=list)
    #: Coordinate cards set aside during another player's turn (discarded at that turn's end)
    set_aside: list[str] = field(default_factory=list)
    discard: list[str] = field(default_factory=list)
    #: Strike cards by the Avatar (misses are not kept)
    strikes: list[str] = field(default_factory=list)
    status: str = ALIVE
    forfeited: bool = False
    #: turn number at which the player died (0: alive)
    died_turn: int = 0


@dataclass(slots=True)
class AlienState(DataState):
    """The whole state of one Alien game."""

    player_class = PlayerState

    seed: int
    players_n: int
    content_version: str
    characters: list[str]
    players: list[PlayerState]
    step: int = 0
    #: global turn counter (1 = the first turn) and round counter
    turn: int = 0
    round: int = 1
    current: int = 0
    #: "hive", "hive_coordinate", "ongoing", "coordinate", "action", "strike_coordinate",
    #: "strike", "cleanup", "over"
    phase: str = "hive"
    attack: int = 0
    recruit: int = 0
    #: seats still to be asked for Coordinate in the current ask (a round of the other players)
    coordinate_queue: list[int] = field(default_factory=list)
    #: the active player may ask the team to Coordinate: an action of theirs since the last ask
    can_ask: bool = False
    #: enemies still to strike this Strike phase, one entry per strike, in order
    strike_queue: list[str] = field(default_factory=list)
    hive: list[str] = field(default_factory=list)
    complex: list[dict[str, Any] | None] = field(default_factory=list)
    combat: list[str] = field(default_factory=list)
    #: facehuggers in front of players: {"card", "seat", "expires"} (expires after that turn)
    facehuggers: list[dict[str, Any]] = field(default_factory=list)
    hatchery: list[str] = field(default_factory=list)
    chestbursters: list[str] = field(default_factory=list)
    strike_deck: list[str] = field(default_factory=list)
    strike_discard: list[str] = field(default_factory=list)
    sergeants: list[str] = field(default_factory=list)
    barracks: list[str] = field(default_factory=list)
    hq: list[str | None] = field(default_factory=list)
    hive_discard: list[str] = field(default_factory=list)
    dead_enemies: list[str] = field(default_factory=list)
    dead_characters: list[str] = field(default_factory=list)
    #: index of the current Objective (3 = all completed) and which conditions are met
    objective: int = 0
    met: list[bool] = field(default_factory=list)
    hazards_used: int = 0
    #: public record of strikes since the last Strike phase began: {"enemy", "strike", "seat"}
    strike_log: list[dict[str, Any]] = field(default_factory=list)
    #: pending choices, top of stack last; each a JSON-able dict with "kind" and "seat"
    stack: list[dict[str, Any]] = field(default_factory=list)
    rng: dict[str, int] = field(default_factory=dict)
    over: bool = False
    won: bool = False
    #: why the game ended: "objectives", "all_dead", "round_limit"
    ended_by: str = ""

    # copy, json_view, to_json, from_json: DataState

    @staticmethod
    def _copy_input(data: dict[str, Any]) -> Any:
        return pickle.loads(pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL))
