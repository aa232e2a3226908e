"""An owner's pages in headless Chromium (as tests/web/test_browser.py drives the public ones):
sign in with an API key, see my bot and its qualification, step the viewer beside my bot's
output, create a key (shown once), sign out. Screenshots under ``test-artifacts/web/``
(``signin.png``, ``owner-bots.png``, ``owner-keys.png``, ``owner-viewer.png``)."""

from __future__ import annotations

import re

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from ladder.accounts import authenticate_key
from ladder.sessions import COOKIE

from .test_browser import ARTIFACTS, _console_errors, _open, _wait_step, browser  # noqa: F401
from .test_owner_pages import World, world  # noqa: F401

pytestmark = [pytest.mark.slow, pytest.mark.integration]


def _shot(driver: WebDriver, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(ARTIFACTS / f"{name}.png"))


def _loaded(driver: WebDriver) -> None:
    WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.readyState") == "complete")


def test_sign_in_see_my_bot_and_its_output_create_a_key_sign_out(
    world: World, browser: WebDriver  # noqa: F811
) -> None:
    base = world.url
    browser.delete_all_cookies()
    _open(browser, f"{base}/signin", "signin")
    assert _console_errors(browser) == []
    browser.find_element(By.ID, "api-key").send_keys(world.keys["alice"])
    browser.find_element(By.ID, "signin-button").click()
    WebDriverWait(browser, 10).until(lambda d: d.current_url.endswith("/me"))
    _loaded(browser)
    # the cookie is out of the page's reach (HttpOnly) and holds no key
    assert COOKIE not in browser.execute_script("return document.cookie")
    [cookie] = [c for c in browser.get_cookies() if c["name"] == COOKIE]
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax" and world.keys["alice"] not in cookie["value"]
    assert browser.find_element(By.ID, "signed-in-as").text == "alice"
    bots = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#my-bots tbody tr td:first-child a")]
    assert bots[0] == "alice-bot" and "bob-bot" not in bots
    assert _console_errors(browser) == []
    _shot(browser, "owner-bots")

    # my bot: each version's qualification, its games and output, the kept replay
    browser.find_element(By.LINK_TEXT, "alice-bot").click()
    _loaded(browser)
    printed = browser.find_element(By.CSS_SELECTOR, "pre.qualification-output").text
    assert "ALICE-QUALIFICATION-OUTPUT" in printed
    assert "crashed at step 7" in browser.find_element(By.CSS_SELECTOR, "table.qualification-games").text
    browser.find_element(By.CSS_SELECTOR, "a.qualification-replay").click()
    _loaded(browser)
    _wait_step(browser, 1)
    assert _console_errors(browser) == []

    # my match: the viewer steps with my bot's output beside it, never the opponent's
    _open(browser, f"{base}/me/matches/{world.shared_match}/replay")
    _wait_step(browser, 1)
    browser.find_element(By.ID, "forward").click()
    _wait_step(browser, 2)
    assert browser.find_element(By.ID, "output-step").text == "2"
    output = browser.find_element(By.CSS_SELECTOR, "#bot-output").text
    assert "ALICE-MATCH-OUTPUT" in output and "BOB-MATCH-OUTPUT" not in browser.page_source
    assert _console_errors(browser) == []
    _shot(browser, "owner-viewer")

    # a key: created, shown once, and it works
    _open(browser, f"{base}/me/keys")
    before = len(browser.find_elements(By.CSS_SELECTOR, "#keys tbody tr"))
    browser.find_element(By.ID, "create-key").click()
    _loaded(browser)
    shown = browser.find_element(By.ID, "new-key").text
    assert re.fullmatch(r"arena_[A-Za-z0-9_-]{43}", shown)
    assert authenticate_key(world.engine, shown) is not None
    assert len(browser.find_elements(By.CSS_SELECTOR, "#keys tbody tr")) == before + 1
    assert _console_errors(browser) == []
    _shot(browser, "owner-keys")
    _open(browser, f"{base}/me/keys")
    assert shown not in browser.page_source  # once

    # sign out: back to the sign-in page, and /me is closed again
    browser.find_element(By.ID, "signout").click()
    WebDriverWait(browser, 10).until(lambda d: d.current_url.endswith("/signin"))
    assert [c for c in browser.get_cookies() if c["name"] == COOKIE] == []
    browser.get(f"{base}/me")
    _loaded(browser)
    assert "Sign in to see this page" in browser.find_element(By.ID, "signin-error").text
