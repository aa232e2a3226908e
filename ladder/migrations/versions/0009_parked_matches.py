"""Matches may be ``parked``: a match whose platform faults (expired leases) reached the budget.

Before, a match whose lease expired twice was ``failed``; now platform faults are retried up to
``$ARENA_PLATFORM_FAULTS`` and the last one parks the match for an operator
(``ladder.match_queue``). Only the CHECK on ``matches.status`` widens; no row changes (a match
failed before this, "lease expired 2 times", stays as it was).

Widening the CHECK: PostgreSQL drops and re-creates it; SQLite rewrites the CHECK's text in the
stored schema (``writable_schema``, as 0006 does for ``ladders.kind``: rebuilding ``matches``
would cascade-delete through the foreign keys on it).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_OLD = "status IN ('queued', 'running', 'done', 'failed')"
_NEW = "status IN ('queued', 'running', 'done', 'failed', 'parked')"


def _set_status_check(old: str, new: str) -> None:
    if op.get_context().dialect.name == "sqlite":
        bind = op.get_bind()
        version = bind.exec_driver_sql("PRAGMA schema_version").scalar_one()
        bind.exec_driver_sql("PRAGMA writable_schema = ON")
        bind.execute(
            sa.text(
                "UPDATE sqlite_master SET sql = replace(sql, :old, :new) "
                "WHERE type = 'table' AND name = 'matches'"
            ),
            {"old": old, "new": new},
        )
        bind.exec_driver_sql(f"PRAGMA schema_version = {int(version) + 1}")
        bind.exec_driver_sql("PRAGMA writable_schema = OFF")
    else:
        op.drop_constraint(op.f("ck_matches_status"), "matches", type_="check")
        op.create_check_constraint(op.f("ck_matches_status"), "matches", new)


def upgrade() -> None:
    """Allow the status 'parked'."""
    _set_status_check(_OLD, _NEW)


def downgrade() -> None:
    """Parked matches become failed (with their reason), then the CHECK narrows again."""
    op.execute("UPDATE matches SET status = 'failed' WHERE status = 'parked'")
    _set_status_check(_NEW, _OLD)
