"""Line charts as inline SVG, drawn on the server (no JavaScript, no CDN)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from markupsafe import Markup

__all__ = ["line_chart"]


def line_chart(
    series: Sequence[tuple[str, str, Sequence[tuple[int, float, int]]]],
    *,
    width: int = 900,
    height: int = 280,
) -> Markup | None:
    """A chart of `series` (label, colour, [(x, y, match id or -season), ...]) with axes and a
    legend; None if empty. x is the order the points were recorded in (only its order matters: the axis says
    "recorded earlier / later"); the last point of each line is marked and titled with its
    rating and match, the value the standings show."""
    points = [p for _, _, pts in series for p in pts]
    if not points:
        return None
    left, right, top, bottom = 52, 12, 12, 28
    xs = [x for x, _, _ in points]
    ys = [y for _, y, _ in points]
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(ys), max(ys)
    if x1 == x0:
        x1 = x0 + 1
    if y1 - y0 < 20:  # a flat line still gets some room
        y0, y1 = y0 - 10, y1 + 10

    def sx(x: float) -> float:
        return left + (x - x0) / (x1 - x0) * (width - left - right)

    def sy(y: float) -> float:
        return top + (y1 - y) / (y1 - y0) * (height - top - bottom)

    parts = [
        f"<svg class=chart viewBox='0 0 {width} {height}' role=img aria-label='rating over time'>",
        f"<line class=axis x1={left} y1={top} x2={left} y2={height - bottom} />",
        f"<line class=axis x1={left} y1={height - bottom} x2={width - right} y2={height - bottom} />",
    ]
    for frac in (0.0, 0.5, 1.0):
        value = y0 + frac * (y1 - y0)
        parts.append(f"<text x=4 y={sy(value) + 4:.1f}>{value:.0f}</text>")
    parts.append(f"<text x={left} y={height - 8}>← recorded earlier</text>")
    parts.append(f"<text x={width - right - 110} y={height - 8}>recorded later →</text>")
    legend = []
    for label, colour, pts in series:
        if not pts:
            continue
        coords = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y, _ in pts)
        parts.append(
            f"<polyline points='{coords}' stroke='{escape(colour)}'><title>{escape(label)}</title></polyline>"
        )
        last_x, last_y, last_match = pts[-1]
        parts.append(
            f"<circle class=last data-series='{escape(label)}' data-rating='{last_y:.1f}' "
            f"data-match='{last_match}' cx={sx(last_x):.1f} cy={sy(last_y):.1f} r=3 "
            f"fill='{escape(colour)}'><title>{escape(label)}: {last_y:.1f} {_after(last_match)}, "
            "its latest recorded</title></circle>"
        )
        swatch = f"<span class=swatch style='background:{escape(colour)}'></span>"
        legend.append(f"<span>{swatch}{escape(label)} {last_y:.1f}</span>")
    parts.append("</svg>")
    return Markup("".join(parts) + f"<p class=legend>{''.join(legend)}</p>")


def _after(match: int) -> str:
    """What a point follows: a match (its id), or, for a negative id -n, the close of season n,
    where the ratings were shrunk toward the mean (``ladder.web.data.rating_series``)."""
    return f"after match #{match}" if match >= 0 else f"from the close of season {-match}"
