"""bench.scratch: the PostgreSQL database the ladder benches (web, workers, pages, recording)
seed is new, at migration head, and gone afterwards, also when the bench fails."""

from __future__ import annotations

import os

import psycopg
import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url

from bench.scratch import scratch_database
from ladder.db import create_engine
from ladder.schema import metadata
from tests.databases import DEFAULT_ADMIN_URL

ADMIN = os.environ.get("ARENA_TEST_POSTGRES", DEFAULT_ADMIN_URL)


def _exists(name: str) -> bool:
    with psycopg.connect(ADMIN, autocommit=True) as admin:
        return admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is not None


def test_the_scratch_database_is_at_head_and_dropped_after_a_run_or_a_failure() -> None:
    names = []
    with scratch_database(ADMIN, "arena_bench_scratchtest") as url:
        name = make_url(url).database
        assert name is not None and name.startswith("arena_bench_scratchtest_")
        names.append(name)
        engine = create_engine(url)
        try:
            tables = set(sa.inspect(engine).get_table_names())
        finally:
            engine.dispose()
        assert set(metadata.tables) <= tables  # upgraded: every table of the schema is there
        assert _exists(name)
    assert not _exists(names[0])

    left_open = []
    with pytest.raises(RuntimeError, match="the bench failed"), scratch_database(ADMIN) as url:
        names.append(make_url(url).database or "")
        # a connection the bench left open is forced off by the drop
        libpq_url = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
        left_open.append(psycopg.connect(libpq_url))
        raise RuntimeError("the bench failed")
    left_open[0].close()
    assert names[1] != names[0] and not _exists(names[1])
