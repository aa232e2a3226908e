"""The Clank! Legacy game state: plain data, JSON-able, copyable and hashable.

Only primitives, lists and dicts live here, so `to_json` / `from_json` are exact and a digest of
the state is stable across machines. The campaign state the game started from (`campaign`) and
the campaign state as this game changes it (`campaign_now`) are kept as their canonical JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee.core.state_data import DataState
from referee.games.clank_core.state import ESCAPED, KNOCKED_OUT, PLAYING, TurnPool

__all__ = [
    "ESCAPED",
    "KNOCKED_OUT",
    "PHASE_EPILOGUE",
    "PHASE_OVER",
    "PHASE_PLAY",
    "PHASE_PROLOGUE",
    "PLAYING",
    "LegacyPlayer",
    "LegacyState",
    "TurnLog",
    "TurnPool",
]

PHASE_PROLOGUE = "prologue"
PHASE_PLAY = "play"
PHASE_EPILOGUE = "epilogue"
PHASE_OVER = "over"


@dataclass(slots=True)
class LegacyPlayer:
    """One employee's pieces."""

    deck: list[str]
    hand: list[str] = field(default_factory=list)
    play: list[str] = field(default_factory=list)
    discard: list[str] = field(default_factory=list)
    space: str = ""
    damage: int = 0
    supply: int = 30
    gold: int = 0
    artifacts: list[int] = field(default_factory=list)
    #: market items bought (one of each type)
    items: list[str] = field(default_factory=list)
    #: taken secrets kept for their points, by secret id
    kept_secrets: list[str] = field(default_factory=list)
    #: potions held face up, drunk later
    potions: list[str] = field(default_factory=list)
    #: mystic fruit held: unexpended and expended
    fruit: int = 0
    fruit_expended: int = 0
    mug: bool = False
    status: str = PLAYING
    forfeited: bool = False
    #: may take one token (artifact, major secret, mystic fruit) on the space just entered
    may_take: bool = False
    #: spaces entered this game (read when rules.json limits a trigger to the first entry)
    visited: list[str] = field(default_factory=list)
    #: turns begun this game (`first_turn` abilities resolve on the first)
    turns: int = 0
    #: cards acquired this turn, by where they are now (see Clank!'s PlayerState)
    new_discard: list[str] = field(default_factory=list)
    new_deck: list[str] = field(default_factory=list)
    new_hand: list[str] = field(default_factory=list)
    trashed: int = 0


@dataclass(slots=True)
class TurnLog:
    """What the turn in progress did (Contracts and the Patron read it); reset every turn."""

    acquired: int = 0
    defeated: int = 0
    patron_used: bool = False
    #: card conditions not yet met: judged again after every action and at the end of play
    #: ("card effects resolve regardless of play order"); each {"seat", "source", "effect"}
    deferred: list[dict[str, Any]] = field(default_factory=list)


@dataclass(slots=True)
class LegacyState(DataState):
    """The whole state of one Clank! Legacy game."""

    player_class = LegacyPlayer
    nested_classes = {"pool": TurnPool, "turn": TurnLog}

    seed: int
    players_n: int
    content_version: str
    #: the campaign state before this game, and as this game has changed it so far (JSON)
    campaign: dict[str, Any]
    campaign_now: dict[str, Any]
    prologue: int
    epilogue: int
    players: list[LegacyPlayer]
    phase: str = PHASE_PROLOGUE
    board: str = ""
    #: indices into the board's paths that are usable (hidden/revealed/blocked applied)
    open_paths: list[int] = field(default_factory=list)
    step: int = 0
    round: int = 1
    #: the first player of every round (drawn at setup), and the seat whose turn it is
    first: int = 0
    current: int = 0
    pool: TurnPool = field(default_factory=TurnPool)
    turn: TurnLog = field(default_factory=TurnLog)
    adventure_deck: list[str] = field(default_factory=list)
    adventure_discard: list[str] = field(default_factory=list)
    row: list[str | None] = field(default_factory=list)
    reserve: dict[str, int] = field(default_factory=dict)
    patrons: list[str] = field(default_factory=list)
    contracts: list[str] = field(default_factory=list)
    #: once-only Contracts already claimed: contract id -> seat
    claimed: dict[str, int] = field(default_factory=dict)
    clank_area: list[int] = field(default_factory=list)
    bag_black: int = 0
    bag_cubes: list[int] = field(default_factory=list)
    rage: int = 0
    artifacts: dict[str, int] = field(default_factory=dict)
    #: face-down major secrets on their spaces
    major_secrets: dict[str, list[str]] = field(default_factory=dict)
    #: the Bank's face-down tokens
    bank_minor: list[str] = field(default_factory=list)
    bank_major: list[str] = field(default_factory=list)
    #: spaces still holding their (unexpended) mystic fruit, and fruit left in the supply
    fruit_spaces: list[str] = field(default_factory=list)
    fruit_supply: int = 0
    market: dict[str, int] = field(default_factory=dict)
    mugs: int = 0
    #: pending choices, top of stack last; each a JSON-able dict with "kind" and "seat"
    stack: list[dict[str, Any]] = field(default_factory=list)
    #: the passage being resolved (prologue / epilogue): its id and the effects still to resolve
    passage: dict[str, Any] = field(default_factory=dict)
    #: group choices made in this game's prologue and epilogue (option indices, in order)
    choices: list[int] = field(default_factory=list)
    rng: dict[str, int] = field(default_factory=dict)
    last_attack: dict[str, Any] = field(default_factory=dict)
    #: why play ended ("all_off_the_clock", "bag_empty"), "" while it goes on
    end_reason: str = ""
    mvp: int = -1

    @property
    def over(self) -> bool:
        """The game (epilogue included) has ended."""
        return self.phase == PHASE_OVER

    # copy, json_view, to_json, from_json: DataState
