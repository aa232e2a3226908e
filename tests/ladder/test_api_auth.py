"""The API's writers are authenticated, scoped and limited, on SQLite and PostgreSQL.

Each protection is attacked: anonymous writes, bad keys, another account's bot, scope escalation,
floods of requests and of failed logins, oversize and NUL-bearing inputs (with the rows counted
before and after: nothing is stored).
"""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from ladder.accounts import NewAccount, create_account, create_key
from ladder.api import ApiLimits, create_app
from ladder.archives import extract_archive
from ladder.bots import authenticate_bot, register_bot, store_bot_log, version_archive
from ladder.ladders import create_ladder
from ladder.match_queue import enqueue_match
from ladder.schema import accounts, api_keys, bot_versions, bots, ladder_entries


def _auth(account: NewAccount | str) -> dict[str, str]:
    key = account if isinstance(account, str) else account.api_key
    return {"Authorization": f"Bearer {key}"}


def _tar_gz(files: dict[str, bytes]) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue())


def _count(engine: Engine, table: sa.Table) -> int:
    with engine.connect() as conn:
        return int(conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one())


def _error(response: Any, status: int) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["status"] == status and body["error"]
    return str(body["error"])


@pytest.fixture
def client(engine: Engine) -> Iterator[TestClient]:
    with TestClient(create_app(engine)) as c:
        yield c


@pytest.fixture
def alice(engine: Engine) -> NewAccount:
    return create_account(engine, "alice")


@pytest.fixture
def mallory(engine: Engine) -> NewAccount:
    return create_account(engine, "mallory")


@pytest.fixture
def root(engine: Engine) -> NewAccount:
    return create_account(engine, "root", is_operator=True)


def _new_bot(client: TestClient, who: NewAccount, name: str = "alicebot", game: str = "clank") -> Any:
    response = client.post("/api/bots", json={"name": name, "game": game}, headers=_auth(who))
    assert response.status_code == 201, response.text
    return response.json()


def test_anonymous_and_bad_keys_cannot_write(client: TestClient, engine: Engine, alice: NewAccount) -> None:
    bot = _new_bot(client, alice)
    ladder_id = create_ladder(engine, "l", "clank", 2, decision_ms=100, bank_ms=0, max_strikes=0)
    writes = [
        ("post", "/api/bots", {"json": {"name": "x", "game": "clank"}}),
        ("post", f"/api/bots/{bot['id']}/versions?run=python+main.py",
         {"content": _tar_gz({"main.py": b""}), "headers": {"Content-Type": "application/gzip"}}),
        ("post", f"/api/bots/{bot['id']}/versions/remote", {}),
        ("post", f"/api/ladders/{ladder_id}/entries", {"json": {"bot_id": bot["id"]}}),
        ("post", "/api/keys", {"json": {}}),
        ("delete", f"/api/keys/{alice.key_id}", {}),
        ("post", "/api/accounts", {"json": {"name": "eve"}}),
        ("get", "/api/me", {}),
    ]
    for bad in (None, "Bearer", "Bearer arena_forged", "Basic YWxpY2U6cHc=", f"Bearer {alice.api_key}x"):
        for method, path, kwargs in writes:
            headers = dict(kwargs.get("headers", {}))
            if bad is not None:
                headers["Authorization"] = bad
            response = getattr(client, method)(path, **{**kwargs, "headers": headers})
            _error(response, 401)
            assert response.headers["www-authenticate"] == "Bearer"
    # nothing was written by any of them
    assert (_count(engine, bots), _count(engine, bot_versions), _count(engine, ladder_entries)) == (1, 0, 0)
    assert (_count(engine, accounts), _count(engine, api_keys)) == (1, 1)


def test_another_accounts_bot_cannot_be_changed(
    client: TestClient, engine: Engine, alice: NewAccount, mallory: NewAccount, root: NewAccount
) -> None:
    bot = _new_bot(client, alice)
    ladder_id = create_ladder(engine, "l", "clank", 2, decision_ms=100, bank_ms=0, max_strikes=0)
    upload = {"content": _tar_gz({"main.py": b"evil"}), "headers": {"Content-Type": "application/gzip"}}
    forged = client.post(f"/api/bots/{bot['id']}/versions?run=python+main.py", **{
        **upload, "headers": {**upload["headers"], **_auth(mallory)}})
    assert "another account" in _error(forged, 403)
    _error(client.post(f"/api/bots/{bot['id']}/versions/remote", headers=_auth(mallory)), 403)
    _error(client.post(f"/api/ladders/{ladder_id}/entries", json={"bot_id": bot["id"]},
                       headers=_auth(mallory)), 403)
    _error(client.delete(f"/api/keys/{alice.key_id}", headers=_auth(mallory)), 404)
    assert (_count(engine, bot_versions), _count(engine, ladder_entries)) == (0, 0)
    # the old token still works: mallory's remote version did not replace it
    assert authenticate_bot(engine, bot["token"]) is not None
    # a legacy bot (no account) is nobody's: only an operator may touch it
    legacy = register_bot(engine, "legacy", "alice")
    _error(client.post(f"/api/bots/{legacy.bot_id}/versions/remote", headers=_auth(alice)), 403)
    assert client.post(f"/api/bots/{legacy.bot_id}/versions/remote", headers=_auth(root)).status_code == 201
    # an operator may act on anyone's bot
    assert client.post(f"/api/ladders/{ladder_id}/entries", json={"bot_id": bot["id"]},
                       headers=_auth(root)).status_code == 201


def test_the_submission_path(client: TestClient, engine: Engine, alice: NewAccount, tmp_path: Any) -> None:
    """Create, upload, remote, join, status: the calls `arena bot ...` makes."""
    bot = _new_bot(client, alice)
    assert (bot["owner"], bot["game"]) == ("alice", "clank")
    files = {"bot/main.py": b"print('hello')\n", "bot/lib.py": b"x = 1\n"}
    response = client.post(
        f"/api/bots/{bot['id']}/versions", params={"run": "python bot/main.py"},
        content=_tar_gz(files), headers={**_auth(alice), "Content-Type": "application/gzip"},
    )
    assert response.status_code == 201, response.text
    made = response.json()
    assert (made["version"], made["qualification"], made["files"], made["bytes"]) == ("v1", "pending", 2, 21)
    with engine.connect() as conn:
        query = sa.select(bot_versions.c.command).where(bot_versions.c.id == made["id"])
        command = conn.execute(query).scalar()
    assert command == "python bot/main.py"
    stored = version_archive(engine, made["id"])
    assert stored is not None
    extract_archive(stored, tmp_path / "unpacked")
    assert (tmp_path / "unpacked/bot/main.py").read_bytes() == files["bot/main.py"]
    labelled = client.post(
        f"/api/bots/{bot['id']}/versions", params={"run": "python bot/main.py", "version": "1.2-beta"},
        content=_tar_gz(files), headers={**_auth(alice), "Content-Type": "application/octet-stream"},
    )
    assert labelled.status_code == 201 and labelled.json()["version"] == "1.2-beta"
    assert labelled.json()["archive_sha256"] == made["archive_sha256"]  # same files, same bytes
    gz_headers = {**_auth(alice), "Content-Type": "application/gzip"}
    _error(client.post(f"/api/bots/{bot['id']}/versions", params={"run": "x", "version": "1.2-beta"},
                       content=_tar_gz(files), headers=gz_headers), 409)
    _error(client.post(f"/api/bots/{bot['id']}/versions", params={"run": "x"}, content=b"{}",
                       headers={**_auth(alice), "Content-Type": "application/json"}), 415)

    remote = client.post(f"/api/bots/{bot['id']}/versions/remote", headers=_auth(alice))
    assert remote.status_code == 201
    # pending until its bot connects and plays its qualification games (tests/ladder/test_remote_versions.py)
    assert (remote.json()["version"], remote.json()["qualification"]) == ("v3", "pending")
    assert authenticate_bot(engine, bot["token"]) is None  # the old token stopped working
    who = authenticate_bot(engine, remote.json()["token"])
    assert who is not None and who.bot_id == bot["id"]

    clank = create_ladder(engine, "clank-2p", "clank", 2, decision_ms=100, bank_ms=0, max_strikes=0)
    alien = create_ladder(engine, "alien-2p", "alien", 2, decision_ms=100, bank_ms=0, max_strikes=0,
                          kind="coop")
    joined = client.post(f"/api/ladders/{clank}/entries", json={"bot_id": bot["id"]}, headers=_auth(alice))
    assert joined.status_code == 201
    assert joined.json() == {"ladder_id": clank, "bot_id": bot["id"], "rating": 1500.0}
    assert "already" in _error(client.post(f"/api/ladders/{clank}/entries", json={"bot_id": bot["id"]},
                                           headers=_auth(alice)), 409)
    assert "plays clank" in _error(client.post(f"/api/ladders/{alien}/entries", json={"bot_id": bot["id"]},
                                               headers=_auth(alice)), 409)
    _error(client.post("/api/ladders/999/entries", json={"bot_id": bot["id"]}, headers=_auth(alice)), 404)
    _error(client.post(f"/api/ladders/{clank}/entries", json={"bot_id": 999}, headers=_auth(alice)), 404)

    status = client.get("/api/bots/by-name/alicebot").json()
    assert [(v["version"], v["kind"], v["qualification"]) for v in status["versions"]] == [
        ("v1", "hosted", "pending"), ("1.2-beta", "hosted", "pending"), ("v3", "remote", "pending")
    ]
    assert status["versions"][0]["archive_sha256"] == made["archive_sha256"]
    assert [entry["ladder_name"] for entry in status["ladders"]] == ["clank-2p"]


def test_bad_archives_are_refused_and_nothing_is_stored(client: TestClient, engine: Engine,
                                                         alice: NewAccount) -> None:
    bot = _new_bot(client, alice)
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        link = tarfile.TarInfo("escape")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc"
        tar.addfile(link)
    headers = {**_auth(alice), "Content-Type": "application/gzip"}
    url = f"/api/bots/{bot['id']}/versions"
    link_out = gzip.compress(raw.getvalue())
    assert "symbolic link" in _error(client.post(url, params={"run": "x"}, content=link_out,
                                                 headers=headers), 422)
    _error(client.post(url, params={"run": "x"}, content=b"not an archive", headers=headers), 422)
    # over the upload limit: refused from its Content-Length, before anything is read
    _error(client.post(url, params={"run": "x"}, content=bytes(10 * 1024 * 1024 + 1), headers=headers), 413)
    header = tarfile.TarInfo("zeros.bin")
    header.size = 80 * 1024 * 1024
    # a file of 80 MiB of zeros in ~80 KB (gzip members may be concatenated)
    bomb = gzip.compress(header.tobuf()) + gzip.compress(bytes(1024 * 1024)) * 80
    assert "unpacks to more than" in _error(client.post(url, params={"run": "x"}, content=bomb,
                                                        headers=headers), 413)
    assert _count(engine, bot_versions) == 0


def test_nul_and_control_characters_are_422_and_nothing_is_stored(
    client: TestClient, engine: Engine, alice: NewAccount, root: NewAccount
) -> None:
    bot = _new_bot(client, alice)
    before = (_count(engine, bots), _count(engine, bot_versions), _count(engine, accounts))
    for name in ("nul\x00bot", "bell\x07", "new\nline", "x\x7f"):
        _error(client.post("/api/bots", json={"name": name, "game": "clank"}, headers=_auth(alice)), 422)
        _error(client.post("/api/accounts", json={"name": name}, headers=_auth(root)), 422)
    archive = _tar_gz({"main.py": b""})
    headers = {**_auth(alice), "Content-Type": "application/gzip"}
    for params in ({"run": "python\x00 main.py"}, {"run": "python main.py\n"}, {"run": "   "},
                   {"run": "python main.py", "version": "v\x00"}):
        _error(client.post(f"/api/bots/{bot['id']}/versions", params=params, content=archive,
                           headers=headers), 422)
    _error(client.get("/api/bots/by-name/a%00b"), 422)
    assert (_count(engine, bots), _count(engine, bot_versions), _count(engine, accounts)) == before
    # the next request on the same client is answered normally
    assert client.get(f"/api/bots/{bot['id']}").status_code == 200


def test_oversize_json_bodies_are_413_and_nothing_is_stored(client: TestClient, engine: Engine,
                                                            alice: NewAccount) -> None:
    huge = '{"name": "big", "game": "clank", "pad": "' + "x" * (1024 * 1024) + '"}'
    response = client.post("/api/bots", content=huge,
                           headers={**_auth(alice), "Content-Type": "application/json"})
    _error(response, 413)
    # also without authentication: refused before it is read
    _error(client.post("/api/accounts", content=huge, headers={"Content-Type": "application/json"}), 413)
    assert _count(engine, bots) == 0


def test_accounts_need_an_operator_unless_sign_up_is_open(
    engine: Engine, client: TestClient, alice: NewAccount, root: NewAccount
) -> None:
    _error(client.post("/api/accounts", json={"name": "eve"}), 401)
    assert "operator" in _error(client.post("/api/accounts", json={"name": "eve"}, headers=_auth(alice)), 403)
    made = client.post("/api/accounts", json={"name": "carol"}, headers=_auth(root))
    assert made.status_code == 201
    carol = made.json()
    assert carol["name"] == "carol" and carol["api_key"].startswith("arena_")
    me = client.get("/api/me", headers=_auth(carol["api_key"])).json()
    assert (me["name"], me["is_operator"]) == ("carol", False)
    assert [k["prefix"] for k in me["keys"]] == [carol["api_key"][:12]]
    _error(client.post("/api/accounts", json={"name": "carol"}, headers=_auth(root)), 409)

    with TestClient(create_app(engine, open_signup=True)) as open_client:
        made = open_client.post("/api/accounts", json={"name": "dave"})
        assert made.status_code == 201
        for i in range(3):  # 5 a minute per address
            assert open_client.post("/api/accounts", json={"name": f"flood{i}"}).status_code == 201
        # a key holder signs up like anyone (a bad key is still refused)
        by_alice = open_client.post("/api/accounts", json={"name": "by-alice"}, headers=_auth(alice))
        assert by_alice.status_code == 201
        _error(open_client.post("/api/accounts", json={"name": "bad-key"}, headers=_auth("arena_nope")), 401)
        flood = open_client.post("/api/accounts", json={"name": "flood-too-many"})
        _error(flood, 429)
        assert int(flood.headers["retry-after"]) >= 1
    assert _count(engine, accounts) == 3 + 5


def test_keys_cannot_escalate(
    client: TestClient, engine: Engine, alice: NewAccount, root: NewAccount
) -> None:
    made = client.post("/api/keys", json={}, headers=_auth(alice))
    assert made.status_code == 201
    second = made.json()
    assert client.get("/api/me", headers=_auth(second["api_key"])).status_code == 200
    _error(client.post("/api/keys", json={"scopes": "operator"}, headers=_auth(alice)), 403)
    _error(client.post("/api/keys", json={"scopes": "root"}, headers=_auth(alice)), 422)
    # an operator's bots-only key cannot mint an operator key
    bots_only = create_key(engine, root.account_id, "bots")
    _error(client.post("/api/keys", json={"scopes": "bots operator"}, headers=_auth(bots_only.api_key)), 403)
    _error(client.post("/api/accounts", json={"name": "eve"}, headers=_auth(bots_only.api_key)), 403)
    # revoke: 204, then the key is refused
    assert client.delete(f"/api/keys/{second['id']}", headers=_auth(alice)).status_code == 204
    _error(client.get("/api/me", headers=_auth(second["api_key"])), 401)
    _error(client.delete(f"/api/keys/{second['id']}", headers=_auth(alice)), 404)


def test_logs_are_for_the_owner_and_operators(
    client: TestClient, engine: Engine, alice: NewAccount, mallory: NewAccount, root: NewAccount
) -> None:
    bot = _new_bot(client, alice)
    ladder_id = create_ladder(engine, "l", "clank", 2, decision_ms=100, bank_ms=0, max_strikes=0)
    with engine.begin() as conn:
        version_id = conn.execute(
            sa.insert(bot_versions).values(bot_id=bot["id"], version="1", command="python main.py",
                                           created_at=sa.func.now()).returning(bot_versions.c.id)
        ).scalar_one()
    match_id = enqueue_match(engine, ladder_id, [version_id, version_id], seed=1)
    store_bot_log(engine, match_id, 1, bot["id"], b"thinking...\nTraceback: oops\n")
    url = f"/api/matches/{match_id}/logs/1"
    response = client.get(url, headers=_auth(alice))
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    assert response.text == "thinking...\nTraceback: oops\n"
    assert client.get(url, headers=_auth(root)).text == response.text
    _error(client.get(url), 401)
    _error(client.get(url, headers=_auth(mallory)), 403)
    _error(client.get(f"/api/matches/{match_id}/logs/0", headers=_auth(alice)), 404)
    _error(client.get("/api/matches/99999/logs/0", headers=_auth(alice)), 404)


def test_what_a_bot_printed_in_qualification_is_for_the_owner_and_operators(
    client: TestClient, engine: Engine, alice: NewAccount, mallory: NewAccount, root: NewAccount
) -> None:
    """The profile is public, but its qualification record's log excerpt is the bot's output:
    shown to the owner's and an operator's key, never to anyone else, nor on the web page."""
    bot = _new_bot(client, alice)
    printed = "my secret opening book: rush the crown\n"
    detail = json.dumps({"reason": "played 2 games without a fault", "log_excerpt": printed})
    with engine.begin() as conn:
        conn.execute(
            sa.insert(bot_versions).values(bot_id=bot["id"], version="1", command="python main.py",
                                           qualification="passed", qualification_detail=detail,
                                           created_at=sa.func.now())
        )

    def excerpt(response: Any) -> Any:
        assert response.status_code == 200, response.text
        (version,) = response.json()["versions"]
        assert version["qualification_detail"]["reason"] == "played 2 games without a fault"
        return version["qualification_detail"].get("log_excerpt")

    for url in (f"/api/bots/{bot['id']}", "/api/bots/by-name/alicebot"):
        assert excerpt(client.get(url, headers=_auth(alice))) == printed
        assert excerpt(client.get(url, headers=_auth(root))) == printed
        assert excerpt(client.get(url)) is None
        assert excerpt(client.get(url, headers=_auth(mallory))) is None
        _error(client.get(url, headers=_auth("arena_not_a_key")), 401)
    page = client.get(f"/bots/{bot['id']}")
    assert page.status_code == 200 and "alicebot" in page.text
    assert "opening book" not in page.text and "played 2 games without a fault" in page.text


def test_the_rate_limit_counts_per_account_not_per_key(
    engine: Engine, client: TestClient, alice: NewAccount, mallory: NewAccount
) -> None:
    """More keys are not more calls: every key of an account draws from the account's bucket
    (30 keys passed 1,800 calls in 36 s when each key had its own)."""
    keys = [create_key(engine, alice.account_id, rate_per_minute=3).api_key for _ in range(4)]
    passed = [client.get("/api/me", headers=_auth(key)).status_code for key in keys]
    assert passed == [200, 200, 200, 429]
    limited = client.post("/api/bots", json={"name": "b", "game": "clank"}, headers=_auth(keys[0]))
    _error(limited, 429)
    assert "account's limit is 3 requests a minute" in limited.json()["error"]
    assert 1 <= int(limited.headers["retry-after"]) <= 20
    assert _count(engine, bots) == 0
    # another account has a bucket of its own
    assert client.get("/api/me", headers=_auth(mallory)).status_code == 200


def test_keys_per_account_are_capped(engine: Engine, client: TestClient, alice: NewAccount) -> None:
    from ladder.accounts import MAX_KEYS_PER_ACCOUNT

    made = [client.post("/api/keys", json={}, headers=_auth(alice)) for _ in range(MAX_KEYS_PER_ACCOUNT)]
    assert [r.status_code for r in made] == [201] * (MAX_KEYS_PER_ACCOUNT - 1) + [409]
    assert "already holds 10 live keys" in _error(made[-1], 409)
    assert _count(engine, api_keys) == MAX_KEYS_PER_ACCOUNT
    # a revoked key makes room for one more
    assert client.delete(f"/api/keys/{made[0].json()['id']}", headers=_auth(alice)).status_code == 204
    assert client.post("/api/keys", json={}, headers=_auth(alice)).status_code == 201


def test_failed_authentications_slow_guessing_but_never_refuse_a_valid_key(
    engine: Engine, alice: NewAccount
) -> None:
    with TestClient(create_app(engine, limits=ApiLimits(auth_failures_per_minute=5))) as client:
        for i in range(5):
            _error(client.get("/api/me", headers=_auth(f"arena_guess{i}")), 401)
        blocked = client.get("/api/me", headers=_auth("arena_guess-next"))
        _error(blocked, 429)
        assert int(blocked.headers["retry-after"]) >= 1
        # someone else's guesses from this address do not lock out a key that verifies
        # (after 20 bad keys the API answered 429 to a valid key from the same address)
        me = client.get("/api/me", headers=_auth(alice))
        assert me.status_code == 200 and me.json()["name"] == "alice"
        assert client.post("/api/bots", json={"name": "ok", "game": "clank"},
                           headers=_auth(alice)).status_code == 201
        # and guessing stays slowed: unknown keys still get 429, not a verdict
        _error(client.get("/api/me", headers=_auth("arena_guess-after")), 429)
        # reads stay public
        assert client.get("/api/ladders").status_code == 200


def test_a_missing_log_says_why(client: TestClient, engine: Engine, alice: NewAccount) -> None:
    bot = _new_bot(client, alice)
    ladder_id = create_ladder(engine, "l", "clank", 2, decision_ms=100, bank_ms=0, max_strikes=0)
    versions = {}
    with engine.begin() as conn:
        for n, command in enumerate(("builtin:random", "remote", "python main.py")):
            versions[command] = conn.execute(
                sa.insert(bot_versions).values(bot_id=bot["id"], version=str(n), command=command,
                                               created_at=sa.func.now()).returning(bot_versions.c.id)
            ).scalar_one()
    match_id = enqueue_match(engine, ladder_id, [versions["builtin:random"], versions["remote"]], seed=1)
    queued = enqueue_match(engine, ladder_id, [versions["python main.py"]] * 2, seed=2)

    def reason(match: int, seat: int) -> str:
        return _error(client.get(f"/api/matches/{match}/logs/{seat}", headers=_auth(alice)), 404)

    assert "a built-in bot runs inside the worker and writes no log" in reason(match_id, 0)
    assert "a remote bot's output stays on the machine it runs on" in reason(match_id, 1)
    assert reason(match_id, 2) == f"match {match_id} has no seat 2 (seats 0..1)"
    assert reason(queued, 0) == f"no log for seat 0 of match {queued} yet: the match is queued"
    assert reason(99999, 0) == "no match 99999"


def test_account_creation_answers_who_may_before_it_reads_the_body(
    client: TestClient, alice: NewAccount, root: NewAccount
) -> None:
    # an unauthenticated caller learns nothing of the body's schema: 401/403 come first
    for headers, status in (
        ({}, 401),
        (_auth("arena_" + "x" * 43), 401),
        (_auth(alice), 403),
        (_auth(root), 422),  # allowed: now the body is read, and refused
    ):
        malformed = client.post(
            "/api/accounts", content='{"nam": 1}', headers={"Content-Type": "application/json", **headers}
        )
        error = _error(malformed, status)
        assert ("name" in error) == (status == 422), error
