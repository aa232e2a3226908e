"""A scratch PostgreSQL database for a benchmark: made at migration head, dropped afterwards.

The benches that measure the ladder on PostgreSQL (``bench.web``, ``bench.workers``,
``bench.pages``, ``bench.recording``) each seed a database of their own on the server their
admin URL names, so a run leaves nothing behind and two runs share nothing.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from psycopg import sql
from sqlalchemy.engine import make_url

from ladder.db import normalize_url, upgrade

__all__ = ["scratch_database"]


@contextmanager
def scratch_database(admin_url: str, prefix: str = "arena_bench") -> Iterator[str]:
    """A new database named `prefix` plus a random suffix on `admin_url`'s server, upgraded to
    the newest migration; yields its SQLAlchemy URL (psycopg 3). Dropped on the way out, the
    connections still open to it forced off, whether the bench ended or failed."""
    name = f"{prefix}_{secrets.token_hex(4)}"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        url = make_url(normalize_url(admin_url)).set(database=name).render_as_string(hide_password=False)
        upgrade(url)
        yield url
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
