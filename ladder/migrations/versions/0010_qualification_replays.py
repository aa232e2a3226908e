"""The replay of the qualification game that failed a version: qualification_replays.

One row per failed version (its game number, the candidate's seat, the replay gzip-compressed
and its SHA-256), written when qualification fails it; shown to the bot's owner (or an operator)
only, through ``GET /api/bots/{bot_id}/versions/{version_id}/qualification/replay`` and
``arena bot replay NAME --qualification VERSION``. New table: nothing existing changes.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from ladder.schema import UTCDateTime

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the table."""
    op.create_table(
        "qualification_replays",
        sa.Column(
            "version_id", sa.Integer(), sa.ForeignKey("bot_versions.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("game", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("version_id"),
    )


def downgrade() -> None:
    """Drop it."""
    op.drop_table("qualification_replays")
