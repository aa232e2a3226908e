"""Stored competitions (format, field, seeds, games) and draws on the ladder standings.

``competitions`` holds a competition (game, player count, format and options, seed, status) and
the ladder its games are played on; ``competition_entrants`` its field (each entrant's bot
version); ``competition_games`` each scheduled game of a duplicate set, tied to its match, unique
per (round, table, set, rotation) so a restarted runner cannot schedule a game twice.
``ladder_entries.draws`` counts shared first places (0 for the past: those were counted as wins).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from ladder.schema import UTCDateTime

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the competition tables; add ladder_entries.draws."""
    op.add_column("ladder_entries", sa.Column("draws", sa.Integer(), nullable=False, server_default="0"))
    op.create_table(
        "competitions",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("format", sa.String(16), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column(
            "status",
            sa.String(16),
            sa.CheckConstraint("status IN ('created', 'running', 'done', 'failed')", name="status"),
            nullable=False,
        ),
        sa.Column(
            "ladder_id", sa.Integer(), sa.ForeignKey("ladders.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("started_at", UTCDateTime()),
        sa.Column("finished_at", UTCDateTime()),
        sa.Column("error", sa.Text()),
        sa.UniqueConstraint("ladder_id"),
    )
    op.create_table(
        "competition_entrants",
        sa.Column(
            "competition_id",
            sa.Integer(),
            sa.ForeignKey("competitions.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("slot", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("spec", sa.Text(), nullable=False),
        sa.Column("bot_version_id", sa.Integer(), sa.ForeignKey("bot_versions.id"), nullable=False),
        sa.PrimaryKeyConstraint("competition_id", "slot"),
    )
    op.create_table(
        "competition_games",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "competition_id",
            sa.Integer(),
            sa.ForeignKey("competitions.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("table_no", sa.Integer(), nullable=False),
        sa.Column("set_no", sa.Integer(), nullable=False),
        sa.Column("rotation", sa.Integer(), nullable=False),
        sa.Column("scenario", sa.Integer()),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column(
            "match_id", sa.Integer(), sa.ForeignKey("matches.id", ondelete="CASCADE"), nullable=False
        ),
        sa.UniqueConstraint("match_id"),
        sa.UniqueConstraint("competition_id", "round", "table_no", "set_no", "rotation"),
    )


def downgrade() -> None:
    """Drop them."""
    op.drop_table("competition_games")
    op.drop_table("competition_entrants")
    op.drop_table("competitions")
    op.drop_column("ladder_entries", "draws")
