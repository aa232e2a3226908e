"""Fixtures for the ladder tests: a migrated database on SQLite and on PostgreSQL.

PostgreSQL is required, not optional: a fresh database ``arena_test_<random>`` is created on
the server named by ``$ARENA_TEST_POSTGRES`` (default ``postgresql://postgres@127.0.0.1:5432/
postgres``) for the test session and dropped at its end. If the server cannot be reached the
tests fail with a message saying so.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from dataclasses import dataclass

import psycopg
import pytest
import sqlalchemy as sa
from psycopg import sql
from sqlalchemy import Engine
from sqlalchemy.engine import make_url

from ladder.bots import add_bot_version, register_bot
from ladder.db import create_engine, normalize_url, upgrade
from ladder.ladders import create_ladder, join_ladder
from ladder.schema import metadata

DEFAULT_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"


def _admin_connect(admin_url: str) -> psycopg.Connection:
    try:
        return psycopg.connect(admin_url, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        pytest.fail(
            f"PostgreSQL is not reachable at {admin_url} ({exc}). The ladder tests need a "
            "real PostgreSQL: start it, or point $ARENA_TEST_POSTGRES at one.",
            pytrace=False,
        )


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A fresh PostgreSQL database at migration head, for the whole session."""
    admin_url = os.environ.get("ARENA_TEST_POSTGRES", DEFAULT_ADMIN_URL)
    name = f"arena_test_{secrets.token_hex(6)}"
    with _admin_connect(admin_url) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    url = make_url(normalize_url(admin_url)).set(database=name)
    rendered = url.render_as_string(hide_password=False)
    try:
        upgrade(rendered)
        yield rendered
    finally:
        with _admin_connect(admin_url) as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


def _empty_postgres(url: str) -> None:
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            names = ", ".join(t.name for t in metadata.sorted_tables)
            conn.execute(sa.text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))
    finally:
        engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The URL of an empty database at migration head (SQLite file, or PostgreSQL)."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'arena.db'}"
        upgrade(url)
        return url
    url = request.getfixturevalue("postgres_url")
    _empty_postgres(url)
    return str(url)


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    """An engine on `db_url`, disposed after the test."""
    eng = create_engine(db_url)
    try:
        yield eng
    finally:
        eng.dispose()


@dataclass(frozen=True)
class Roster:
    """A ladder with bots on it, each with one version."""

    ladder_id: int
    bot_ids: tuple[int, ...]
    version_ids: tuple[int, ...]
    tokens: tuple[str, ...]


def make_roster(engine: Engine, players: int = 2, bots: int = 4, name: str = "clank-2p") -> Roster:
    """Create a ladder for `players` players with `bots` bots on it."""
    ladder_id = create_ladder(
        engine, name, "clank", players, decision_ms=1000, bank_ms=30000, max_strikes=3
    )
    bot_ids, version_ids, tokens = [], [], []
    for i in range(bots):
        reg = register_bot(engine, f"bot{i}", f"owner{i}")
        bot_ids.append(reg.bot_id)
        tokens.append(reg.token)
        version_ids.append(add_bot_version(engine, reg.bot_id, "1.0", f"python bot{i}.py"))
        join_ladder(engine, ladder_id, reg.bot_id)
    return Roster(ladder_id, tuple(bot_ids), tuple(version_ids), tuple(tokens))


def make_coop_roster(engine: Engine, players: int = 2, bots: int = 4, name: str = "alien-2p") -> Roster:
    """Create a cooperative (team) Alien ladder for `players` with `bots` bots on it."""
    ladder_id = create_ladder(
        engine, name, "alien", players, decision_ms=1000, bank_ms=30000, max_strikes=3, kind="coop"
    )
    bot_ids, version_ids, tokens = [], [], []
    for i in range(bots):
        reg = register_bot(engine, f"crew{i}", f"owner{i}")
        bot_ids.append(reg.bot_id)
        tokens.append(reg.token)
        version_ids.append(add_bot_version(engine, reg.bot_id, "1.0", f"python crew{i}.py"))
        join_ladder(engine, ladder_id, reg.bot_id)
    return Roster(ladder_id, tuple(bot_ids), tuple(version_ids), tuple(tokens))


@pytest.fixture
def roster(engine: Engine) -> Roster:
    """A 2-player ladder with four bots (bot0..bot3), one version each."""
    return make_roster(engine)
