"""Clank!'s board drawn as HTML and inline SVG from an observation (`SPEC.board`; the helpers
and the rule that it reads the observation only: `referee/games/board_html.py`)."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from html import escape
from typing import Any

from referee.core.game import Game
from referee.games import board_html

__all__ = ["draw"]

# --- Clank! --------------------------------------------------------------------------------

_W, _H, _RW, _RH = 150, 64, 122, 44  # column and row pitch, room box size


#: (content version, board id) -> room centres
_LAYOUTS: dict[tuple[str, str], dict[str, tuple[float, float]]] = {}


def _clank_layout(version: str, board: Any) -> dict[str, tuple[float, float]]:
    """Room centres: columns by tunnel distance from the start room, rows in board order."""
    key = (version, board.id)
    if key not in _LAYOUTS:
        _LAYOUTS[key] = _layout(board)
    return _LAYOUTS[key]


def _layout(board: Any) -> dict[str, tuple[float, float]]:
    neighbours: dict[str, list[str]] = {r: [] for r in board.rooms}
    for t in board.tunnels:
        neighbours[t.a].append(t.b)
        neighbours[t.b].append(t.a)
    depth = {board.start: 0}
    queue = deque([board.start])
    while queue:
        room = queue.popleft()
        for other in neighbours[room]:
            if other not in depth:
                depth[other] = depth[room] + 1
                queue.append(other)
    far = max(depth.values(), default=0) + 1
    columns: dict[int, list[str]] = {}
    for room in board.rooms:
        columns.setdefault(depth.get(room, far), []).append(room)
    tallest = max(len(c) for c in columns.values())
    out: dict[str, tuple[float, float]] = {}
    for col, rooms in columns.items():
        offset = (tallest - len(rooms)) * _H / 2
        for row, room in enumerate(rooms):
            out[room] = (_RW / 2 + 10 + col * _W, _RH / 2 + 10 + offset + row * _H)
    return out


def _clank_svg(game: Any, obs: Mapping[str, Any]) -> str:
    board = game.content.boards[obs["board"]]
    pos = _clank_layout(game.content_version, board)
    width = max(x for x, _ in pos.values()) + _RW / 2 + 10
    height = max(y for _, y in pos.values()) + _RH / 2 + 24
    parts = [
        f"<svg class=board-svg viewBox='0 0 {width:.0f} {height:.0f}' role=img "
        f"aria-label='{escape(board.name)}'>",
        "<defs><marker id=arrow viewBox='0 0 10 10' refX=9 refY=5 markerWidth=6 markerHeight=6 "
        "orient=auto-start-reverse><path d='M0,0 L10,5 L0,10 z' fill='#555'/></marker></defs>",
    ]
    for t in board.tunnels:
        (x1, y1), (x2, y2) = pos[t.a], pos[t.b]
        style = "tunnel"
        if t.locked:
            style += " locked"
        marker = " marker-end='url(#arrow)'" if t.one_way else ""
        # stop short of the box so a one-way arrow head is visible
        dx, dy = x2 - x1, y2 - y1
        length = max((dx * dx + dy * dy) ** 0.5, 1)
        shrink = min(0.45, 34 / length)
        ex, ey = x2 - dx * shrink, y2 - dy * shrink
        parts.append(f"<line class='{style}' x1={x1:.0f} y1={y1:.0f} x2={ex:.0f} y2={ey:.0f}{marker} />")
        labels = []
        if t.boots > 1:
            labels.append(f"{t.boots} boots")
        if t.monsters:
            labels.append(f"{t.monsters} monster{'s' if t.monsters > 1 else ''}")
        if t.locked:
            labels.append("locked")
        if labels:
            mx, my = (x1 + x2) / 2, (y1 + y2) / 2
            parts.append(
                f"<text class=tunnel-label x={mx:.0f} y={my:.0f}>{escape(', '.join(labels))}</text>"
            )
    artifacts = obs.get("artifacts", {})
    minor = obs.get("minor_secrets", {})
    major = obs.get("major_secrets", {})
    idols = set(obs.get("idols", []))
    here: dict[str, list[int]] = {}
    for p in obs["players"]:
        here.setdefault(p["room"], []).append(int(p["seat"]))
    for room_id, room in board.rooms.items():
        x, y = pos[room_id]
        cls = "room"
        if room.depths:
            cls += " depths"
        if room.market:
            cls += " market"
        if room.crystal:
            cls += " crystal"
        if room_id == board.start:
            cls += " start"
        parts.append(
            f"<g class='{cls}' data-room='{escape(room_id)}'><title>{escape(room.name)}</title>"
            f"<rect x={x - _RW / 2:.0f} y={y - _RH / 2:.0f} width={_RW} height={_RH} rx=6 />"
            f"<text class=room-name x={x:.0f} y={y - 8:.0f}>{escape(room.name[:20])}</text>"
        )
        marks = []
        if room_id in artifacts:
            marks.append(f"artifact {int(artifacts[room_id])}")
        if minor.get(room_id):
            marks.append(f"{int(minor[room_id])} minor")
        if major.get(room_id):
            marks.append("major")
        if room_id in idols:
            marks.append("idol")
        if room.market:
            marks.append("market")
        if room.crystal:
            marks.append("crystal")
        if marks:
            parts.append(f"<text class=room-marks x={x:.0f} y={y + 6:.0f}>{escape(' · '.join(marks))}</text>")
        for i, seat in enumerate(here.get(room_id, [])):
            cx = x - _RW / 2 + 12 + i * 16
            parts.append(
                f"<circle class=pawn data-seat={seat} cx={cx:.0f} cy={y + 15:.0f} r=6 "
                f"fill='{board_html.colour(seat)}'><title>seat {seat}</title></circle>"
            )
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


def draw(game: Game, obs: Mapping[str, Any]) -> str:
    """Clank!: rooms and tunnels (with boots, monsters, locks, one-way arrows), pawns, artifacts
    and secrets still on the board, the Dungeon Row, market, reserve, Clank! area, dragon bag
    and rage, the players, and the hand(s) the observation holds."""
    content: Any = getattr(game, "content")  # noqa: B009 - every Clank! game has its content
    names = content.cards
    parts = [f"<section class='board clank'><h3>Board</h3>{_clank_svg(game, obs)}"]
    row = obs.get("row", [])
    parts.append(
        "<div class=zones>"
        f"<div class=zone><h4>Dungeon Row</h4>{board_html.cards(names, row, 'cards row')}"
        f"<p class=meta>dungeon deck {int(obs.get('dungeon_deck_size', 0))} cards</p></div>"
        f"<div class=zone><h4>Market</h4>{board_html.counted(names, obs.get('market', {}))}"
        f"<p class=meta>crowns sold {int(obs.get('crowns_sold', 0))}</p></div>"
        f"<div class=zone><h4>Reserve</h4>{board_html.counted(names, obs.get('reserve', {}))}</div>"
    )
    bag = obs.get("bag", {})
    cubes = "".join(
        f"<li><span class=pawn style='background:{board_html.colour(i)}'></span>seat {i}: "
        f"{int(n)} in the Clank! area, {int(bag.get('cubes', [0] * (i + 1))[i])} in the bag</li>"
        for i, n in enumerate(obs.get("clank_area", []))
    )
    parts.append(
        f"<div class=zone><h4>Clank! and the dragon</h4><ul class=clank>{cubes}</ul>"
        f"<p>Dragon bag: {int(bag.get('black', 0))} black cubes; "
        f"rage {int(obs.get('rage', 0))} (draws {int(obs.get('rage_draws', 0))}); "
        f"countdown {int(obs.get('countdown', -1))}</p></div></div>"
    )
    rows = []
    for p in obs["players"]:
        seat = int(p["seat"])
        rows.append(
            f"<tr data-seat={seat}><td><span class=pawn style='background:{board_html.colour(seat)}'></span>"
            f"{seat}</td><td>{escape(str(p['status']))}</td><td>{escape(str(p['room']))}</td>"
            f"<td class=num>{int(p['health'])}</td><td class=num>{int(p['gold'])}</td>"
            f"<td>{escape(', '.join(map(str, p['artifacts'])) or '-')}</td>"
            f"<td class=num>{int(p['hand_size'])}</td><td class=num>{int(p['deck_size'])}</td>"
            f"<td>{escape(', '.join(board_html.name(names, c) for c in p['play']) or '-')}</td></tr>"
        )
    parts.append(
        "<table class=players><tr><th>seat</th><th>status</th><th>room</th><th>health</th>"
        "<th>gold</th><th>artifacts</th><th>hand</th><th>deck</th><th>in play</th></tr>"
        f"{''.join(rows)}</table>"
    )
    parts.append(board_html.hands(names, obs))
    parts.append("</section>")
    return "".join(parts)
