"""What each seat may see in Alien: the one place hidden information is filtered.

Public: the Complex (face-down cards shown only as hidden), the Combat Zone, facehuggers, HQ, the
counts of the Barracks, Hive, Strike and Sergeant decks, the Hatchery's top card and count, the
Location's Hazards used, the current Objective and which conditions are met, every player's
role, health, strikes, play area, Vigilant cards, set-aside cards, discard pile and hand and deck
sizes, the turn's pool and strikes, dead enemies and characters, whose decision it is.
Own: hand, what one's own deck holds (as counts: the order is unknown even to its owner), and the
options of one's own pending choice.
Never: another hand, any deck order, face-down Complex cards, the Hive order, the random streams.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from referee.games.alien.state import ALIVE

if TYPE_CHECKING:
    from referee.games.alien.engine import AlienGame

__all__ = ["observe", "observe_all", "summarize"]


def _counts(cards: list[str]) -> dict[str, int]:
    return dict(sorted(Counter(cards).items()))


def observe(game: AlienGame, seat: int) -> dict[str, Any]:
    """The observation of `seat` (JSON-able)."""
    s = game.s
    if not 0 <= seat < s.players_n:
        raise ValueError(f"no seat {seat}")
    me = s.players[seat]
    players = []
    for i, p in enumerate(s.players):
        damage = game.damage(i)
        players.append(
            {
                "seat": i,
                "role": p.role,
                "status": p.status,
                "forfeited": p.forfeited,
                "health": p.health,
                "damage": damage,
                "health_left": max(0, p.health - damage) if p.status == ALIVE else 0,
                "strikes": list(p.strikes),
                "hand_size": len(p.hand),
                "deck_size": len(p.deck),
                "play": list(p.play),
                "once_used": list(p.once_used),
                "vigilant": list(p.vigilant),
                "set_aside": list(p.set_aside),
                "discard": list(p.discard),
            }
        )
    decision = game.decision()
    to_act = None
    pending = None
    if decision is not None:
        to_act = {"seat": decision.seat, "kind": decision.kind}
        if decision.kind != "turn" and decision.seat == seat:
            top = s.stack[-1]
            pending = {
                "kind": decision.kind,
                "prompt": decision.prompt,
                "options": top.get("options", []),
                "n": top.get("n", 0),
            }
    objectives = game.content.objectives
    return {
        "game": "alien",
        "seat": seat,
        "step": s.step,
        "turn": s.turn,
        "round": s.round,
        "current": s.current,
        "phase": s.phase,
        "over": s.over,
        "won": s.won,
        "you": {"hand": sorted(me.hand), "deck_contents": _counts(me.deck)},
        "players": players,
        "pool": {"attack": s.attack, "recruit": s.recruit},
        "to_act": to_act,
        "pending": pending,
        "complex": [
            None if r is None else {"card": r["card"] if r["up"] else None, "up": bool(r["up"])}
            for r in s.complex
        ],
        "scan_costs": list(game.content.rules["scan_costs"]),
        "combat": list(s.combat),
        "facehuggers": [dict(f) for f in s.facehuggers],
        "strike_queue": list(s.strike_queue),
        "strike_log": [dict(x) for x in s.strike_log],
        "hq": list(s.hq),
        "barracks_size": len(s.barracks),
        "hive_size": len(s.hive),
        "strike_deck_size": len(s.strike_deck),
        "strike_discard": list(s.strike_discard),
        "sergeants_size": len(s.sergeants),
        "hatchery_top": s.hatchery[0] if s.hatchery else None,
        "hatchery_size": len(s.hatchery),
        "chestbursters_left": len(s.chestbursters),
        "location": game.content.location.id,
        "hazards_used": s.hazards_used,
        "objective": s.objective,
        "objective_id": objectives[s.objective].id if s.objective < len(objectives) else None,
        "met": list(s.met),
        "hive_discard": list(s.hive_discard),
        "dead_enemies": list(s.dead_enemies),
        "dead_characters": list(s.dead_characters),
    }


def observe_all(game: AlienGame) -> dict[str, Any]:
    """Everything, for replay viewers and spectators of finished games."""
    s = game.s
    public = observe(game, s.current)
    public["seat"] = None
    public["you"] = None
    public["pending"] = None
    public["hands"] = [sorted(p.hand) for p in s.players]
    public["decks"] = [list(p.deck) for p in s.players]
    public["hive"] = list(s.hive)
    public["complex_cards"] = [None if r is None else r["card"] for r in s.complex]
    public["barracks"] = list(s.barracks)
    public["sergeants"] = list(s.sergeants)
    public["strike_deck"] = list(s.strike_deck)
    public["stack"] = [dict(x) for x in s.stack]
    return public


def summarize(game: AlienGame, obs: dict[str, Any]) -> list[str]:
    """A few readable lines of an Alien observation (for `arena replay show`)."""
    cards, hive = game.content.cards, game.content.hive_cards
    lines = []
    for p in obs["players"]:
        lines.append(
            f"seat {p['seat']}: {p['role']} {p['status']} health {p['health_left']}/{p['health']}"
            f" hand {p['hand_size']} deck {p['deck_size']} vigilant {p['vigilant']}"
        )
    if obs["you"] is not None:
        lines.append("hand: " + ", ".join(cards[c].name for c in obs["you"]["hand"]))
    rooms = ["-" if r is None else (hive[r["card"]].name if r["up"] else "??") for r in obs["complex"]]
    lines.append(
        "complex: " + " | ".join(rooms) + " -> combat: " + ", ".join(hive[c].name for c in obs["combat"])
    )
    lines.append(
        f"pool: attack {obs['pool']['attack']} recruit {obs['pool']['recruit']};"
        f" objective {obs['objective'] + 1}; hive {obs['hive_size']}; hazards used {obs['hazards_used']}"
    )
    lines.append("hq: " + ", ".join(cards[c].name if c else "-" for c in obs["hq"]))
    return lines
