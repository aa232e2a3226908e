"""Browser sessions of account owners: ``web_sessions`` (ladder/web/owner.py, ``/signin``).

One row per signed-in browser: the SHA-256 of its opaque session id (the cookie holds the id,
never an API key), the account, the API key it signed in with (revoking that key ends the
session: the row goes with it), and when it was made and when it expires. New table: nothing
existing changes.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from ladder.schema import UTCDateTime

revision: str = "0016"
down_revision: str | Sequence[str] | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the table."""
    op.create_table(
        "web_sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("key_id", sa.Integer(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("expires_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_web_sessions_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["key_id"], ["api_keys.id"], name=op.f("fk_web_sessions_key_id_api_keys"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_web_sessions")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_web_sessions_token_hash")),
    )
    op.create_index(op.f("ix_web_sessions_account_id"), "web_sessions", ["account_id"])
    op.create_index(op.f("ix_web_sessions_key_id"), "web_sessions", ["key_id"])


def downgrade() -> None:
    """Drop it."""
    op.drop_index(op.f("ix_web_sessions_key_id"), "web_sessions")
    op.drop_index(op.f("ix_web_sessions_account_id"), "web_sessions")
    op.drop_table("web_sessions")
