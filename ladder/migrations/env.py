"""Alembic environment for the ladder.

The database URL comes from ``config.attributes["database_url"]`` (set by
:func:`ladder.db.alembic_config`), else ``$DATABASE_URL``, else ``sqlite:///arena.db``.
"""

from __future__ import annotations

from alembic import context

from ladder.db import create_engine, database_url
from ladder.schema import metadata

config = context.config


def _url() -> str:
    passed = config.attributes.get("database_url")
    return database_url(passed if isinstance(passed, str) else None)


def run_migrations_offline() -> None:
    """Emit the migration SQL without connecting (``alembic upgrade --sql``)."""
    context.configure(url=_url(), target_metadata=metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Connect and migrate, in one transaction."""
    connection = config.attributes.get("connection")
    if connection is not None:
        # a caller (e.g. a test) handed us its own connection
        context.configure(connection=connection, target_metadata=metadata)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = create_engine(_url())
    try:
        with engine.connect() as conn:
            context.configure(connection=conn, target_metadata=metadata)
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
