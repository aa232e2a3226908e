"""The pages and the replay viewer in a real browser: headless Chromium driven over WebDriver.

The app runs in uvicorn (a real HTTP server) over a seeded PostgreSQL database. Each page must
load with no console error and show the right rows; the viewer steps forward and back, plays,
jumps, switches seats (another seat's hand is absent from the DOM, not hidden), and marks the
action the replay recorded. A screenshot of each page type is saved under
``test-artifacts/web/`` (gitignored). Chromium and chromedriver come from Debian
(``deploy/ensure-browser.sh``, run by ``make test``); without them these tests fail, they are
not skipped.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select, WebDriverWait

from ladder.db import create_engine
from tests.databases import empty_postgres

from .seeding import Seeded, seed, seed_competition
from .serving import serve

pytestmark = [pytest.mark.slow, pytest.mark.integration]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--window-size=1400,1000",
)


@pytest.fixture(scope="module")
def site(postgres_url: str) -> Iterator[tuple[str, Seeded]]:
    """The app over a seeded PostgreSQL database, served by uvicorn on a free port."""
    empty_postgres(postgres_url)
    engine = create_engine(postgres_url)
    seeded = seed(engine)
    seeded.competition = seed_competition(engine, postgres_url)
    try:
        with serve(engine) as url:
            yield url, seeded
    finally:
        engine.dispose()


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    """Headless Chromium with a fresh profile."""
    chromium = shutil.which("chromium")
    driver_path = shutil.which("chromedriver")
    if chromium is None or driver_path is None:
        pytest.fail("chromium and chromedriver are needed: run deploy/ensure-browser.sh (make services)")
    options = webdriver.ChromeOptions()
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    profile = tempfile.mkdtemp(prefix="arena-chromium-")
    options.add_argument(f"--user-data-dir={profile}")
    options.binary_location = chromium
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(driver_path))
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def _console_errors(driver: WebDriver) -> list[dict[str, Any]]:
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def _open(driver: WebDriver, url: str, shot: str | None = None) -> None:
    driver.get_log("browser")  # drop what earlier pages logged
    driver.get(url)
    WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.readyState") == "complete")
    if shot:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(ARTIFACTS / f"{shot}.png"))


def _texts(driver: WebDriver, css: str) -> list[str]:
    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, css)]


def test_pages_load_without_console_errors_and_show_their_rows(
    site: tuple[str, Seeded], browser: WebDriver
) -> None:
    base, seeded = site
    _open(browser, f"{base}/", "home")
    assert _console_errors(browser) == []
    assert {"clank-duel", "alien-crew"} <= set(_texts(browser, "section.card h3 a"))

    _open(browser, f"{base}/ladders/{seeded.ladder_id}", "ladder")
    assert _console_errors(browser) == []
    names = [t.split()[0] for t in _texts(browser, "#standings tbody tr td:nth-child(2)")]
    assert sorted(names) == ["ada", "bram", "cleo"]
    assert len(browser.find_elements(By.CSS_SELECTOR, "svg.chart polyline")) == 3
    # each line ends (its marked point, drawn rightmost) at the rating the standings show; the
    # seeded matches were recorded out of match-id order
    shown = {
        row.find_element(By.CSS_SELECTOR, "td:nth-child(2) a").text: row.find_element(
            By.CSS_SELECTOR, "td:nth-child(4)"
        ).text.split()[0]
        for row in browser.find_elements(By.CSS_SELECTOR, "#standings tbody tr[data-bot]")
    }
    ends = {}
    for line in browser.find_elements(By.CSS_SELECTOR, "svg.chart polyline"):
        name = line.find_element(By.TAG_NAME, "title").get_attribute("textContent")
        xs = [float(p.split(",")[0]) for p in (line.get_attribute("points") or "").split()]
        mark = browser.find_element(By.CSS_SELECTOR, f"svg.chart circle.last[data-series='{name}']")
        assert float(mark.get_attribute("cx") or 0) == max(xs)
        ends[name] = mark.get_attribute("data-rating")
    assert ends == shown
    assert len(_texts(browser, "#recent tbody tr")) == len(seeded.results) + 1  # + the queued match

    _open(browser, f"{base}/bots/{seeded.bot_ids['ada']}", "bot")
    assert _console_errors(browser) == []
    assert _texts(browser, "#versions tbody tr td:first-child") == ["1.0"]
    assert {t for t in _texts(browser, "#by-opponent tbody tr td:first-child")} == {"bram", "cleo"}

    _open(browser, f"{base}/matches/{seeded.incident_match}", "match")
    assert _console_errors(browser) == []
    assert _texts(browser, "#seats tbody tr td:nth-child(2)") == ["ada", "bram"]
    assert "unsandboxed" in _texts(browser, "#seats tbody tr td:nth-child(8)")[1]
    assert any("timeout at step 4" in t for t in _texts(browser, "#incidents li"))

    _open(browser, f"{base}/matches/{seeded.corrupt_match}", "match-corrupt-replay")
    assert _console_errors(browser) == []
    assert "cannot be read" in browser.find_element(By.ID, "replay-problem").text

    _open(browser, f"{base}/competitions/{seeded.competition}", "competition")
    assert _console_errors(browser) == []
    assert sorted(_texts(browser, "#standings tbody tr td:nth-child(2)")) == ["greedy", "random"]
    assert "4 of 4 games played" in browser.find_element(By.ID, "progress").text

    _open(browser, f"{base}/competitions", "competitions")
    assert _console_errors(browser) == []
    assert _texts(browser, "#competitions tbody tr td:first-child") == ["web cup"]

    _open(browser, f"{base}/ratings", "ratings")
    assert _console_errors(browser) == []
    assert browser.find_element(By.ID, "too-few-games").text == "Too few games"

    _open(browser, f"{base}/matches?limit=3", "matches")
    first = _texts(browser, "#matches tbody tr td:first-child")
    browser.find_element(By.ID, "next-page").click()
    WebDriverWait(browser, 10).until(lambda d: "before=" in d.current_url)
    second = _texts(browser, "#matches tbody tr td:first-child")
    assert len(first) == len(second) == 3 and not set(first) & set(second)
    assert _console_errors(browser) == []

    _open(browser, f"{base}/bots/424242", "not-found")
    assert browser.find_element(By.TAG_NAME, "h1").text == "Not found"


def test_api_docs_render_from_local_assets(site: tuple[str, Seeded], browser: WebDriver) -> None:
    base, _ = site
    _open(browser, f"{base}/docs")
    WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".swagger-ui .opblock"))
    browser.save_screenshot(str(ARTIFACTS / "docs.png"))
    assert _console_errors(browser) == []
    _open(browser, f"{base}/redoc")
    WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".menu-content"))
    assert _console_errors(browser) == []


def _wait_step(driver: WebDriver, step: int) -> None:
    try:
        WebDriverWait(driver, 10).until(
            lambda d: d.find_element(By.ID, "viewer").get_attribute("data-step") == str(step)
            and d.find_element(By.ID, "status").text == ""
        )
    except TimeoutException:
        at = driver.find_element(By.ID, "viewer").get_attribute("data-step")
        raise AssertionError(f"the viewer did not reach step {step}: at {at}") from None


def _seat(driver: WebDriver, value: str) -> None:
    Select(driver.find_element(By.ID, "seat")).select_by_value(value)


def test_viewer_steps_plays_switches_seats_and_marks_the_recorded_action(
    site: tuple[str, Seeded], browser: WebDriver
) -> None:
    base, seeded = site
    match_id = seeded.incident_match
    steps = seeded.replays[match_id]["steps"]
    _open(browser, f"{base}/matches/{match_id}/replay")
    _wait_step(browser, 1)
    browser.find_element(By.ID, "forward").click()
    _wait_step(browser, 2)
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    _wait_step(browser, 3)
    browser.find_element(By.ID, "back").click()
    _wait_step(browser, 2)
    # jump to a step of each seat: the marked action is the recorded one, for the seat that acted
    for seat in (0, 1):
        n = next(i for i, s in enumerate(steps, 1) if s.get("seat") == seat and i > 5)
        _seat(browser, str(seat))
        jump = browser.find_element(By.ID, "jump")
        jump.clear()
        jump.send_keys(str(n), Keys.ENTER)
        _wait_step(browser, n)
        chosen = browser.find_elements(By.CSS_SELECTOR, "#seatview ol.actions li.chosen")
        assert len(chosen) == 1 and chosen[0].get_attribute("data-index") == str(steps[n - 1]["index"])
        assert steps[n - 1]["action"]["text"] in chosen[0].text
        # only this seat's hand is in the document: the other one is not there at all
        hands = browser.find_elements(By.CSS_SELECTOR, "ul.hand")
        assert [h.get_attribute("data-seat") for h in hands] == [str(seat)]
        assert browser.find_elements(By.CSS_SELECTOR, f"ul.hand[data-seat='{1 - seat}']") == []
        assert "&quot;hands&quot;" not in browser.page_source and '"hands"' not in browser.page_source
        browser.save_screenshot(str(ARTIFACTS / f"viewer-seat{seat}.png"))
        # the other seat was sent nothing at this step
        _seat(browser, str(1 - seat))
        _wait_step(browser, n)
        assert browser.find_elements(By.CSS_SELECTOR, "#seatview ol.actions") == []
    _seat(browser, "all")
    _wait_step(browser, n)
    hands = browser.find_elements(By.CSS_SELECTOR, "ul.hand")
    assert sorted(h.get_attribute("data-seat") for h in hands) == ["0", "1"]
    # play at the fastest speed, then pause
    Select(browser.find_element(By.ID, "speed")).select_by_value("25")
    browser.find_element(By.ID, "play").click()
    WebDriverWait(browser, 10).until(
        lambda d: int(d.find_element(By.ID, "viewer").get_attribute("data-step") or 0) >= n + 3
    )
    browser.find_element(By.ID, "play").click()
    assert browser.find_element(By.ID, "play").text == "Play"
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    total = int(browser.find_element(By.ID, "viewer").get_attribute("data-total") or 0)
    _wait_step(browser, total)
    assert "The match ended" in browser.find_element(By.ID, "record").text
    assert _console_errors(browser) == []
    browser.save_screenshot(str(ARTIFACTS / "viewer-end.png"))


def test_alien_viewer_draws_its_board(site: tuple[str, Seeded], browser: WebDriver) -> None:
    base, seeded = site
    [match_id] = [m for m, r in seeded.replays.items() if r["game"] == "alien"]
    _open(browser, f"{base}/matches/{match_id}/replay#step=4&seat=1")
    _wait_step(browser, 4)
    assert browser.find_elements(By.CSS_SELECTOR, "ol.complex li.room")
    assert [h.get_attribute("data-seat") for h in browser.find_elements(By.CSS_SELECTOR, "ul.hand")] == ["1"]
    assert _console_errors(browser) == []
    browser.save_screenshot(str(ARTIFACTS / "viewer-alien.png"))


def test_a_closed_season_is_linked_from_the_ladder_and_shows_its_standings(
    site: tuple[str, Seeded], browser: WebDriver, postgres_url: str
) -> None:
    """A ladder of its own (the seeded one stays as the other tests see it): two games, the season
    closed; the ladder page links season 1, whose page shows the standings as they were."""
    from ladder.bots import add_bot_version, register_bot
    from ladder.ladders import create_ladder, join_ladder
    from ladder.match_queue import enqueue_match
    from ladder.recording import record_result
    from ladder.seasons import close_season
    from referee.core.game import Result

    base, _ = site
    engine = create_engine(postgres_url)
    try:
        ladder = create_ladder(
            engine, "clank-seasons", "clank", 2, decision_ms=1000, bank_ms=0, max_strikes=3
        )
        versions = []
        for name in ("sol", "tam"):
            reg = register_bot(engine, name, f"owner-{name}")
            versions.append(add_bot_version(engine, reg.bot_id, "1.0", f"python {name}.py"))
            join_ladder(engine, ladder, reg.bot_id)
        for seed_value in (1, 2):
            match_id = enqueue_match(engine, ladder, versions, seed=seed_value)
            record_result(engine, match_id, Result((5, 1), (1, 2), ("a", "b")), b"{}", "finished")
        close_season(engine, ladder)
    finally:
        engine.dispose()
    _open(browser, f"{base}/ladders/{ladder}", "ladder-seasons")
    assert _console_errors(browser) == []
    assert "Season 2" in browser.find_element(By.ID, "seasons").text
    # the chart steps down to the shrunk rating at the close: each line ends where the standings are
    ends = {
        mark.get_attribute("data-series"): mark.get_attribute("data-rating")
        for mark in browser.find_elements(By.CSS_SELECTOR, "svg.chart circle.last")
    }
    assert ends == {"sol": "1528.3", "tam": "1471.7"}
    assert [r.split()[:2] for r in _texts(browser, "#standings tbody tr")] == [
        ["1", "sol"],
        ["2", "tam"],
    ] and "1528.3" in _texts(browser, "#standings tbody tr")[0]
    browser.find_element(By.CSS_SELECTOR, f"#seasons a[href='/ladders/{ladder}/seasons/1']").click()
    WebDriverWait(browser, 10).until(lambda d: d.current_url.endswith(f"/ladders/{ladder}/seasons/1"))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / "season.png"))
    assert _console_errors(browser) == []
    rows = [r.split() for r in _texts(browser, "#season-standings tbody tr")]
    # sol won both games at K 40: 1500 + 20 + 40 x (1 - E(1520 v 1480)) = 1537.7; tam 1462.3
    assert [(r[0], r[1], r[2], r[-4:]) for r in rows] == [
        ("1", "sol", "1537.7", ["2", "2", "0", "0"]),
        ("2", "tam", "1462.3", ["2", "0", "0", "2"]),
    ]
    assert "Closed. Engine version clank-2" in browser.find_element(By.ID, "season-facts").text


def test_a_ladder_with_divisions_shows_them_with_each_boss_line(
    site: tuple[str, Seeded], browser: WebDriver, postgres_url: str
) -> None:
    """A ladder of its own with the default divisions (Wood to Legend, a boss each): a bot that
    beat the Wood boss often enough is promoted by a matchmaking pass; the page lists the
    divisions top first, a heading row per division in the standings, each boss's line marked,
    and the promoted bot under Bronze."""
    import sqlalchemy as sa

    from cli.client import add_divisions
    from ladder.bots import add_bot_version, register_bot
    from ladder.divisions import parse_divisions, promote_past_bosses
    from ladder.ladders import create_ladder, join_ladder
    from ladder.match_queue import enqueue_match
    from ladder.recording import record_result
    from ladder.schema import bot_versions, bots
    from referee.core.game import Result

    base, _ = site
    engine = create_engine(postgres_url)
    try:
        ladder = create_ladder(
            engine, "clank-leagues", "clank", 2, decision_ms=1000, bank_ms=0, max_strikes=3
        )
        versions = {}
        for name in ("una", "vic", "wes"):
            reg = register_bot(engine, name, f"owner-{name}")
            versions[name] = add_bot_version(engine, reg.bot_id, "1.0", f"python {name}.py")
            join_ladder(engine, ladder, reg.bot_id)
        add_divisions(engine, ladder, "clank", parse_divisions("default", "clank"))
        with engine.connect() as conn:
            wood_boss = conn.execute(
                sa.select(bot_versions.c.id)
                .join(bots, bots.c.id == bot_versions.c.bot_id)
                .where(bots.c.name == "reference-clank-boss1-random")
            ).scalar_one()
        games = [("una", wood_boss)] * 15 + [("vic", versions["wes"]), ("wes", versions["vic"])]
        for n, (winner, loser) in enumerate(games):
            match_id = enqueue_match(engine, ladder, [versions[winner], loser], seed=n)
            record_result(engine, match_id, Result((5, 1), (1, 2), ("a", "b")), b"{}", "finished")
        promoted = promote_past_bosses(engine, [ladder])
    finally:
        engine.dispose()
    assert [(p.to_name) for p in promoted] == ["Bronze"]
    _open(browser, f"{base}/ladders/{ladder}", "leagues")
    assert _console_errors(browser) == []
    listed = browser.find_element(By.ID, "divisions").text
    assert listed.startswith("Divisions, top first: Legend")
    assert [listed.index(n) for n in ("Legend", "Gold", "Silver", "Bronze", "Wood")] == sorted(
        listed.index(n) for n in ("Legend", "Gold", "Silver", "Bronze", "Wood")
    )
    assert "boss reference-clank-boss5-ismcts" in listed
    assert _texts(browser, "#standings tr.division") == ["Legend", "Gold", "Silver", "Bronze", "Wood"]
    rows = browser.find_elements(By.CSS_SELECTOR, "#standings tbody tr")
    under: dict[str, str] = {}
    heading = ""
    for row in rows:
        if "division" in (row.get_attribute("class") or ""):
            heading = row.text
        else:
            under[row.find_element(By.CSS_SELECTOR, "td a").text] = heading
    assert under["una"] == "Bronze" and under["vic"] == under["wes"] == "Wood"
    boss_rows = browser.find_elements(By.CSS_SELECTOR, "tr.boss")
    bosses = [r.find_element(By.CSS_SELECTOR, "td a").text for r in boss_rows]
    strategies = ((5, "ismcts"), (4, "greedy"), (3, "greedy"), (2, "random"), (1, "random"))
    assert bosses == [f"reference-clank-boss{n}-{s}" for n, s in strategies]
    assert all(under[b] for b in bosses) and under["reference-clank-boss1-random"] == "Wood"
    assert all("BOSS" in r.text.upper() for r in boss_rows)
