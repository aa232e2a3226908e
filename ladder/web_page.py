"""The server-rendered home page: every ladder and its standings, no JavaScript."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from ladder.queries import ScenarioRating, StandingsPage

__all__ = ["render_home"]

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; color: #222; }
table { border-collapse: collapse; margin-bottom: 2rem; width: 100%; }
th, td { padding: .3rem .6rem; border-bottom: 1px solid #ddd; text-align: left; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.meta { color: #666; font-size: .9rem; }
"""


def _scenario_table(table: Sequence[ScenarioRating]) -> str:
    rows = []
    for s in table:
        marker = " <span class=meta>(provisional)</span>" if s["provisional"] else ""
        rows.append(
            "<tr>"
            f"<td class=num>{s['rank']}</td>"
            f"<td>{escape(s['description'])}{marker}</td>"
            f"<td class=num>{s['rating']:.1f}</td>"
            f"<td class=num>{s['games']}</td>"
            f"<td class=num>{s['team_wins']}</td>"
            "</tr>"
        )
    body = "".join(rows) or "<tr><td colspan=5 class=meta>No scenario played yet.</td></tr>"
    return (
        "<h3>Scenarios</h3>"
        "<table><thead><tr><th class=num>#</th><th>Scenario</th><th class=num>Rating</th>"
        "<th class=num>Games</th><th class=num>Team wins</th></tr></thead>"
        f"<tbody>{body}</tbody></table>"
    )


def _ladder_section(page: StandingsPage, scenarios: Sequence[ScenarioRating] | None) -> str:
    ladder = page["ladder"]
    coop = ladder["kind"] == "coop"
    tc = ladder["time_control"]
    rows = []
    for s in page["standings"]:
        marker = " <span class=meta>(provisional)</span>" if s["provisional"] else ""
        rows.append(
            "<tr>"
            f"<td class=num>{s['rank']}</td>"
            f'<td><a href="/api/bots/{s["bot_id"]}">{escape(s["bot_name"])}</a>{marker}</td>'
            f"<td>{escape(s['owner'])}</td>"
            f"<td class=num>{s['rating']:.1f}</td>"
            f"<td class=num>{s['games']}</td>"
            f"<td class=num>{s['wins']}</td>"
            "</tr>"
        )
    body = "".join(rows) or "<tr><td colspan=6 class=meta>No bots on this ladder yet.</td></tr>"
    return (
        f'<h2 id="ladder-{ladder["id"]}">{escape(ladder["name"])}</h2>'
        f"<p class=meta>{escape(ladder['game'])}, {ladder['players']} players"
        f"{' (cooperative: teams rated against scenarios)' if coop else ''}; "
        f"{tc['decision_ms']} ms per decision, {tc['bank_ms']} ms bank, "
        f"{tc['max_strikes']} strikes allowed. "
        f'<a href="/api/ladders/{ladder["id"]}/standings">JSON</a>'
        + (f' · <a href="/api/ladders/{ladder["id"]}/scenarios">scenarios JSON</a>' if coop else "")
        + "</p>"
        "<table><thead><tr><th class=num>#</th><th>Bot</th><th>Owner</th>"
        "<th class=num>Rating</th><th class=num>Games</th>"
        f"<th class=num>{'Team wins' if coop else 'Wins'}</th></tr></thead>"
        f"<tbody>{body}</tbody></table>"
        + (_scenario_table(scenarios or ()) if coop else "")
    )


def render_home(
    pages: Sequence[StandingsPage], scenarios: Mapping[int, Sequence[ScenarioRating]] | None = None
) -> str:
    """The HTML of the home page for these ladders' standings.

    `scenarios` holds the scenario table of each cooperative ladder, by ladder id.
    """
    scenarios = scenarios or {}
    sections = (
        "".join(_ladder_section(p, scenarios.get(p["ladder"]["id"])) for p in pages)
        or "<p>No ladders yet.</p>"
    )
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f"<title>Arena ladders</title><style>{_STYLE}</style></head>"
        f"<body><h1>Arena ladders</h1>{sections}"
        '<p class=meta>API: <a href="/api/ladders">/api/ladders</a> · '
        '<a href="/docs">/docs</a> · <a href="/metrics">/metrics</a></p>'
        "</body></html>"
    )
