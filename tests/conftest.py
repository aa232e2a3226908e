"""Fixtures shared by every suite: databases at migration head on SQLite and PostgreSQL."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from ladder.db import create_engine, upgrade
from tests.databases import empty_postgres, fresh_postgres_database

# The search bot (builtin:ismcts, a reference bot on every ladder) searches ARENA_SEARCH_MS a
# decision in rated and qualification games alike; 250 ms would make every test match against it
# last minutes. Set before anything reads the settings; the processes the tests start inherit it.
os.environ.setdefault("ARENA_SEARCH_MS", "10")


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A fresh PostgreSQL database at migration head, for the whole session (see databases.py)."""
    yield from fresh_postgres_database()


@pytest.fixture
def pg_url(postgres_url: str) -> str:
    """The session's PostgreSQL database, emptied."""
    empty_postgres(postgres_url)
    return postgres_url


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """A migrated SQLite file database."""
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    upgrade(url)
    return url


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest) -> str:
    """An empty database at migration head: SQLite file, then PostgreSQL."""
    return str(request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url"))


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    """An engine on `db_url`."""
    eng = create_engine(db_url)
    try:
        yield eng
    finally:
        eng.dispose()
