"""A campaign's page after a real campaign: three Clank! Legacy games played by built-in bots
through ``arena campaign run`` (the ladder's match function, the replays re-simulated), rated on
a campaign ladder. The page lists the games in order, each with what it changed in the campaign
(votes, board side, cards, abilities, facts, names) and a working replay link; the campaign
ladder's page lists the campaign. Checked in the HTML and in headless Chromium."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from html import unescape
from typing import Any

import pytest
from fastapi.testclient import TestClient
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from sqlalchemy import Engine

from cli.main import main
from ladder.api import create_app
from ladder.bots import add_bot_version, register_bot
from ladder.campaigns import campaign_row, load_campaign_games
from ladder.db import create_engine
from ladder.ladders import create_ladder, join_ladder
from referee.games.clank_legacy.campaign import CampaignState
from referee.games.clank_legacy.content import default_content
from tests.databases import empty_postgres
from tests.web import test_browser as shared
from tests.web.serving import serve

#: the module's headless Chromium (test_browser's fixture)
browser = shared.browser


def _play(engine: Engine, db_url: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """A 3-game campaign of two built-in random bots, named Ada and Bo, rated on a 2-player
    campaign ladder; `arena campaign run --json`'s report, with the ladder's id."""
    ladder = create_ladder(
        engine, "legacy-duel", "clank_legacy", 2, decision_ms=1000, bank_ms=30_000, max_strikes=3,
        kind="campaign",
    )  # fmt: skip
    versions = []
    for name in ("ada", "bo"):
        bot = register_bot(engine, name, "tests").bot_id
        versions.append(add_bot_version(engine, bot, "1", "builtin:random"))
        join_ladder(engine, ladder, bot)
    code = main(
        [
            "campaign", "run", "--players", "2", "--bots", ",".join(f"version:{v}" for v in versions),
            "--names", "Ada,Bo", "--games", "3", "--seed", "5", "--db", db_url,
            "--ladder", str(ladder), "--json",
        ]
    )  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    report["ladder"] = ladder
    return report


def _changes(html: str) -> dict[int, list[tuple[str, str]]]:
    """Game index -> its (kind, text) change lines, from the page's games table."""
    body = html.split("<table id=games>", 1)[1].split("</table>", 1)[0]
    out: dict[int, list[tuple[str, str]]] = {}
    for index, row in re.findall(r'<tr data-game="(\d+)">(.*?)</tr>', body, re.S):
        out[int(index)] = [
            (kind, unescape(text)) for kind, text in re.findall(r'<li data-kind="(\w+)">(.*?)</li>', row)
        ]
    return out


def test_the_page_lists_each_game_with_what_it_changed_and_its_replay(
    engine: Engine, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    report = _play(engine, db_url, capsys)
    cid = int(report["campaign"])
    with engine.connect() as conn:
        final = CampaignState.from_json(campaign_row(conn, cid).state)
        games = load_campaign_games(conn, cid)
    assert [g.index for g in games] == [1, 2, 3] and len(final.reports) == 3
    c = default_content()
    with TestClient(create_app(engine)) as client:
        page = client.get(f"/campaigns/{cid}")
        assert page.status_code == 200
        html = page.text
        changes = _changes(html)
        assert sorted(changes) == [1, 2, 3]  # in order, one row each
        assert [int(i) for i in re.findall(r'<tr data-game="(\d+)">', html)] == [1, 2, 3]
        texts = {i: " | ".join(t for _, t in lines) for i, lines in changes.items()}
        kinds = {i: [k for k, _ in lines] for i, lines in changes.items()}
        # names: the deck boxes, given before game 1
        assert "seat 0: Ada" in texts[1] and "seat 1: Bo" in texts[1] and "names" not in kinds[2]
        # board side: each game's, as its Mission Report logged it
        for i, r in enumerate(final.reports, 1):
            boards = [t for k, t in changes[i] if k == "board"]
            assert len(boards) == 1 and f"({r.board})" in boards[0]
        # votes: epilogue 151 chooses the ability, 153 the side; game 2 has no vote
        assert kinds[1].count("vote") == 1 and "'First Quarterly Results'" in texts[1]
        assert "vote" not in kinds[2] and kinds[3].count("vote") == 1 and "epilogue 153" in texts[3]
        # abilities: the one the campaign holds was gained in game 1 (the vote's option)
        (ability,) = final.abilities
        name = c.franchise.abilities[ability].name
        assert [t for k, t in changes[1] if k == "ability"] == [f"ability gained: {name}"]
        assert f"gain {name}" in texts[1]
        # cards: each Adventure change the campaign holds shows in the game that made it
        assert final.adventure_changes, "games 2 and 3 add cards"
        shown = [t for i in (1, 2, 3) for k, t in changes[i] if k == "cards"]
        assert len(shown) == len(final.adventure_changes)
        for cid_, n in final.adventure_changes.items():
            assert f"{n} x {c.cards[cid_].name} added to the Adventure deck" in shown
        stapler = "1 x The Golden Stapler added to the Adventure deck"
        assert [t for k, t in changes[2] if k == "cards"] == [stapler]
        # facts: each one recorded, once, in the game that recorded it
        facts = [t for i in (1, 2, 3) for k, t in changes[i] if k == "fact"]
        assert len(facts) == len(final.facts) and "first_delve_done" in texts[1]
        for fact in final.facts:
            assert sum(f"({fact})" in t for t in facts) == 1
        # the next prologue each game named
        for i, r in enumerate(final.reports, 1):
            assert changes[i][-1] == ("end", f"next game: prologue {r.next_prologue}")
        # each game's match and replay are linked, and the replay opens
        for g in games:
            assert f'<a href="/matches/{g.match_id}">#{g.match_id}</a>' in html
            assert f'<a class=replay href="/matches/{g.match_id}/replay">replay</a>' in html
            assert client.get(f"/matches/{g.match_id}/replay").status_code == 200
        # the campaign ladder lists the campaign
        ladder_html = client.get(f"/ladders/{report['ladder']}").text
        table = ladder_html.split("<table id=campaigns>", 1)[1].split("</table>", 1)[0]
        assert f'<a href="/campaigns/{cid}">#{cid}</a>' in table and "finished, rated" in table


@pytest.fixture(scope="module")
def campaign_site(postgres_url: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """The app over a PostgreSQL database holding one played campaign, served by uvicorn."""
    empty_postgres(postgres_url)
    engine = create_engine(postgres_url)
    try:
        with serve(engine) as url:
            yield url, {"engine": engine, "url": postgres_url}
    finally:
        engine.dispose()


@pytest.mark.slow
@pytest.mark.integration
def test_the_campaign_page_in_chromium_shows_changes_and_a_working_replay_link(
    campaign_site: tuple[str, dict[str, Any]], browser: WebDriver, capsys: pytest.CaptureFixture[str]
) -> None:
    base, site = campaign_site
    report = _play(site["engine"], site["url"], capsys)
    cid = int(report["campaign"])
    shared._open(browser, f"{base}/campaigns/{cid}", "campaign")
    assert shared._console_errors(browser) == []
    rows = browser.find_elements(By.CSS_SELECTOR, "#games tbody tr")
    assert [r.get_attribute("data-game") for r in rows] == ["1", "2", "3"]
    cards = shared._texts(browser, "#games tr[data-game='2'] ul.changes li[data-kind=cards]")
    assert cards == ["1 x The Golden Stapler added to the Adventure deck"]
    votes = shared._texts(browser, "#games tr[data-game='1'] ul.changes li[data-kind=vote]")
    assert len(votes) == 1 and "First Quarterly Results" in votes[0]
    # the replay link opens the viewer on game 1's replay
    link = browser.find_element(By.CSS_SELECTOR, "#games tr[data-game='1'] a.replay")
    match_id = report["games"][0]["match_id"]
    assert link.get_attribute("href") == f"{base}/matches/{match_id}/replay"
    link.click()
    shared._wait_step(browser, 1)
    assert browser.current_url.split("#")[0] == f"{base}/matches/{match_id}/replay"
    assert int(browser.find_element(By.ID, "viewer").get_attribute("data-total") or 0) > 1
    assert shared._console_errors(browser) == []
    # the campaign ladder's page lists the campaign
    shared._open(browser, f"{base}/ladders/{report['ladder']}", "campaign-ladder")
    assert shared._texts(browser, "#campaigns tbody tr td:first-child") == [f"#{cid}"]
