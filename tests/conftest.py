"""Fixtures shared by every suite: databases at migration head on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from ladder.db import create_engine, upgrade
from tests.databases import empty_postgres, fresh_postgres_database


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
