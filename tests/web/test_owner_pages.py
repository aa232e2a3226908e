"""An owner's pages over HTTP, on a real uvicorn over PostgreSQL: sign-in with an API key, my bots,
qualification games with their output and replay, my matches with my bot's output beside the
viewer, key creation, rotation and revocation; and nobody else sees any of it.

Two (three) accounts: alice and bob each own a bot whose qualification failed (a kept replay,
what it printed) and played one match against each other (each seat's output stored); carol's
bot played bob's. Every page of bob's is refused to alice (404) and to no session (403); the
attacker tests forge, replay, fix and cross-post sessions and forms.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import httpx
import pytest
import sqlalchemy as sa
from sqlalchemy import Engine

from ladder import sessions
from ladder.accounts import authenticate_key, create_account
from ladder.api import create_app
from ladder.api_limits import ApiLimits
from ladder.bots import add_bot_version, create_bot, set_qualification, store_bot_log
from ladder.db import create_engine
from ladder.ladders import create_ladder, join_ladder
from ladder.match_queue import enqueue_match
from ladder.recording import record_result
from ladder.schema import bots as bot_table
from ladder.schema import qualification_replays, web_sessions
from referee.replay import encode
from tests.databases import empty_postgres
from tests.ladder.live_api import live_api

from .seeding import play_local

pytestmark = pytest.mark.integration


@dataclass
class World:
    url: str
    engine: Engine
    keys: dict[str, str]
    bots: dict[str, int]
    versions: dict[str, int]
    #: alice vs bob, bob vs carol
    shared_match: int
    bob_match: int


def _replay_bytes(seed: int, names: tuple[str, str] = ("greedy", "random")) -> tuple[bytes, object]:
    played = play_local("clank", ["greedy", "random"], seed)
    played.replay["seats"] = [{"seat": n, "bot": name, "kind": "hosted", "strikes": 0, "incidents": []}
                              for n, name in enumerate(names)]
    return encode(played.replay), played.result


def _owner(engine: Engine, name: str, ladder: int) -> tuple[str, int, int]:
    made = create_account(engine, name)
    who = authenticate_key(engine, made.api_key)
    assert who is not None
    bot = create_bot(engine, who, f"{name}-bot", "clank").bot_id
    version = add_bot_version(engine, bot, "v1", "python main.py")
    raw, _ = _replay_bytes(11)
    set_qualification(engine, version, "failed", {
        "reason": "game 1 of 2: crashed", "log_excerpt": f"{name.upper()}-QUALIFICATION-OUTPUT",
        "games": [{"game": 1, "opponent": "reference-clank-greedy", "seat": 0, "outcome": "loss",
                   "place": 2, "decisions": 3, "faults": ["crashed at step 7"]}],
        "replay": {"game": 1, "seat": 0, "bytes": 1},
    })
    with engine.begin() as conn:
        conn.execute(sa.insert(qualification_replays).values(
            version_id=version, game=1, seat=0, data=gzip.compress(raw),
            sha256=hashlib.sha256(raw).hexdigest(), created_at=datetime.now(UTC)))
    # a passing version too, on the ladder
    rated = add_bot_version(engine, bot, "v2", "python main.py")
    join_ladder(engine, ladder, bot)
    return made.api_key, bot, rated


def _match(engine: Engine, ladder: int, seats: list[tuple[int, int, str]], seed: int) -> int:
    with engine.connect() as conn:
        names = conn.execute(sa.select(bot_table.c.name).where(bot_table.c.id.in_([b for b, _v, _o in seats]))
                             .order_by(bot_table.c.id)).scalars().all()
    raw, result = _replay_bytes(seed, (names[0], names[1]))
    match_id = enqueue_match(engine, ladder, [v for _b, v, _o in seats], seed=seed)
    record_result(engine, match_id, result, raw, "finished")  # type: ignore[arg-type]
    for seat, (bot, _v, said) in enumerate(seats):
        store_bot_log(engine, match_id, seat, bot, said.encode())
    return match_id


@pytest.fixture(scope="module")
def world(postgres_url: str) -> Iterator[World]:
    empty_postgres(postgres_url)
    engine = create_engine(postgres_url)
    ladder = create_ladder(engine, "owners", "clank", 2, decision_ms=1000, bank_ms=30000, max_strikes=3)
    keys, bots, versions = {}, {}, {}
    for name in ("alice", "bob", "carol"):
        keys[name], bots[name], versions[name] = _owner(engine, name, ladder)
    shared = _match(engine, ladder, [(bots["alice"], versions["alice"], "ALICE-MATCH-OUTPUT"),
                                     (bots["bob"], versions["bob"], "BOB-MATCH-OUTPUT")], 21)
    bob_only = _match(engine, ladder, [(bots["bob"], versions["bob"], "BOB-SECOND-OUTPUT"),
                                       (bots["carol"], versions["carol"], "CAROL-MATCH-OUTPUT")], 22)
    # a low failure limit, so the limiter test is short
    app = create_app(engine, limits=ApiLimits(auth_failures_per_minute=5))
    try:
        with live_api(app) as url:
            yield World(url, engine, keys, bots, versions, shared, bob_only)
    finally:
        engine.dispose()


#: the clients a test opened, closed after it (one browser each: its own cookie jar)
_OPEN: list[httpx.Client] = []


@pytest.fixture(autouse=True)
def _close_clients() -> Iterator[None]:
    yield
    while _OPEN:
        _OPEN.pop().close()


def _client(world: World, **kwargs: object) -> httpx.Client:
    c = httpx.Client(base_url=world.url, follow_redirects=False, timeout=30, **kwargs)  # type: ignore[arg-type]
    _OPEN.append(c)
    return c


def _sign_in(world: World, key: str, client: httpx.Client | None = None) -> httpx.Client:
    c = client or _client(world)
    r = c.post("/signin", data={"api_key": key}, headers={"Origin": world.url})
    assert r.status_code == 303, r.text
    assert r.headers["location"] == "/me"
    return c


def _csrf(page: str) -> str:
    found = re.search(r'name=csrf value="([0-9a-f]+)"', page)
    assert found, "no CSRF token on the page"
    return found.group(1)


def _post(c: httpx.Client, world: World, path: str, csrf: str | None, **fields: str) -> httpx.Response:
    data = dict(fields)
    if csrf is not None:
        data["csrf"] = csrf
    return c.post(path, data=data, headers={"Origin": world.url})


# --- what an owner sees -------------------------------------------------------------------------


def test_sign_in_sets_an_httponly_samesite_cookie_holding_no_key(world: World) -> None:
    c = _client(world)
    r = c.post("/signin", data={"api_key": world.keys["alice"]}, headers={"Origin": world.url})
    assert r.status_code == 303
    cookie = r.headers["set-cookie"]
    assert cookie.startswith(f"{sessions.COOKIE}=")
    value = cookie.split(";")[0].split("=", 1)[1]
    attributes = {a.strip().split("=")[0].lower() for a in cookie.split(";")[1:]}
    assert {"httponly", "samesite", "path", "max-age"} <= attributes
    assert "samesite=lax" in cookie.lower()
    assert "secure" not in attributes  # plain HTTP here: the TLS test below wants it
    assert world.keys["alice"] not in cookie and len(value) >= 40
    # stored hashed: the database never holds the cookie's value
    with world.engine.connect() as conn:
        stored = list(conn.execute(sa.select(web_sessions.c.token_hash)).scalars())
    assert hashlib.sha256(value.encode()).hexdigest() in stored and value not in stored


def test_secure_cookie_when_served_over_tls(world: World) -> None:
    # uvicorn trusts X-Forwarded-Proto from the loopback proxy: the page is served as https
    base = world.url.replace("http://", "https://")
    r = _client(world).post("/signin", data={"api_key": world.keys["alice"]},
                            headers={"Origin": base, "X-Forwarded-Proto": "https"})
    assert r.status_code == 303
    assert "secure" in {a.strip().lower() for a in r.headers["set-cookie"].split(";")}


def test_my_bots_show_versions_qualification_games_output_and_matches(world: World) -> None:
    c = _sign_in(world, world.keys["alice"])
    me = c.get("/me")
    assert me.status_code == 200
    assert me.headers["cache-control"] == "no-store"
    assert "alice-bot" in me.text and "bob-bot" in me.text  # bob is alice's opponent, by name
    assert f"/me/bots/{world.bots['alice']}" in me.text
    assert f"/me/bots/{world.bots['bob']}" not in me.text
    assert f"/me/matches/{world.shared_match}/replay" in me.text
    assert f"/me/matches/{world.bob_match}/replay" not in me.text
    page = c.get(f"/me/bots/{world.bots['alice']}")
    assert page.status_code == 200
    assert "ALICE-QUALIFICATION-OUTPUT" in page.text
    assert "reference-clank-greedy" in page.text and "crashed at step 7" in page.text
    replay_link = re.search(r'href="(/me/bots/\d+/versions/\d+/qualification/replay)"', page.text)
    assert replay_link
    viewer = c.get(replay_link.group(1))
    assert viewer.status_code == 200 and "ALICE-QUALIFICATION-OUTPUT" in viewer.text
    frame = c.get(replay_link.group(1) + "/frames/1?seat=0")
    assert frame.status_code == 200 and "board_html" in frame.json()


def test_match_viewer_shows_my_output_and_never_the_opponents(world: World) -> None:
    c = _sign_in(world, world.keys["alice"])
    r = c.get(f"/me/matches/{world.shared_match}/replay")
    assert r.status_code == 200
    assert "ALICE-MATCH-OUTPUT" in r.text
    assert "BOB-MATCH-OUTPUT" not in r.text
    assert 'id=bot-output' in r.text and 'data-frames="/matches/' in r.text
    bob = _sign_in(world, world.keys["bob"])
    theirs = bob.get(f"/me/matches/{world.shared_match}/replay")
    assert "BOB-MATCH-OUTPUT" in theirs.text and "ALICE-MATCH-OUTPUT" not in theirs.text


# --- nobody else --------------------------------------------------------------------------------


def _bobs_pages(world: World) -> list[str]:
    with world.engine.connect() as conn:
        from ladder.schema import api_keys

        bob_key = conn.execute(sa.select(api_keys.c.id).where(
            api_keys.c.prefix == world.keys["bob"][:12])).scalar_one()
    b, v = world.bots["bob"], world.versions["bob"] - 1  # v1: the failed one
    return [
        f"/me/bots/{b}",
        f"/me/bots/{b}/versions/{v}/qualification/replay",
        f"/me/bots/{b}/versions/{v}/qualification/replay/frames/1",
        f"/me/matches/{world.bob_match}/replay",
        f"/me/keys/{bob_key}/revoke",
    ]


def test_another_account_gets_404_for_every_page_of_bobs(world: World) -> None:
    alice = _sign_in(world, world.keys["alice"])
    pages = _bobs_pages(world)
    for path in pages[:-1]:
        r = alice.get(path)
        assert r.status_code == 404, path
        assert "BOB-" not in r.text
    csrf = _csrf(alice.get("/me/keys").text)
    r = _post(alice, world, pages[-1], csrf)
    assert r.status_code == 404
    assert authenticate_key(world.engine, world.keys["bob"]) is not None  # bob's key lives
    keys = alice.get("/me/keys").text
    assert world.keys["bob"][:12] not in keys and world.keys["alice"][:12] in keys


def test_no_session_gets_403_for_every_owner_page(world: World) -> None:
    c = _client(world)
    for path in ["/me", "/me/keys", *_bobs_pages(world)[:-1]]:
        r = c.get(path)
        assert r.status_code == 403, path
        assert "BOB-" not in r.text and "ALICE-" not in r.text
    assert c.get("/signin").status_code == 200


# --- keys ---------------------------------------------------------------------------------------


def test_create_rotate_and_revoke_keys(world: World) -> None:
    made = create_account(world.engine, "dora")
    c = _sign_in(world, made.api_key)
    csrf = _csrf(c.get("/me/keys").text)
    created = _post(c, world, "/me/keys", csrf, scopes="bots")
    assert created.status_code == 201
    new_key = re.search(r"id=new-key>(arena_[A-Za-z0-9_-]+)<", created.text)
    assert new_key and authenticate_key(world.engine, new_key.group(1)) is not None
    # shown once: the list afterwards has its prefix only
    listed = c.get("/me/keys").text
    assert new_key.group(1) not in listed and new_key.group(1)[:12] in listed
    second = authenticate_key(world.engine, new_key.group(1))
    assert second is not None
    rotated = _post(c, world, f"/me/keys/{second.key_id}/rotate", csrf)
    assert rotated.status_code == 200
    fresh = re.search(r"id=new-key>(arena_[A-Za-z0-9_-]+)<", rotated.text)
    assert fresh and authenticate_key(world.engine, fresh.group(1)) is not None
    assert authenticate_key(world.engine, new_key.group(1)) is None  # the old one is dead
    # rotating the session's own key keeps this browser signed in, under the new key
    rotated_own = _post(c, world, f"/me/keys/{made.key_id}/rotate", csrf)
    assert rotated_own.status_code == 200
    assert authenticate_key(world.engine, made.api_key) is None
    assert c.get("/me").status_code == 200
    third = authenticate_key(world.engine, fresh.group(1))
    assert third is not None
    revoked = _post(c, world, f"/me/keys/{third.key_id}/revoke", csrf)
    assert revoked.status_code == 303
    assert authenticate_key(world.engine, fresh.group(1)) is None


def test_a_key_cannot_mint_the_operator_scope(world: World) -> None:
    made = create_account(world.engine, "ed")
    c = _sign_in(world, made.api_key)
    csrf = _csrf(c.get("/me/keys").text)
    r = _post(c, world, "/me/keys", csrf, scopes="bots operator")
    assert r.status_code == 403
    assert "arena_" not in re.sub(r"<code>arena_[^<]*</code>", "", r.text)


# --- attackers ----------------------------------------------------------------------------------


def test_a_wrong_key_is_refused_and_counts_against_the_failure_limit(world: World) -> None:
    c = _client(world, headers={"X-Test": "limiter"})
    codes = [c.post("/signin", data={"api_key": "arena_" + "x" * 43},
                    headers={"Origin": world.url}).status_code for _ in range(6)]
    assert codes[:5] == [401] * 5 and codes[5] == 429
    assert sessions.COOKIE not in c.cookies
    # a key that verifies still signs in (someone else's guesses must not lock an owner out)
    _sign_in(world, world.keys["carol"])


def test_forged_and_expired_session_cookies_are_refused(world: World) -> None:
    forged = _client(world, cookies={sessions.COOKIE: "A" * 43})
    assert forged.get("/me").status_code == 403
    c = _sign_in(world, world.keys["carol"])
    value = c.cookies[sessions.COOKIE]
    with world.engine.begin() as conn:
        conn.execute(sa.update(web_sessions).where(
            web_sessions.c.token_hash == hashlib.sha256(value.encode()).hexdigest()
        ).values(expires_at=datetime.now(UTC) - timedelta(seconds=1)))
    assert c.get("/me").status_code == 403
    # the expired row is gone, not only refused
    with world.engine.connect() as conn:
        left = conn.execute(sa.select(sa.func.count()).select_from(web_sessions).where(
            web_sessions.c.token_hash == hashlib.sha256(value.encode()).hexdigest())).scalar_one()
    assert left == 0


def test_csrf_token_missing_or_of_another_session_is_refused(world: World) -> None:
    made = create_account(world.engine, "fay")
    victim = _sign_in(world, made.api_key)
    attacker = _sign_in(world, world.keys["carol"])
    theirs = _csrf(attacker.get("/me/keys").text)
    assert _post(victim, world, "/me/keys", None, scopes="bots").status_code == 403
    assert _post(victim, world, "/me/keys", theirs, scopes="bots").status_code == 403
    assert _post(victim, world, f"/me/keys/{made.key_id}/revoke", theirs).status_code == 403
    assert _post(victim, world, "/signout", "0" * 64).status_code == 403
    assert authenticate_key(world.engine, made.api_key) is not None
    assert victim.get("/me").status_code == 200  # still signed in: nothing happened
    # a JSON body carrying the right token is not a form
    mine = _csrf(victim.get("/me/keys").text)
    r = victim.post("/me/keys", content=json.dumps({"csrf": mine}),
                    headers={"Origin": world.url, "Content-Type": "application/json"})
    assert r.status_code == 403


def test_cross_origin_posts_are_refused_even_with_the_token(world: World) -> None:
    made = create_account(world.engine, "gus")
    c = _sign_in(world, made.api_key)
    csrf = _csrf(c.get("/me/keys").text)
    for headers in ({"Origin": "https://evil.example"}, {"Origin": "null"},
                    {"Referer": "https://evil.example/page"}, {}):
        r = c.post(f"/me/keys/{made.key_id}/revoke", data={"csrf": csrf}, headers=headers)
        assert r.status_code == 403, headers
        r = c.post("/signin", data={"api_key": made.api_key}, headers=headers)
        assert r.status_code == 403, headers
    assert authenticate_key(world.engine, made.api_key) is not None
    # the same form from this site's page, by Referer alone, is accepted
    r = c.post(f"/me/keys/{made.key_id}/revoke", data={"csrf": csrf},
               headers={"Referer": f"{world.url}/me/keys"})
    assert r.status_code == 303 and authenticate_key(world.engine, made.api_key) is None


def test_session_fixation_a_planted_id_is_never_the_signed_in_one(world: World) -> None:
    # the attacker's own session id, planted in the victim's browser before the victim signs in
    attacker = _sign_in(world, world.keys["carol"])
    planted = attacker.cookies[sessions.COOKIE]
    victim = _client(world)
    victim.cookies.set(sessions.COOKIE, planted, domain="127.0.0.1")
    assert victim.get("/me").status_code == 200  # the planted session works, as carol's
    _sign_in(world, world.keys["alice"], victim)
    assert victim.cookies[sessions.COOKIE] != planted
    # the planted session is deleted: the attacker's copy of it no longer works
    assert attacker.get("/me").status_code == 403
    assert "alice" in victim.get("/me").text


def test_a_revoked_keys_session_ends_and_sign_out_deletes_the_session(world: World) -> None:
    made = create_account(world.engine, "hal")
    c = _sign_in(world, made.api_key)
    assert c.get("/me").status_code == 200
    # revoked elsewhere (the API), the session ends at its next request
    api = _client(world).delete(f"/api/keys/{made.key_id}",
                                headers={"Authorization": f"Bearer {made.api_key}"})
    assert api.status_code == 204
    assert c.get("/me").status_code == 403
    other = create_account(world.engine, "ivy")
    c2 = _sign_in(world, other.api_key)
    value = c2.cookies[sessions.COOKIE]
    csrf = _csrf(c2.get("/me").text)
    r = _post(c2, world, "/signout", csrf)
    assert r.status_code == 303
    assert sessions.session_for(world.engine, value) is None
    # replaying the old cookie after sign-out gets nothing
    assert _client(world, cookies={sessions.COOKIE: value}).get("/me").status_code == 403
