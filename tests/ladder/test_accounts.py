"""Accounts and API keys, on SQLite and PostgreSQL: hashed at rest, scoped, revocable."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa
from sqlalchemy import Engine

from ladder.accounts import (
    account_info,
    authenticate_key,
    create_account,
    create_key,
    hash_key,
    parse_scopes,
    revoke_key,
)
from ladder.errors import Conflict, Forbidden, InvalidInput, NotFound
from ladder.schema import accounts, api_keys, metadata


def _everything_stored(engine: Engine) -> str:
    """Every value of every row of every table, as one string."""
    parts = []
    with engine.connect() as conn:
        for table in metadata.sorted_tables:
            for row in conn.execute(sa.select(table)):
                parts.extend(repr(v) for v in row)
    return "\n".join(parts)


def test_keys_are_shown_once_and_only_their_hash_is_stored(engine: Engine) -> None:
    alice = create_account(engine, "alice")
    second = create_key(engine, alice.account_id)
    assert alice.api_key.startswith("arena_") and len(alice.api_key) >= 6 + 43
    assert alice.api_key != second.api_key
    stored = _everything_stored(engine)
    for key in (alice.api_key, second.api_key):
        assert key not in stored
        assert key[12:] not in stored  # not even the secret part past the shown prefix
        assert hash_key(key) in stored
    with engine.connect() as conn:
        prefixes = list(conn.execute(sa.select(api_keys.c.prefix).order_by(api_keys.c.id)).scalars())
    assert prefixes == [alice.api_key[:12], second.api_key[:12]]


def test_authenticate_and_revoke(engine: Engine) -> None:
    alice = create_account(engine, "alice")
    who = authenticate_key(engine, alice.api_key)
    assert who is not None
    assert (who.account_id, who.account_name, who.is_operator, who.scopes) == (
        alice.account_id, "alice", False, frozenset({"bots"})
    )
    for wrong in ("", alice.api_key + "x", alice.api_key[:-1], "arena_" + "A" * 43, "x" * 10_000):
        assert authenticate_key(engine, wrong) is None
    bob = create_account(engine, "bob")
    with pytest.raises(NotFound):
        revoke_key(engine, bob.account_id, alice.key_id)  # not bob's key
    assert authenticate_key(engine, alice.api_key) is not None
    revoke_key(engine, alice.account_id, alice.key_id)
    assert authenticate_key(engine, alice.api_key) is None
    with pytest.raises(NotFound):
        revoke_key(engine, alice.account_id, alice.key_id)  # already revoked
    assert account_info(engine, alice.account_id)["keys"] == []


def test_last_used_is_noted_at_most_once_a_minute(engine: Engine) -> None:
    alice = create_account(engine, "alice")
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    authenticate_key(engine, alice.api_key, now=t0)
    authenticate_key(engine, alice.api_key, now=t0 + timedelta(seconds=30))
    [key] = account_info(engine, alice.account_id)["keys"]
    assert key["last_used_at"] == t0.isoformat()
    authenticate_key(engine, alice.api_key, now=t0 + timedelta(seconds=61))
    [key] = account_info(engine, alice.account_id)["keys"]
    assert key["last_used_at"] == (t0 + timedelta(seconds=61)).isoformat()


def test_scopes_and_the_operator_role(engine: Engine) -> None:
    root = create_account(engine, "root", is_operator=True)
    who = authenticate_key(engine, root.api_key)
    assert who is not None and who.scopes == {"bots", "operator"} and who.is_operator
    alice = create_account(engine, "alice")
    with pytest.raises(Forbidden):
        create_key(engine, alice.account_id, "operator")
    with pytest.raises(InvalidInput):
        create_key(engine, alice.account_id, "admin")
    with pytest.raises(InvalidInput):
        create_key(engine, alice.account_id, "")
    with pytest.raises(NotFound):
        create_key(engine, 9999)
    assert parse_scopes("operator bots bots", is_operator=True) == "bots operator"
    # an operator made an ordinary account again: its old keys lose the scope at once
    op_key = create_key(engine, root.account_id, "operator")
    with engine.begin() as conn:
        conn.execute(sa.update(accounts).values(is_operator=False))
    demoted = authenticate_key(engine, op_key.api_key)
    assert demoted is not None and demoted.scopes == frozenset()


def test_account_names(engine: Engine) -> None:
    create_account(engine, "alice")
    with pytest.raises(Conflict):
        create_account(engine, "alice")
    for bad in ("", "a b", "-x", "x" * 65, "nul\x00", "<b>"):
        with pytest.raises(InvalidInput):
            create_account(engine, bad)
    with engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(accounts)).scalar_one() == 1


def test_arena_account_create_prints_the_key_once_on_stdout(db_url: str, engine: Engine) -> None:
    """The operator's command, straight into the database (the first operator has no key yet)."""
    done = subprocess.run(
        [sys.executable, "-m", "referee.cli", "account", "create", "root", "--operator", "--db", db_url],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    key = done.stdout.strip()
    assert key.startswith("arena_") and "\n" not in key
    assert "operator account root" in done.stderr
    who = authenticate_key(engine, key)
    assert who is not None and who.is_operator and who.has("operator")
    again = subprocess.run(
        [sys.executable, "-m", "referee.cli", "account", "create", "root", "--db", db_url],
        capture_output=True, text=True, timeout=120,
    )
    assert again.returncode == 1 and "already exists" in again.stderr and again.stdout == ""
