"""A fresh PostgreSQL database for a test session, shared by the ladder and worker suites.

PostgreSQL is required, never skipped: the database ``arena_test_<random>`` is created on the
server named by ``$ARENA_TEST_POSTGRES`` (default ``postgresql://postgres@127.0.0.1:5432/postgres``;
`make test` starts a local one if none runs) and dropped at the end of the session. If the server
cannot be reached the tests fail with a message saying so.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator

import psycopg
import pytest
import sqlalchemy as sa
from psycopg import sql
from sqlalchemy.engine import make_url

from ladder.db import create_engine, normalize_url, upgrade
from ladder.schema import metadata

DEFAULT_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"


def _admin_connect(admin_url: str) -> psycopg.Connection:
    try:
        return psycopg.connect(admin_url, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        pytest.fail(
            f"PostgreSQL is not reachable at {admin_url} ({exc}). These tests need a real "
            "PostgreSQL: start it (make services), or point $ARENA_TEST_POSTGRES at one.",
            pytrace=False,
        )


def fresh_postgres_database() -> Iterator[str]:
    """Create a database at migration head, yield its URL, drop it afterwards."""
    admin_url = os.environ.get("ARENA_TEST_POSTGRES", DEFAULT_ADMIN_URL)
    name = f"arena_test_{secrets.token_hex(6)}"
    with _admin_connect(admin_url) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    url = make_url(normalize_url(admin_url)).set(database=name).render_as_string(hide_password=False)
    try:
        upgrade(url)
        yield url
    finally:
        with _admin_connect(admin_url) as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def empty_postgres(url: str) -> None:
    """Remove every row (and reset ids) of the ladder tables."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            names = ", ".join(t.name for t in metadata.sorted_tables)
            conn.execute(sa.text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))
    finally:
        engine.dispose()
