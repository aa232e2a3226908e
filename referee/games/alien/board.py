"""Alien's board drawn as HTML from an observation (`SPEC.board`; the helpers and the rule that it
reads the observation only: `referee/games/board_html.py`)."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from referee.core.game import Game
from referee.games import board_html

__all__ = ["draw"]



def draw(game: Game, obs: Mapping[str, Any]) -> str:
    """Alien: the Complex's rooms, the Combat Zone, the Hive, the objective, HQ and the
    players' health, and the hand(s) the observation holds."""
    content: Any = getattr(game, "content")  # noqa: B009 - every Alien game has its content
    cards, hive = content.cards, content.hive_cards
    parts = ["<section class='board alien'><h3>Board</h3>"]
    rooms = []
    for i, room in enumerate(obs.get("complex", [])):
        if room is None:
            rooms.append(f"<li class='room empty' data-room={i}><b>room {i + 1}</b><br>empty</li>")
        elif room.get("up"):
            rooms.append(
                f"<li class='room up' data-room={i}><b>room {i + 1}</b><br>"
                f"{escape(board_html.name(hive, room.get('card')))}</li>"
            )
        else:
            rooms.append(f"<li class='room down' data-room={i}><b>room {i + 1}</b><br>face down</li>")
    parts.append(f"<h4>The Complex</h4><ol class=complex>{''.join(rooms)}</ol>")
    combat = obs.get("combat", [])
    huggers = "".join(
        f"<li>{escape(board_html.name(hive, f.get('card')))} on seat {int(f.get('seat', -1))}</li>"
        for f in obs.get("facehuggers", [])
    )
    objectives = content.objectives
    index = int(obs.get("objective", 0))
    objective = objectives[index] if index < len(objectives) else None
    parts.append(
        "<div class=zones>"
        f"<div class=zone><h4>Combat Zone</h4>{board_html.cards(hive, combat, 'cards combat')}"
        f"{f'<h4>Facehuggers</h4><ul class=cards>{huggers}</ul>' if huggers else ''}</div>"
        f"<div class=zone><h4>Hive</h4><p>{int(obs.get('hive_size', 0))} cards in the Hive; "
        f"Hatchery {int(obs.get('hatchery_size', 0))}; chestbursters left "
        f"{int(obs.get('chestbursters_left', 0))}</p>"
        f"<p>Hive discard: "
        f"{escape(', '.join(board_html.name(hive, c) for c in obs.get('hive_discard', [])) or '-')}</p>"
        f"</div>"
        f"<div class=zone><h4>Objective {index + 1} of {len(objectives)}</h4>"
        f"<p>{escape(objective.name if objective else 'all done')}</p>"
        f"<p class=meta>{escape(objective.text if objective else '')}</p>"
        f"<p>met: {escape(', '.join(map(str, obs.get('met', []))) or '-')}; hazards used "
        f"{int(obs.get('hazards_used', 0))}</p></div>"
        f"<div class=zone><h4>HQ</h4>"
        f"{board_html.cards(cards, [c for c in obs.get('hq', []) if c], 'cards hq')}"
        f"<p class=meta>Barracks {int(obs.get('barracks_size', 0))}, strike deck "
        f"{int(obs.get('strike_deck_size', 0))}</p></div></div>"
    )
    rows = []
    for p in obs["players"]:
        seat = int(p["seat"])
        health, left = int(p["health"]), int(p["health_left"])
        bar = (
            f"<svg class=health width=100 height=10 role=img aria-label='{left} of {health}'>"
            f"<rect width=100 height=10 fill='#eee'/><rect width={100 * left // max(health, 1)} "
            f"height=10 fill='{board_html.colour(seat)}'/></svg>"
        )
        rows.append(
            f"<tr data-seat={seat}><td><span class=pawn style='background:{board_html.colour(seat)}'></span>"
            f"{seat}</td><td>{escape(str(p['role']))}</td><td>{escape(str(p['status']))}</td>"
            f"<td>{bar} {left}/{health}</td><td class=num>{int(p['hand_size'])}</td>"
            f"<td class=num>{int(p['deck_size'])}</td>"
            f"<td>{escape(', '.join(board_html.name(cards, c) for c in p['play']) or '-')}</td></tr>"
        )
    pool = obs.get("pool", {})
    parts.append(
        "<table class=players><tr><th>seat</th><th>role</th><th>status</th><th>health</th>"
        f"<th>hand</th><th>deck</th><th>in play</th></tr>{''.join(rows)}</table>"
        f"<p>Turn pool: attack {int(pool.get('attack', 0))}, recruit {int(pool.get('recruit', 0))}</p>"
    )
    parts.append(board_html.hands(cards, obs))
    parts.append("</section>")
    return "".join(parts)
