"""A bot version may be suspended from matchmaking: bot_versions.suspended_at and .suspension.

Both null for every existing version (none is suspended). The matchmaker sets them when a
version keeps forfeiting its rated matches (``ladder.suspension``: 3 of its last 5); a suspended
version is never seated again, its bot plays its newest good version instead, and its owner
reads the reason (``arena bot status``, ``GET /api/bots/{id}``).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from ladder.schema import UTCDateTime

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the two nullable columns."""
    # plain ADD COLUMN on both databases (no table rebuild, which would cascade-delete through
    # the foreign keys on bot_versions)
    op.add_column("bot_versions", sa.Column("suspended_at", UTCDateTime(), nullable=True))
    op.add_column("bot_versions", sa.Column("suspension", sa.Text(), nullable=True))


def downgrade() -> None:
    """Drop them."""
    op.drop_column("bot_versions", "suspension")
    op.drop_column("bot_versions", "suspended_at")
