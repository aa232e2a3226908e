"""Engines, URLs and migrations."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory

from ladder.db import alembic_config, create_engine, database_url, downgrade, normalize_url, upgrade
from ladder.schema import metadata


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("postgresql://u:p@h/db", "postgresql+psycopg://u:p@h/db"),
        ("postgres://u@h:5433/db", "postgresql+psycopg://u@h:5433/db"),
        ("postgresql+psycopg://u@h/db", "postgresql+psycopg://u@h/db"),
        ("sqlite:///arena.db", "sqlite:///arena.db"),
    ],
)
def test_normalize_url(url: str, expected: str) -> None:
    assert normalize_url(url) == expected


def test_database_url_prefers_argument_then_env_then_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert database_url() == "sqlite:///arena.db"
    monkeypatch.setenv("DATABASE_URL", "postgresql://x@y/z")
    assert database_url() == "postgresql+psycopg://x@y/z"
    assert database_url("sqlite:///other.db") == "sqlite:///other.db"


def _tables(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        return set(sa.inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_migrations_round_trip_and_match_schema(db_url: str) -> None:
    downgrade(db_url)
    assert _tables(db_url) <= {"alembic_version"}
    upgrade(db_url)
    assert _tables(db_url) == {t.name for t in metadata.sorted_tables} | {"alembic_version"}
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            ctx = MigrationContext.configure(conn)
            assert ctx.get_current_revision() == "0016"
            # the migration creates exactly what ladder.schema declares
            assert compare_metadata(ctx, metadata) == []
    finally:
        engine.dispose()


def _revision_and_tables(url: str) -> tuple[str | None, set[str]]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            revision = MigrationContext.configure(conn).get_current_revision()
        return revision, set(sa.inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_upgrade_twice_is_a_no_op(db_url: str) -> None:
    upgrade(db_url)
    first = _revision_and_tables(db_url)
    assert first == ("0016", {t.name for t in metadata.sorted_tables} | {"alembic_version"})
    upgrade(db_url)
    assert _revision_and_tables(db_url) == first


def test_sqlite_engine_enforces_foreign_keys_and_uses_wal(tmp_path: object) -> None:
    url = f"sqlite:///{tmp_path}/pragmas.db"
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    finally:
        engine.dispose()


def test_is_outage_tells_connection_trouble_from_bad_statements() -> None:
    import psycopg
    from sqlalchemy import exc

    from ladder.db import is_outage

    refused = exc.OperationalError("SELECT 1", {}, Exception("connection refused"))
    assert is_outage(refused)
    assert is_outage(psycopg.OperationalError("server closed the connection"))
    dropped = exc.InterfaceError("SELECT 1", {}, Exception("closed"), connection_invalidated=True)
    assert is_outage(dropped)
    assert not is_outage(exc.InterfaceError("SELECT 1", {}, Exception("closed")))
    assert not is_outage(exc.IntegrityError("INSERT", {}, Exception("duplicate key")))
    assert not is_outage(exc.DataError("SELECT", {}, Exception("integer out of range")))
    assert not is_outage(ValueError("not a database error"))


def test_upgrade_takes_a_0002_database_forward_keeping_its_bots(db_url: str) -> None:
    """An existing database (at 0002, with a bot and a version) is migrated to 0003: legacy bots
    keep their free owner and no account, their versions count as qualified."""
    from datetime import UTC, datetime

    downgrade(db_url, "0002")
    engine = create_engine(db_url)
    now = datetime.now(UTC)
    try:
        with engine.begin() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO bots (name, owner, token_hash, created_at) VALUES ('old', 'alice', 'h', :t)"
                ),
                {"t": now},
            )
            bot_id = conn.execute(sa.text("SELECT id FROM bots")).scalar_one()
            conn.execute(
                sa.text(
                    "INSERT INTO bot_versions (bot_id, version, command, created_at) "
                    "VALUES (:b, '1', 'python bot.py', :t)"
                ),
                {"b": bot_id, "t": now},
            )
        upgrade(db_url)
        with engine.connect() as conn:
            bot = conn.execute(sa.text("SELECT owner, account_id, game FROM bots")).one()
            version = conn.execute(
                sa.text("SELECT qualification, unsafe_no_sandbox, archive FROM bot_versions")
            ).one()
            head = ScriptDirectory.from_config(alembic_config(db_url)).get_current_head()
            assert MigrationContext.configure(conn).get_current_revision() == head
    finally:
        engine.dispose()
    assert tuple(bot) == ("alice", None, None)
    assert version.qualification == "passed" and not version.unsafe_no_sandbox and version.archive is None


def test_a_process_logging_at_info_gets_the_migrations_not_alembics_plugin_lines(tmp_path: Path) -> None:
    # `arena beat` and `arena serve referee --db` log at INFO and then import the ladder's storage
    script = (
        "import logging, sys\n"
        "logging.basicConfig(level=logging.INFO)\n"
        "import ladder.db\n"
        "ladder.db.upgrade(sys.argv[1])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, f"sqlite:///{tmp_path}/p.db"],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "Running upgrade" in done.stderr  # what the migrations do is still logged
    assert "setup plugin" not in done.stderr, done.stderr
