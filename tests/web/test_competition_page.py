"""The competition page, from the competitions API's results (``ladder.competitions``)."""

from __future__ import annotations

import re

import sqlalchemy as sa
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from ladder.api import create_app
from ladder.competitions import create_competition, parse_entry
from ladder.queries import INTERVAL_MIN_GAMES
from ladder.schema import bot_versions, competitions, rating_history

from .seeding import seed_competition


def test_competition_page_standings_crosstable_progress_and_games(engine: Engine, db_url: str) -> None:
    cid = seed_competition(engine, db_url)
    with TestClient(create_app(engine)) as client:
        results = client.get(f"/api/competitions/{cid}/results").json()
        response = client.get(f"/competitions/{cid}")
        assert response.status_code == 200
        html = response.text
        standings = html.split("<table id=standings>", 1)[1].split("</table>", 1)[0]
        row_start = r'<tr><td class=num>\d+</td><td><a href="/bots/(\d+)">([^<]+)</a></td>'
        linked = re.findall(row_start, standings)
        assert [name for _, name in linked] == [row["bot"] for row in results["standings"]]
        # each name links to the bot behind the entrant's version, in every table that names it
        bot_of = {e["name"]: _bot_of(engine, e["bot_version_id"]) for e in results["competition"]["field"]}
        assert {name: int(bot) for bot, name in linked} == bot_of
        for name, bot in bot_of.items():
            link = f'<a href="/bots/{bot}">{name}</a>'
            for table, end in (("crosstable", "</table>"), ("field", "</ul>"), ("games", "</table>")):
                part = html.split(f"id={table}>", 1)[1].split(end, 1)[0]
                assert link in part, (table, name)
        # 4 games each: fewer than INTERVAL_MIN_GAMES, so "too few games", not a point interval
        assert all(row["games"] < INTERVAL_MIN_GAMES for row in results["standings"])
        # the interval of each row, and the bootstrap's P(better than next) of the first
        assert standings.count("too few games") == len(results["standings"]) + 1 and "[1" not in standings
        assert "100%" not in standings and results["standings"][0]["los_next"] == 1.0
        head = standings.split("</thead>", 1)[0]
        assert 'href="/ratings#competitions-maximum-likelihood-elo-with-bootstrap-intervals"' in head
        assert "95% confidence interval" in html.split("id=interval-note>", 1)[1].split("</p>", 1)[0]
        played = results["counts"]["played"]
        assert played == 4 and f"{played} of {played} games played" in html
        assert "<table id=crosstable>" in html and "<table id=seat-effect>" in html
        for game in results["games"]:
            assert f'href="/matches/{game["match_id"]}"' in html
        # the match pages of its games work too, and name the competition, not its hidden ladder,
        # whose per-game ratings mean nothing
        game = client.get(f"/matches/{results['games'][0]['match_id']}")
        assert game.status_code == 200
        assert f'<a id=part-of href="/competitions/{cid}">competition web cup</a>' in game.text
        seats = game.text.split("<table id=seats>", 1)[1].split("</table>", 1)[0]
        seat_rows = re.findall(r"<tr data-seat.*?</tr>", seats, re.S)
        rows = [re.findall(r"<td[^>]*>(.*?)</td>", row, re.S) for row in seat_rows]
        assert len(rows) == 2 and [row[6] for row in rows] == ["-", "-"], rows
        with engine.connect() as conn:
            hidden = conn.execute(
                sa.select(competitions.c.ladder_id).where(competitions.c.id == cid)
            ).scalar_one()
            counted = sa.select(sa.func.count()).select_from(rating_history)
            assert conn.execute(counted.where(rating_history.c.ladder_id == hidden)).scalar_one() > 0
        moved = client.get(f"/ladders/{hidden}", follow_redirects=False)
        assert moved.status_code == 307 and moved.headers["location"] == f"/competitions/{cid}"
        listed = client.get(f"/matches?ladder={hidden}").text
        assert f'<a href="/competitions/{cid}">competition web cup</a>' in listed
        home = client.get("/").text
        assert f'<a href="/competitions/{cid}">web cup</a>' in home
        # the index, linked from the home page and every page's header
        assert '<a id=all-competitions href="/competitions">' in home
        assert '<a href="/competitions">Competitions</a>' in client.get("/bots").text
        index = client.get("/competitions")
        assert index.status_code == 200 and index.headers["content-type"].startswith("text/html")
        assert f'<a href="/competitions/{cid}">web cup</a>' in index.text
        pair = [parse_entry("clank", "greedy"), parse_entry("clank", "random")]
        more = [
            create_competition(engine, game="clank", players=2, fmt="round-robin", field=pair, name=f"c{i}")
            for i in range(2)
        ]
        first = client.get("/competitions?limit=2").text
        assert f'href="/competitions/{more[1]}"' in first and f'href="/competitions/{cid}"' not in first
        assert f'<a id=next-page rel=next href="/competitions?limit=2&amp;before={more[0]}">' in first
        second = client.get(f"/competitions?limit=2&before={more[0]}").text
        assert f'href="/competitions/{cid}"' in second and "id=next-page" not in second
        assert f'<a id=previous-page rel=prev href="/competitions?limit=2&amp;after={cid}">' in second
        back = client.get(f"/competitions?limit=2&after={cid}").text
        listed = re.compile(r'href="/competitions/(\d+)"')
        assert listed.findall(back) == listed.findall(first) == [str(more[1]), str(more[0])]
        assert client.get("/competitions?before=x").status_code == 400
        for bad in ("/competitions/999999", "/competitions/x", "/competitions/99999999999"):
            missing = client.get(bad)
            assert missing.status_code == 404 and "<h1>Not found</h1>" in missing.text



def _bot_of(engine: Engine, version_id: int) -> int:
    """The bot id behind a bot version."""
    with engine.connect() as conn:
        return int(
            conn.execute(sa.select(bot_versions.c.bot_id).where(bot_versions.c.id == version_id)).scalar_one()
        )


def test_the_standings_show_the_formats_own_columns(engine: Engine, db_url: str) -> None:
    """A Swiss and a knockout, played in-process: the page's standings have each format's
    columns (``Format.columns``: Buchholz and byes, the round reached with "(out)"), valued as
    the results say."""
    from ladder import formats
    from workers.match_execution import engine_for
    from workers.tournament import Inline, run_competition

    field = [parse_entry("clank", name) for name in ("greedy", "random", "random")]
    made = {
        fmt: create_competition(engine, game="clank", players=2, fmt=fmt, field=field, seed=2, rounds=1)
        for fmt in ("swiss", "knockout")
    }
    for cid in made.values():
        run_competition(engine, cid, Inline(db_url), timeout=120)
    engine_for(db_url).dispose()
    with TestClient(create_app(engine)) as client:
        for fmt, cid in made.items():
            results = client.get(f"/api/competitions/{cid}/results").json()
            html = client.get(f"/competitions/{cid}").text
            standings = html.split("<table id=standings>", 1)[1].split("</table>", 1)[0]
            head, body = standings.split("</thead>", 1)
            columns = formats.get(fmt).columns
            assert columns and all(f"<th class=num>{c.title}</th>" in head for c in columns)
            rows = re.findall(r"<tr>(.*?)</tr>", body, re.S)
            assert len(rows) == len(results["standings"]) == 3
            for row, data in zip(rows, results["standings"], strict=True):
                cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
                shown = cells[-len(columns):]
                for cell, column in zip(shown, columns, strict=True):
                    marked = column.mark_key is not None and data[column.mark_key]
                    mark = f" <span class=meta>({column.mark})</span>" if marked else ""
                    assert cell == f"{data[column.key]}{mark}", (fmt, cell, data)
        knocked = client.get(f"/api/competitions/{made['knockout']}/results").json()["standings"]
        assert any(r["eliminated"] for r in knocked)  # the "(out)" mark was shown
