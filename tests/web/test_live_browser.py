"""A live match in Chromium: the home page lists it, its page moves as it is played, and at its
end the page becomes the replay viewer.

A real worker call plays the match (built-in random bots thinking a few ms a decision) on a
SQLite database while the app runs in uvicorn; the browser is the one of test_browser.py. The
screenshots go to ``test-artifacts/web/`` (``live.png``, ``home-live.png``).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
import sqlalchemy as sa
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from ladder.db import create_engine
from ladder.schema import matches
from workers.match_execution import run_match

from .live_support import queue_match
from .serving import serve
from .test_browser import ARTIFACTS, _console_errors, browser  # noqa: F401  (the browser fixture)

pytestmark = [pytest.mark.slow, pytest.mark.integration]


def _step(driver: WebDriver) -> int:
    return int(driver.find_element(By.ID, "live").get_attribute("data-step") or 0)


def test_a_live_match_moves_on_its_page_then_becomes_the_replay(
    browser: WebDriver, sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    monkeypatch.delenv("BROKER_URL", raising=False)
    monkeypatch.setenv("ARENA_LIVE_DIR", str(tmp_path / "live"))
    monkeypatch.setenv("ARENA_LIVE_DELAY_DECISIONS", "2")
    monkeypatch.setenv("ARENA_LIVE_DELAY_SECONDS", "0.5")
    engine = create_engine(sqlite_url)
    match_id = queue_match(engine, ["builtin:random?think_ms=8"] * 2, name="tv")
    player = threading.Thread(target=run_match, args=(sqlite_url, match_id), daemon=True)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    try:
        with serve(engine) as url:
            player.start()
            deadline = time.monotonic() + 30
            while True:
                with engine.connect() as conn:
                    status = conn.execute(
                        sa.select(matches.c.status).where(matches.c.id == match_id)
                    ).scalar()
                if status == "running":
                    break
                assert time.monotonic() < deadline, status
                time.sleep(0.05)
            browser.get_log("browser")
            # the home page's live list links the match being played to its live view
            browser.get(f"{url}/")
            links = browser.find_elements(By.CSS_SELECTOR, "#live-matches a[href]")
            assert f"/matches/{match_id}" in [a.get_attribute("href").removeprefix(url) for a in links]
            browser.save_screenshot(str(ARTIFACTS / "home-live.png"))
            row = browser.find_element(By.CSS_SELECTOR, f"#live-matches tr[data-match='{match_id}']")
            assert "tv-b0 vs tv-b1" in row.text
            # its page moves: the step counter goes up as the match is played
            browser.find_element(By.CSS_SELECTOR, f"#live-matches a[href='/matches/{match_id}']").click()
            WebDriverWait(browser, 20).until(lambda d: _step(d) > 0)
            first = _step(browser)
            WebDriverWait(browser, 20).until(lambda d: _step(d) > first + 5)
            assert browser.current_url == f"{url}/matches/{match_id}"
            assert browser.find_element(By.ID, "live-step").text == str(_step(browser)) or _step(browser) > 0
            assert "chose:" in browser.find_element(By.ID, "live-record").text
            assert len(browser.find_elements(By.CSS_SELECTOR, "#live-log li")) >= 5
            browser.save_screenshot(str(ARTIFACTS / "live.png"))
            # at the end it becomes the replay viewer, at its first step
            replay_url = f"{url}/matches/{match_id}/replay"
            WebDriverWait(browser, 60).until(lambda d: d.current_url.startswith(replay_url))
            WebDriverWait(browser, 20).until(
                lambda d: "of" in d.find_element(By.ID, "position").text
            )
            assert browser.find_elements(By.ID, "viewer")
            assert not _console_errors(browser)
            player.join(30)
    finally:
        engine.dispose()
