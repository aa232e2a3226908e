"""The server-rendered pages over a seeded database: the right rows, 404 pages, bad replays."""

from __future__ import annotations

import re
from html import unescape

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from ladder.bots import add_bot_version, register_bot, set_qualification
from ladder.campaigns import create_campaign, rate_campaign, record_game, schedule_game
from ladder.ladders import create_ladder, join_ladder
from ladder.match_queue import claim_match
from ladder.queries import INTERVAL_MIN_GAMES, MAX_ID
from ladder.schema import bot_versions, campaigns, ladder_entries, matches, rating_history
from ladder.web.data import MAX_PAGE_SIZE, PAGE_SIZE
from ladder.web.docs import RATINGS_MD
from referee.games.clank_legacy.campaign import new_campaign
from tests.ladder.test_campaign_storage import _after, _seats, _versions

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


def test_bot_page_lists_its_most_played_opponents_and_counts_the_rest(
    client: TestClient, seeded: Seeded, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The opponents table is bounded (issue 29: the page must not grow with the bot's history):
    the most played first, the rest counted in one line."""
    from ladder.web import data

    ada = seeded.bot_ids["ada"]
    full = {r[0]: int(r[1]) for r in _rows(client.get(f"/bots/{ada}").text, "by-opponent")}
    assert set(full) == {"bram", "cleo"}
    monkeypatch.setattr(data, "OPPONENT_ROWS", 1)
    rows = _rows(client.get(f"/bots/{ada}").text, "by-opponent")
    most = max(full, key=lambda name: (full[name], [-ord(c) for c in name]))
    assert [r[0] for r in rows[:-1]] == [most]
    assert rows[-1] == ["and 1 more opponent, each played no more often than those above"]


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
    # the viewer names each seat's bot with a link to its page
    header = client.get(f"/matches/{match_id}/replay").text.split("<div id=viewer", 1)[0]
    for name in ("ada", "bram"):
        assert f'<a href="/bots/{seeded.bot_ids[name]}">{name}</a>' in header


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
    add_bot_version(engine, evil.bot_id, "1.0", "python mallory.py")  # qualified: ranked
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
    assert listed == newest[:PAGE_SIZE] and len(listed) > 1
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


def test_a_bot_without_a_qualified_version_is_not_ranked(
    client: TestClient, engine: Engine, seeded: Seeded
) -> None:
    failed = register_bot(engine, "fay", "owner-fay")
    set_qualification(engine, add_bot_version(engine, failed.bot_id, "1.0", "python fay.py"), "failed")
    pending = register_bot(engine, "gus", "owner-gus")
    set_qualification(engine, add_bot_version(engine, pending.bot_id, "1.0", "python gus.py"), "pending")
    fresh = register_bot(engine, "hal", "owner-hal")  # qualified, no game yet: ranked
    add_bot_version(engine, fresh.bot_id, "1.0", "python hal.py")
    for bot in (failed, pending, fresh):
        join_ladder(engine, seeded.ladder_id, bot.bot_id)
    page = client.get(f"/api/ladders/{seeded.ladder_id}/standings").json()
    assert sorted(s["bot_name"] for s in page["standings"]) == ["ada", "bram", "cleo", "hal"]
    assert [(u["bot_name"], u["reason"]) for u in page["unranked"]] == [
        ("fay", "failed qualification"), ("gus", "qualification pending")
    ]
    html = client.get(f"/ladders/{seeded.ladder_id}").text
    assert sorted(r[1].split()[0] for r in _rows(html, "standings")) == ["ada", "bram", "cleo", "hal"]
    assert _rows(html, "unranked") == [
        ["fay", "owner-fay", "failed qualification"], ["gus", "owner-gus", "qualification pending"]
    ]
    assert f'<a href="/bots/{failed.bot_id}">fay</a>' in html
    home = client.get("/").text
    top = home.split(f'id="ladder-{seeded.ladder_id}"', 1)[1].split("</section>", 1)[0]
    assert "fay" not in "".join(r[1] for r in _rows(top.replace("<table>", "<table id=t>", 1), "t"))
    assert "Not ranked yet" in top and "fay</a> by owner-fay (failed qualification)" in top
    bots = {r[0]: r[2] for r in _rows(client.get("/bots").text, "bots")}
    assert bots["fay"] == "clank-duel not ranked: failed qualification"
    assert bots["hal"] == "clank-duel 1500.0, 0"
    profile = _rows(client.get(f"/bots/{failed.bot_id}").text, "ladders")
    assert profile[0][1] == "not ranked: failed qualification"
    assert _rows(client.get(f"/bots/{fresh.bot_id}").text, "ladders")[0][1] == "1500.0 (provisional)"


def test_intervals_are_labelled_linked_and_need_enough_games(
    client: TestClient, engine: Engine, seeded: Seeded
) -> None:
    # the doc states the code's threshold
    doc = RATINGS_MD.read_text()
    assert re.search(r"at least \*\*(\d+)\*\* games", doc)[1] == str(INTERVAL_MIN_GAMES)  # type: ignore[index]
    html = client.get(f"/ladders/{seeded.ladder_id}").text
    head = html.split("<table id=standings>", 1)[1].split("</thead>", 1)[0]
    assert '<a class=interval-head href="/ratings#ladder-standings-elo-with-a-95-interval"' in head
    assert "[95% interval]" in head
    note = html.split("<p class=meta id=interval-note>", 1)[1].split("</p>", 1)[0]
    assert "95% confidence interval" in note and 'href="/ratings#' in note
    # every seeded bot has played 3 games or fewer: no interval, "too few games"
    ratings = [r[3] for r in _rows(html, "standings")]
    assert ratings and all(r.endswith("too few games") and "[" not in r for r in ratings)
    # from INTERVAL_MIN_GAMES games on, the interval is shown
    with engine.begin() as conn:
        conn.execute(
            sa.update(ladder_entries)
            .where(ladder_entries.c.bot_id == seeded.bot_ids["ada"])
            .values(games=INTERVAL_MIN_GAMES)
        )
    after = client.get(f"/ladders/{seeded.ladder_id}").text
    rows = {r[1].split()[0]: r[3] for r in _rows(after, "standings")}
    assert re.fullmatch(r"\d+\.\d \[\d+, \d+\]", rows["ada"]), rows
    assert rows["cleo"].endswith("too few games")
    # the page every interval links to renders RATINGS.md with the anchors the links name
    ratings_page = client.get("/ratings")
    assert ratings_page.status_code == 200
    for anchor in set(re.findall(r'href="/ratings#([^"]+)"', html)) | {"who-is-ranked", "too-few-games"}:
        assert f'id="{anchor}"' in ratings_page.text, anchor
    assert "<h1 id=\"ladder-ratings\">Ladder ratings</h1>" in ratings_page.text
    assert 'href="/ratings"' in client.get("/").text


def _page_ids(client: TestClient, url: str) -> tuple[list[int], str | None, str | None]:
    """The match ids a /matches page lists, and its previous and next page links."""
    html = client.get(url).text
    ids = [int(r[0].lstrip("#")) for r in _rows(html, "matches") if r[0].startswith("#")]
    prev = re.search(r'<a id=previous-page rel=prev href="([^"]+)"', html)
    nxt = re.search(r'<a id=next-page rel=next href="([^"]+)"', html)
    return ids, prev and unescape(prev[1]), nxt and unescape(nxt[1])


def test_matches_are_paged_and_filtered(client: TestClient, engine: Engine, seeded: Seeded) -> None:
    with engine.connect() as conn:
        newest = list(conn.execute(sa.select(matches.c.id).order_by(matches.c.id.desc())).scalars())
    assert len(newest) == 7
    ids, prev, nxt = _page_ids(client, "/matches?limit=3")
    assert ids == newest[:3] and prev is None and nxt == f"/matches?limit=3&before={newest[2]}"
    ids, prev, nxt = _page_ids(client, nxt)
    assert ids == newest[3:6] and prev == f"/matches?limit=3&after={newest[3]}" and nxt is not None
    back, _, _ = _page_ids(client, prev)
    assert back == newest[:3]
    ids, prev, nxt = _page_ids(client, nxt)
    assert ids == newest[6:] and prev is not None and nxt is None
    # filters, kept in the page links
    cleo = sorted((m for m, (names, _) in seeded.results.items() if "cleo" in names), reverse=True)
    ids, _, nxt = _page_ids(client, "/matches?bot=cleo&limit=2")
    assert ids == cleo[:2] and nxt == f"/matches?bot=cleo&limit=2&before={cleo[1]}"
    assert _page_ids(client, nxt)[0] == cleo[2:]
    assert _page_ids(client, "/matches?status=queued")[0] == [seeded.queued_match]
    coop = _page_ids(client, f"/matches?ladder={seeded.coop_ladder_id}")[0]
    assert len(coop) == 1 and coop[0] not in seeded.results
    missing = client.get("/matches?bot=nobody")
    assert missing.status_code == 200 and "No bot is named &#39;nobody&#39;." in missing.text
    assert _rows(missing.text, "matches") == [["No matches match this search."]]
    # bad parameters: one line, 400
    for query, says in (
        ("limit=0", f"limit: rows per page, 1 to {MAX_PAGE_SIZE}"),
        (f"limit={MAX_PAGE_SIZE + 1}", "limit: rows per page"),
        ("before=abc", "before: an id"),
        (f"after={MAX_ID + 1}", "after: an id"),
        ("status=lost", "status: one of queued, running, done, failed"),
        ("bot=" + "x" * 65, "bot: at most 64 printable characters"),
    ):
        response = client.get(f"/matches?{query}")
        assert response.status_code == 400 and says in unescape(response.text), query
    assert len(_page_ids(client, f"/matches?limit={MAX_PAGE_SIZE}")[0]) == 7


def test_bots_are_searched_and_paged(client: TestClient, seeded: Seeded) -> None:
    def names(url: str) -> tuple[list[str], str | None, str | None]:
        html = client.get(url).text
        prev = re.search(r'<a id=previous-page rel=prev href="([^"]+)"', html)
        nxt = re.search(r'<a id=next-page rel=next href="([^"]+)"', html)
        return [r[0] for r in _rows(html, "bots")], prev and unescape(prev[1]), nxt and unescape(nxt[1])

    listed, prev, nxt = names("/bots?limit=2")
    assert listed == ["ada", "bram"] and prev is None and nxt == "/bots?limit=2&after=bram"
    listed, prev, nxt = names(nxt)
    assert listed == ["cleo", "dana"] and prev == "/bots?limit=2&before=cleo"
    assert names(prev)[0] == ["ada", "bram"]
    assert nxt is not None and names(nxt)[0] == ["eli"] and names(nxt)[2] is None
    # by name or owner, case-insensitively; % and _ are plain characters
    assert names("/bots?q=DA")[0] == ["ada", "dana"]
    assert names("/bots?q=owner-br")[0] == ["bram"]
    listed, _, nxt = names("/bots?q=a&limit=1")
    assert listed == ["ada"] and nxt == "/bots?q=a&limit=1&after=ada"
    assert names("/bots?q=%25")[0] == ["No bot's name or owner contains “%”."]
    assert client.get("/bots?limit=x").status_code == 400


def test_a_campaign_has_a_page_linking_its_bots_games_and_ladder(
    client: TestClient, engine: Engine, seeded: Seeded
) -> None:
    # the rated 3-bot campaign of ladder/RATINGS.md's worked example: totals 60, 45, 40
    ladder = create_ladder(
        engine, "legacy-3p", "clank_legacy", 3, decision_ms=1000, bank_ms=1000, max_strikes=3, kind="campaign"
    )
    versions = _versions(engine, 3)
    with engine.connect() as conn:
        bot_ids = [
            conn.execute(sa.select(bot_versions.c.bot_id).where(bot_versions.c.id == v)).scalar_one()
            for v in versions
        ]
    for bot_id in bot_ids:
        join_ladder(engine, ladder, bot_id)
    state = new_campaign(3)
    cid = create_campaign(
        engine, players=3, seats=_seats(versions), seed=3, games=2, state=state.to_json(),
        decision_ms=1000, bank_ms=1000, max_strikes=3, rating_ladder_id=ladder,
    )  # fmt: skip
    games = []
    for scores in ((10, 40, 20), (50, 5, 20)):
        game = schedule_game(engine, cid)
        assert game is not None
        games.append(game.match_id)
        after = _after(state, scores)
        record_game(
            engine, cid, state.game_index, after.to_json(), scores=scores, outcomes=["", "", ""], over=False
        )
        state = after
    rate_campaign(engine, cid)
    html = client.get(f"/campaigns/{cid}").text
    assert _rows(html, "seats") == [
        ["0", "legacy0", "Name 0", "60", "1", "+20.0"],
        ["1", "legacy1", "Name 1", "45", "2", "+0.0"],
        ["2", "legacy2", "Name 2", "40", "3", "-20.0"],
    ]
    for i, bot_id in enumerate(bot_ids):
        assert f'<a href="/bots/{bot_id}">legacy{i}</a>' in html
    assert [r[1] for r in _rows(html, "games")] == [f"#{m}" for m in games]
    assert f'href="/ladders/{ladder}"' in html and 'href="/ratings#campaign-ladders-clank-legacy"' in html
    assert 'id="campaign-ladders-clank-legacy"' in client.get("/ratings").text
    # the campaign ladder lists it, its bots linked
    ladder_html = client.get(f"/ladders/{ladder}").text
    listed = _rows(ladder_html, "campaigns")[0][:3]
    assert listed == [f"#{cid}", "legacy0 · legacy1 · legacy2", "finished, rated"]
    assert f'<a href="/campaigns/{cid}">#{cid}</a>' in ladder_html
    assert f'<a href="/bots/{bot_ids[2]}">legacy2</a>' in ladder_html
    # its games' match pages and its hidden ladder lead to it
    game_html = client.get(f"/matches/{games[0]}").text
    assert f'<a id=part-of href="/campaigns/{cid}">campaign #{cid}</a>' in game_html
    assert "a campaign is rated once, by its totals" in game_html
    with engine.connect() as conn:
        hidden = conn.execute(sa.select(campaigns.c.ladder_id).where(campaigns.c.id == cid)).scalar_one()
    moved = client.get(f"/ladders/{hidden}", follow_redirects=False)
    assert moved.status_code == 307 and moved.headers["location"] == f"/campaigns/{cid}"
    for bad in ("/campaigns/999", "/campaigns/x", f"/campaigns/{MAX_ID + 1}"):
        assert client.get(bad).status_code == 404
