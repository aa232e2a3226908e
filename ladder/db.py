"""Database engines and migrations for the ladder.

``DATABASE_URL`` picks the database; without it the ladder uses the embedded default
``sqlite:///arena.db``. PostgreSQL URLs may be written the usual way (``postgresql://`` or
``postgres://``); they are rewritten to the psycopg 3 driver (``postgresql+psycopg://``).

SQLite engines made here enforce foreign keys, use WAL (readers never wait for the writer) and
wait up to :data:`SQLITE_TIMEOUT_S` for a lock. Transactions begin explicitly, so
:func:`write_transaction` can take the write lock up front with ``BEGIN IMMEDIATE``: a
read-then-write transaction then never fails half-way because another writer got in first.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from importlib.resources import files
from typing import Any, Final

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine, event
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import make_url

from referee.settings import current

__all__ = [
    "DEFAULT_DATABASE_URL",
    "alembic_config",
    "create_engine",
    "database_url",
    "downgrade",
    "is_outage",
    "normalize_url",
    "upgrade",
    "write_transaction",
]

DEFAULT_DATABASE_URL: Final = "sqlite:///arena.db"
#: seconds a SQLite connection waits for another writer before giving up
SQLITE_TIMEOUT_S: Final = 30.0

# execution option read by the SQLite "begin" hook
_SQLITE_BEGIN: Final = "arena_sqlite_begin"


def normalize_url(url: str) -> str:
    """Rewrite ``postgres://`` and ``postgresql://`` URLs to use psycopg 3; others unchanged."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def database_url(url: str | None = None) -> str:
    """The URL to use: `url`, else ``$DATABASE_URL``, else the embedded SQLite default."""
    return normalize_url(url or current().database_url or DEFAULT_DATABASE_URL)


def is_outage(exc: BaseException) -> bool:
    """True if `exc` says the database could not be reached or dropped the connection.

    That is SQLAlchemy's ``OperationalError`` (connection refused, server restarting or shut
    down by an administrator, SQLite "database is locked"), any ``DBAPIError`` that invalidated
    its connection (a disconnect), and psycopg's own ``OperationalError`` when psycopg is used
    directly. Such an error is worth retrying later, unlike a constraint violation or a bad
    value (``IntegrityError``, ``DataError``, ``ProgrammingError``), which would fail again.
    """
    if isinstance(exc, sa_exc.OperationalError):
        return True
    if isinstance(exc, sa_exc.DBAPIError) and exc.connection_invalidated:
        return True
    try:
        import psycopg
    except ImportError:  # pragma: no cover - psycopg is a dependency
        return False
    return isinstance(exc, psycopg.OperationalError)


def create_engine(url: str | None = None, **kwargs: Any) -> Engine:
    """An engine for `url` (see :func:`database_url`), set up for the ladder.

    Extra keyword arguments go to :func:`sqlalchemy.create_engine`.
    """
    resolved = make_url(database_url(url))
    if resolved.get_backend_name() != "sqlite":
        kwargs.setdefault("pool_pre_ping", True)
        return sa.create_engine(resolved, **kwargs)
    connect_args = dict(kwargs.pop("connect_args", {}))
    connect_args.setdefault("timeout", SQLITE_TIMEOUT_S)
    engine = sa.create_engine(resolved, connect_args=connect_args, **kwargs)
    _configure_sqlite(engine)
    return engine


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Take transaction control away from the sqlite3 module, so BEGIN is ours to emit.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("PRAGMA foreign_keys = ON")
            cursor.execute("PRAGMA journal_mode = WAL")
            # WAL + NORMAL stays consistent after a crash and avoids an fsync per commit
            cursor.execute("PRAGMA synchronous = NORMAL")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        mode = conn.get_execution_options().get(_SQLITE_BEGIN, "DEFERRED")
        conn.exec_driver_sql(f"BEGIN {mode}")


@contextmanager
def write_transaction(engine: Engine) -> Iterator[Connection]:
    """A connection in a transaction that will write; committed on success, else rolled back.

    On SQLite the transaction starts with ``BEGIN IMMEDIATE`` (writers queue up front, so a
    read-modify-write cannot lose a race). On PostgreSQL it is a plain transaction: lock the
    rows you change with ``SELECT ... FOR UPDATE``.
    """
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            conn.execution_options(**{_SQLITE_BEGIN: "IMMEDIATE"})
        with conn.begin():
            yield conn


def alembic_config(url: str | None = None) -> Config:
    """An Alembic config for the ladder's migrations, pointed at `url` (see database_url)."""
    config = Config()
    config.set_main_option("script_location", str(files("ladder") / "migrations"))
    # Passed as an attribute, not a main option, so '%' in passwords needs no escaping.
    config.attributes["database_url"] = database_url(url)
    return config


def upgrade(url: str | None = None, revision: str = "head") -> None:
    """Run ``alembic upgrade head`` (or up to `revision`) on the database at `url`."""
    command.upgrade(alembic_config(url), revision)


def downgrade(url: str | None = None, revision: str = "base") -> None:
    """Run ``alembic downgrade base`` (or down to `revision`) on the database at `url`."""
    command.downgrade(alembic_config(url), revision)
