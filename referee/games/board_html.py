"""Drawing helpers the games' boards share (each game's drawing is `referee/games/<name>/board.py`,
named in its spec's `board`).

A board is drawn from an observation only (a seat's, or the whole state) plus the game's public
content (board layout, card names), never from the game state itself, so a seat's view cannot
show what its observation does not hold. The result is an HTML string (with inline SVG): plain
data, so the referee layer draws and the web viewer (`ladder.web.viewer.render_board`) only
places it on a page.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

__all__ = ["cards", "colour", "counted", "hands", "name"]

_COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


def colour(seat: int) -> str:
    """The colour seat `seat` is drawn in (pawns, cubes, health bars)."""
    return _COLOURS[seat % len(_COLOURS)]


def name(names: Mapping[str, Any], card: str | None) -> str:
    """A card's display name from `names` (id -> content object), its id if unknown, "-" for none."""
    if card is None:
        return "-"
    found = names.get(card)
    return str(getattr(found, "name", card)) if found is not None else str(card)


def cards(names: Mapping[str, Any], ids: Sequence[str], cls: str = "cards", attrs: str = "") -> str:
    """A list of cards by name."""
    items = "".join(f"<li>{escape(name(names, c))}</li>" for c in ids)
    return f"<ul class='{cls}'{attrs}>{items or '<li class=none>none</li>'}</ul>"


def counted(names: Mapping[str, Any], counts: Mapping[str, int]) -> str:
    """A list of piles: each card by name with how many are left."""
    items = "".join(f"<li>{escape(name(names, c))} <b>x{int(n)}</b></li>" for c, n in counts.items())
    return f"<ul class=cards>{items or '<li class=none>none</li>'}</ul>"


def hands(names: Mapping[str, Any], obs: Mapping[str, Any]) -> str:
    """The hands the observation holds: the seat's own, or every hand in the whole state."""
    you = obs.get("you")
    if isinstance(you, Mapping):
        seat = int(obs["seat"])
        return (
            f"<div class=zone><h4>Hand of seat {seat}</h4>"
            f"{cards(names, you.get('hand', []), 'cards hand', f' data-seat={seat}')}</div>"
        )
    hands = obs.get("hands")
    if isinstance(hands, list):
        return "".join(
            f"<div class=zone><h4>Hand of seat {i}</h4>"
            f"{cards(names, h, 'cards hand', f' data-seat={i}')}</div>"
            for i, h in enumerate(hands)
        )
    return ""
