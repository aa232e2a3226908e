"""Divisions: a ladder may have divisions (leagues), each guarded by a boss bot
(``ladder.divisions``; ladder/RATINGS.md, "Divisions").

``ladder_divisions`` holds a ladder's divisions, bottom (position 0) to top, each with its boss
(a reference bot on the ladder); ``ladder_entries.division`` is the position of the division a
bot plays in. Existing ladders have no divisions and every entry is at 0, so nothing changes for
them.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | Sequence[str] | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add ladder_entries.division (0 everywhere) and the ladder_divisions table."""
    op.add_column("ladder_entries", sa.Column("division", sa.Integer(), nullable=False, server_default="0"))
    op.create_table(
        "ladder_divisions",
        sa.Column("ladder_id", sa.Integer(), sa.ForeignKey("ladders.id", ondelete="CASCADE"), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("boss_bot_id", sa.Integer(), sa.ForeignKey("bots.id", ondelete="CASCADE"), nullable=False),
        sa.PrimaryKeyConstraint("ladder_id", "position"),
        sa.UniqueConstraint("ladder_id", "name"),
    )


def downgrade() -> None:
    """Drop them."""
    op.drop_table("ladder_divisions")
    op.drop_column("ladder_entries", "division")
