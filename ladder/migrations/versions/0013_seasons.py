"""Seasons: a closed rating period (``ladder_periods``) says what closed it and how the ratings
were carried into the next one (ladder/RATINGS.md, "Seasons").

``closed_by`` is "upgrade" (``arena ladder upgrade``: the engine version moved, ratings carried
as they were) or "season" (``arena ladder season close``: ratings shrunk toward ``mean`` by
``carry``: rating' = mean + carry x (rating - mean)). Rows closed before this migration were all
upgrades with the ratings carried as they were (carry 1).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | Sequence[str] | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the columns; existing rows are upgrades that carried the ratings as they were."""
    op.add_column(
        "ladder_periods", sa.Column("closed_by", sa.String(16), nullable=False, server_default="upgrade")
    )
    op.add_column("ladder_periods", sa.Column("carry", sa.Float(), nullable=False, server_default="1"))
    op.add_column("ladder_periods", sa.Column("mean", sa.Float()))


def downgrade() -> None:
    """Drop them."""
    for name in ("mean", "carry", "closed_by"):
        op.drop_column("ladder_periods", name)
