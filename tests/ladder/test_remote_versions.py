"""Remote versions through the API, on SQLite and PostgreSQL: a new one is pending (waiting for
its bot to connect), never "passed" unplayed; the API says where the bot connects, as the
operator published it, or that they have not; the referee's lobby lets in a bot whose remote
version still has to qualify and refuses one whose remote version failed, with the reason.

The games themselves (a remote version qualifying once its bot connects) are played against a
real referee and a real remote bot in tests/referee/test_remote.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from ladder.accounts import NewAccount, create_account
from ladder.api import create_app
from ladder.bots import add_bot_version, register_bot, set_qualification
from ladder.ladders import create_ladder, join_ladder
from ladder.remote_bots import (
    PUBLIC_REFEREE_ENV,
    PUBLIC_REFEREE_TLS_ENV,
    PublicReferee,
    public_referee,
    remote_refusal,
)
from ladder.schema import bot_versions

PUBLISHED = PublicReferee("referee.example.org:50051", tls=True)


def _auth(account: NewAccount) -> dict[str, str]:
    return {"Authorization": f"Bearer {account.api_key}"}


@pytest.fixture
def alice(engine: Engine) -> NewAccount:
    return create_account(engine, "alice")


@pytest.fixture
def client(engine: Engine) -> Iterator[TestClient]:
    with TestClient(create_app(engine, referee=PUBLISHED)) as c:
        yield c


def _bot(client: TestClient, who: NewAccount, name: str = "faraway") -> Any:
    made = client.post("/api/bots", json={"name": name, "game": "clank"}, headers=_auth(who))
    assert made.status_code == 201, made.text
    return made.json()


def test_a_remote_version_is_pending_and_its_author_is_told_where_to_connect(
    client: TestClient, engine: Engine, alice: NewAccount
) -> None:
    bot = _bot(client, alice)
    made = client.post(f"/api/bots/{bot['id']}/versions/remote", headers=_auth(alice))
    assert made.status_code == 201, made.text
    answer = made.json()
    assert answer["qualification"] == "pending"
    assert answer["qualification_detail"]["waiting"] == "connection"
    assert "waiting for the bot to connect" in answer["qualification_detail"]["reason"]
    expected = {
        "configured": True,
        "address": "referee.example.org:50051",
        "tls": True,
        "sdk_args": "--referee referee.example.org:50051 --tls",
    }
    assert {k: answer["referee"][k] for k in expected} == expected
    assert "referee.example.org:50051" in answer["referee"]["message"]

    # the stored row, its profile and the small endpoint say the same
    with engine.connect() as conn:
        row = conn.execute(
            sa.select(bot_versions.c.qualification, bot_versions.c.qualification_detail).where(
                bot_versions.c.id == answer["id"]
            )
        ).one()
    assert row.qualification == "pending" and json.loads(row.qualification_detail)["waiting"] == "connection"
    profile = client.get(f"/api/bots/{bot['id']}").json()
    assert [(v["kind"], v["qualification"]) for v in profile["versions"]] == [("remote", "pending")]
    assert profile["referee"] == answer["referee"]
    assert client.get("/api/referee").json() == answer["referee"]
    # a bot with no remote version is not given an address it has no use for
    other = _bot(client, alice, "hosted-only")
    assert client.get(f"/api/bots/by-name/{other['name']}").json()["referee"] is None


def test_an_unpublished_referee_is_said_so_never_invented(
    engine: Engine, alice: NewAccount, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(PUBLIC_REFEREE_ENV, raising=False)
    monkeypatch.delenv(PUBLIC_REFEREE_TLS_ENV, raising=False)
    with TestClient(create_app(engine)) as client:
        said = client.get("/api/referee").json()
        unknown = (said["configured"], said["address"], said["tls"], said["sdk_args"])
        assert unknown == (False, None, None, None)
        assert "has not published" in said["message"] and PUBLIC_REFEREE_ENV in said["message"]
        bot = _bot(client, alice)
        made = client.post(f"/api/bots/{bot['id']}/versions/remote", headers=_auth(alice)).json()
        assert made["referee"] == said and made["qualification"] == "pending"

    # published by the operator's environment, plaintext
    monkeypatch.setenv(PUBLIC_REFEREE_ENV, "10.0.0.5:50051")
    monkeypatch.setenv(PUBLIC_REFEREE_TLS_ENV, "0")
    with TestClient(create_app(engine)) as client:
        said = client.get("/api/referee").json()
    assert (said["configured"], said["address"], said["tls"], said["sdk_args"]) == (
        True,
        "10.0.0.5:50051",
        False,
        "--referee 10.0.0.5:50051",
    )


@pytest.mark.parametrize(
    ("address", "tls"),
    [
        ("referee.example.org", "1"),
        ("https://referee.example.org:50051", "1"),
        ("a:1,b:2", "1"),
        ("referee:99999", "1"),
        ("referee:50051", "yes"),
    ],
)
def test_a_malformed_public_referee_is_refused_naming_the_variable(address: str, tls: str) -> None:
    with pytest.raises(ValueError, match=r"\$ARENA_PUBLIC_REFEREE"):
        public_referee({PUBLIC_REFEREE_ENV: address, PUBLIC_REFEREE_TLS_ENV: tls})


def _versions(engine: Engine, name: str, *states: tuple[str, str]) -> int:
    """Bot `name` on a ladder, with versions (command, qualification) in order."""
    ladder_id = create_ladder(
        engine, f"{name}-ladder", "clank", 2, decision_ms=1000, bank_ms=30000, max_strikes=3
    )
    bot = register_bot(engine, name, "alice", game="clank")
    join_ladder(engine, ladder_id, bot.bot_id)
    for number, (command, state) in enumerate(states, start=1):
        version_id = add_bot_version(engine, bot.bot_id, f"v{number}", command)
        detail = {"reason": "game 1 of 2: forfeited: crashed: exit code 1"} if state == "failed" else None
        set_qualification(engine, version_id, state, detail)
    return bot.bot_id


def test_the_lobby_lets_in_a_remote_version_to_qualify_and_refuses_a_failed_one(engine: Engine) -> None:
    # a hosted version plays; a newer remote one waits to qualify: its games need this connection
    newer = _versions(engine, "switcher", ("python main.py", "passed"), ("remote", "pending"))
    assert remote_refusal(engine, newer, "switcher") == ""
    # ... but a remote version older than the hosted one that passed is not what the ladder plays
    older = _versions(engine, "moved-on", ("remote", "pending"), ("python main.py", "passed"))
    assert "is hosted" in remote_refusal(engine, older, "moved-on")
    # a failed remote version and nothing qualified: refused, with the reason and what to do
    failed = _versions(engine, "broken", ("remote", "failed"))
    refusal = remote_refusal(engine, failed, "broken")
    assert "remote version 'v1' failed qualification" in refusal
    assert "crashed: exit code 1" in refusal and "arena bot remote broken" in refusal
    # an older remote version that passed plays on while a newer one failed
    kept = _versions(engine, "kept", ("remote", "passed"), ("remote", "failed"))
    assert remote_refusal(engine, kept, "kept") == ""
