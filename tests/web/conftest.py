"""Fixtures of the web tests: a seeded ladder database and a client of the app over it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from ladder.api import create_app

from .seeding import Seeded, seed


@pytest.fixture
def seeded(engine: Engine) -> Seeded:
    """The seeded database (SQLite, then PostgreSQL: `engine` is parametrized)."""
    return seed(engine)


@pytest.fixture
def client(engine: Engine, seeded: Seeded) -> Iterator[TestClient]:
    """A client of the whole app (API and pages) over the seeded database."""
    with TestClient(create_app(engine)) as c:
        yield c
