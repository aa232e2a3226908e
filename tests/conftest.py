"""Fixtures shared by every suite."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.databases import fresh_postgres_database


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A fresh PostgreSQL database at migration head, for the whole session (see databases.py)."""
    yield from fresh_postgres_database()
