"""The server-rendered pages over a seeded database: the right rows, 404 pages, bad replays."""

from __future__ import annotations

import re
from html import unescape

import sqlalchemy as sa
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from ladder.bots import register_bot
from ladder.ladders import join_ladder
from ladder.match_queue import claim_match
from ladder.queries import MAX_ID
from ladder.schema import matches, rating_history
from ladder.web.data import MATCHES_LISTED

from .seeding import Seeded


def _rows(html: str, table_id: str) -> list[list[str]]:
    """The text of each cell of each body row of the table with this id."""
    body = html.split(f"<table id={table_id}>", 1)[1].split("</table>", 1)[0]
    body = body.split("<tbody>", 1)[1]
    rows = []
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        rows.append([re.sub(r"<[^>]+>", "", c).strip() for c in cells])
    return rows


def _wdl(seeded: Seeded) -> dict[str, list[int]]:
    """W/D/L per bot name, counted from the recorded results (the page's independent check)."""
    out: dict[str, list[int]] = {}
    for names, places in seeded.results.values():
        for seat, name in enumerate(names):
            place, firsts = places[seat], places.count(1)
            col = 0 if place == 1 and firsts == 1 else 1 if place == 1 else 2
            out.setdefault(name, [0, 0, 0])[col] += 1
    return out


def test_home_lists_every_ladder_by_game_with_links(client: TestClient, seeded: Seeded) -> None:
    response = client.get("/")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    html = response.text
    assert "<h2>clank</h2>" in html and "<h2>alien</h2>" in html
    for ladder_id in (seeded.ladder_id, seeded.coop_ladder_id):
        assert f'href="/ladders/{ladder_id}"' in html
    for name in ("ada", "bram", "cleo", "dana", "eli"):
        assert f'<a href="/bots/{seeded.bot_ids[name]}">{name}</a>' in html
    assert "Scenarios" in html  # the cooperative ladder's scenario table


def test_ladder_page_standings_wdl_chart_and_recent_matches(
    client: TestClient, engine: Engine, seeded: Seeded
) -> None:
    html = client.get(f"/ladders/{seeded.ladder_id}").text
    standings = client.get(f"/api/ladders/{seeded.ladder_id}/standings").json()["standings"]
    rows = _rows(html, "standings")
    # the same bots in the same order and ratings as the JSON API
    assert [(r[0], r[1].split()[0], r[3].split()[0]) for r in rows] == [
        (str(s["rank"]), s["bot_name"], f"{s['rating']:.1f}") for s in standings
    ]
    wdl = _wdl(seeded)
    for r in rows:
        assert [int(r[5]), int(r[6]), int(r[7])] == wdl[r[1].split()[0]]
        assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", r[8])
    assert "<svg class=chart" in html and html.count("<polyline") == 3
    recent = _rows(html, "recent")
    with engine.connect() as conn:
        ids = list(
            conn.execute(
                sa.select(matches.c.id)
                .where(matches.c.ladder_id == seeded.ladder_id)
                .order_by(matches.c.id.desc())
            ).scalars()
        )
    assert [r[0] for r in recent] == [f"#{i}" for i in ids]
    assert recent[0][3] == "queued"


def test_bot_page_versions_matches_and_rates(client: TestClient, seeded: Seeded) -> None:
    ada = seeded.bot_ids["ada"]
    html = client.get(f"/bots/{ada}").text
    assert "Owner: <b>owner-ada</b>" in html
    assert _rows(html, "versions")[0][:3] == ["1.0", "hosted", "passed"]
    listed = _rows(html, "matches")
    api = client.get(f"/api/bots/{ada}/matches").json()
    assert [r[0] for r in listed] == [f"#{m['id']}" for m in api]
    # every recorded match's seat and result, checked against the replays
    for row in listed:
        match_id = int(row[0][1:])
        replay = seeded.replays.get(match_id)
        if replay is None:
            continue
        seat = next(i for i, s in enumerate(replay["seats"]) if s["bot"] == "ada")
        place = replay["result"]["places"][seat]
        assert row[3] == str(seat)
        sole = replay["result"]["places"].count(1) == 1
        assert row[4] == ("win" if place == 1 and sole else f"place {place}")
    by_seat = {r[0]: r for r in _rows(html, "by-seat")}
    played = [names for names, _ in seeded.results.values() if "ada" in names]
    assert sum(int(r[1]) for r in by_seat.values()) == len(played)
    opponents = {r[0] for r in _rows(html, "by-opponent")}
    assert opponents == {"bram", "cleo"}
    assert "<svg class=chart" in html


def test_match_page_seats_sandbox_timing_incidents_links(client: TestClient, seeded: Seeded) -> None:
    match_id = seeded.incident_match
    html = client.get(f"/matches/{match_id}").text
    seats = _rows(html, "seats")
    replay = seeded.replays[match_id]
    assert [r[1] for r in seats] == [s["bot"] for s in replay["seats"]]
    assert [int(r[3]) for r in seats] == replay["result"]["places"]
    assert [int(r[4]) for r in seats] == replay["result"]["scores"]
    assert seats[1][7] == "unsandboxed" and seats[0][7].startswith("sandbox bwrap, CPU 812 ms")
    timing = _rows(html, "timing")
    assert timing[0][2] == "17" and timing[1][8] == "1"  # seat 0's only timed decision; seat 1's strike
    incidents = _rows_list(html)
    assert "Seat 1 (bram): timeout at step 4: no answer in 1000 ms" in incidents
    assert "Seat 1 (bram) ran unsandboxed (an operator's choice)" in incidents
    assert f'href="/matches/{match_id}/replay"' in html and f'href="/api/matches/{match_id}/replay"' in html


def _rows_list(html: str) -> list[str]:
    body = html.split("<ul id=incidents>", 1)[1].split("</ul>", 1)[0]
    items = re.findall(r"<li[^>]*>(.*?)</li>", body, re.S)
    return [unescape(re.sub(r"<[^>]+>", "", li)).strip() for li in items]


def test_a_corrupt_stored_replay_is_a_message_not_a_500(client: TestClient, seeded: Seeded) -> None:
    page = client.get(f"/matches/{seeded.corrupt_match}")
    assert page.status_code == 200
    assert "The stored replay cannot be read: not a replay file" in page.text
    assert 'id=viewer-link' not in page.text
    viewer = client.get(f"/matches/{seeded.corrupt_match}/replay")
    assert viewer.status_code == 422 and viewer.headers["content-type"].startswith("text/html")
    assert "cannot be read" in viewer.text
    frame = client.get(f"/matches/{seeded.corrupt_match}/replay/frames/1")
    assert frame.status_code == 404 and frame.json()["status"] == 404


def test_a_queued_or_running_match_is_in_progress_without_a_verdict(
    client: TestClient, engine: Engine, seeded: Seeded
) -> None:
    queued = client.get(f"/matches/{seeded.queued_match}").text
    assert "No replay yet" in queued and "<b id=status>queued</b>" in queued
    assert "In progress: queued" in queued
    assert client.get(f"/matches/{seeded.queued_match}/replay").status_code == 404
    assert claim_match(engine, seeded.queued_match, "worker-1", 60)
    running = client.get(f"/matches/{seeded.queued_match}").text
    assert "<b id=status>running</b>" in running and "In progress: running since" in running
    for page in (queued, running):
        assert "every seat answered" not in page
        assert _rows_list(page) == ["Not known yet: the match is in progress."]
    # a recorded match with a clean replay still gets its verdict
    clean = next(m for m in seeded.replays if m != seeded.incident_match and m in seeded.results)
    assert _rows_list(client.get(f"/matches/{clean}").text) == [
        "None: every seat answered every decision in time."
    ]
    # and one whose replay cannot be read gets none
    assert _rows_list(client.get(f"/matches/{seeded.corrupt_match}").text) == [
        "Not known: there is no readable replay of this match."
    ]


_UNKNOWN = (
        "/ladders/999",
        "/ladders/abc",
        f"/ladders/{MAX_ID + 1}",
        "/bots/999",
        "/bots/-1",
        "/bots/99999999999999999999999",
        "/matches/999",
        "/matches/1e3",
        "/matches/999/replay",
)


def test_unknown_or_malformed_ids_are_404_pages(client: TestClient) -> None:
    for path in _UNKNOWN:
        response = client.get(path)
        assert response.status_code == 404, path
        assert response.headers["content-type"].startswith("text/html")
        assert "<h1>Not found</h1>" in response.text


def test_docs_and_redoc_use_only_local_assets(client: TestClient) -> None:
    for path in ("/docs", "/redoc"):
        html = client.get(path).text
        sources = re.findall(r'(?:src|href)="([^"]+)"', html)
        assert sources and all(s.startswith("/") for s in sources), sources
        assert "fonts.googleapis" not in html and "cdn" not in html.lower()
        for src in sources:
            if src.startswith("/static/"):
                asset = client.get(src)
                assert asset.status_code == 200 and len(asset.content) > 1000, src
    assert "/openapi.json" in client.get("/docs").text
    for asset in ("/static/arena.css", "/static/viewer.js"):
        assert client.get(asset).status_code == 200


def test_names_from_users_are_escaped(client: TestClient, engine: Engine, seeded: Seeded) -> None:
    # a legacy bot with a free-text owner: the attacker's markup must stay text
    evil = register_bot(engine, "mallory", "<script>alert(1)</script>")
    join_ladder(engine, seeded.ladder_id, evil.bot_id)
    for path in ("/", f"/ladders/{seeded.ladder_id}", f"/bots/{evil.bot_id}", "/bots"):
        html = client.get(path).text
        assert "<script>alert(1)</script>" not in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_the_index_paths_are_pages(client: TestClient, engine: Engine, seeded: Seeded) -> None:
    # /ladders: the home page lists every ladder
    moved = client.get("/ladders", follow_redirects=False)
    assert moved.status_code == 307 and moved.headers["location"] == "/"
    # /matches: the newest matches of every ladder, each linked, newest first
    html = client.get("/matches").text
    with engine.connect() as conn:
        newest = list(conn.execute(sa.select(matches.c.id).order_by(matches.c.id.desc())).scalars())
    listed = [int(row[0].lstrip("#").split()[0]) for row in _rows(html, "matches")]
    assert listed == newest[:MATCHES_LISTED] and len(listed) > 1
    assert all(f'href="/matches/{i}"' in html for i in listed)
    # /bots: every bot by name, linked, with its ladders
    html = client.get("/bots").text
    names = [row[0] for row in _rows(html, "bots")]
    assert names == sorted(names)
    for name in ("ada", "bram", "cleo", "dana", "eli"):
        assert f'<a href="/bots/{seeded.bot_ids[name]}">{name}</a>' in html
    assert f'href="/ladders/{seeded.ladder_id}"' in html


def _chart_last_points(html: str) -> dict[str, tuple[float, int]]:
    """bot name -> (rating, match id) of the marked last point of each line of a chart."""
    mark = r"<circle class=last data-series='([^']*)' data-rating='([^']*)' data-match='(\d+)'"
    found = re.findall(mark, html)
    return {unescape(name): (float(rating), int(match)) for name, rating, match in found}


def test_the_rating_chart_is_in_recording_order_and_ends_at_the_standings(
    client: TestClient, engine: Engine, seeded: Seeded
) -> None:
    # the seeded matches were recorded newest first: by match id, a line would end at the
    # rating after each bot's highest-numbered match, which it left long ago
    with engine.connect() as conn:
        history = conn.execute(
            sa.select(rating_history.c.match_id).order_by(rating_history.c.id)
        ).scalars().all()
    assert list(history) != sorted(history)
    standings = client.get(f"/api/ladders/{seeded.ladder_id}/standings").json()["standings"]
    html = client.get(f"/ladders/{seeded.ladder_id}").text
    last = _chart_last_points(html)
    assert {name: rating for name, (rating, _) in last.items()} == {
        s["bot_name"]: s["rating"] for s in standings
    }
    for s in standings:
        bot_html = client.get(f"/bots/{s['bot_id']}").text
        assert _chart_last_points(bot_html)[s["bot_name"]][0] == s["rating"]
    # cleo played matches 2, 3 and 4, recorded 4, 3, 2: its line ends at match 2
    cleo = sorted(m for m, (names, _) in seeded.results.items() if "cleo" in names)
    assert len(cleo) == 3 and last["cleo"][1] == cleo[0]
