"""Cooperative ladders: ladders.kind, scenarios and their rating history, match configs.

Adds ``ladders.kind`` ('ffa' for every existing ladder), ``matches.config`` (the game config;
null means the game's default), ``results.team_won``, and the ``scenarios`` and
``scenario_rating_history`` tables.

SQLite cannot add a constraint to an existing table without rebuilding it (and rebuilding
``ladders`` with foreign keys on would cascade-delete its rows), so there the CHECK on ``kind``
is written inline in ``ADD COLUMN``, which SQLite does allow.

Revision ID: 0002
Revises: 0001
Create Date: 2025-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_KIND_CHECK = "kind IN ('ffa', 'coop')"


def _utc() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    """Add cooperative ladders, scenarios and their ratings."""
    if op.get_context().dialect.name == "sqlite":
        op.execute(
            "ALTER TABLE ladders ADD COLUMN kind VARCHAR(8) DEFAULT 'ffa' NOT NULL "
            f"CONSTRAINT ck_ladders_kind CHECK ({_KIND_CHECK})"
        )
    else:
        op.add_column(
            "ladders", sa.Column("kind", sa.String(8), server_default="ffa", nullable=False)
        )
        op.create_check_constraint(op.f("ck_ladders_kind"), "ladders", _KIND_CHECK)
    op.add_column("matches", sa.Column("config", sa.JSON(), nullable=True))
    op.add_column("results", sa.Column("team_won", sa.Boolean(), nullable=True))
    op.create_table(
        "scenarios",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("ladder_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(255), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("created_at", _utc(), nullable=False),
        sa.Column("updated_at", _utc(), nullable=False),
        sa.ForeignKeyConstraint(
            ["ladder_id"],
            ["ladders.id"],
            name=op.f("fk_scenarios_ladder_id_ladders"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_scenarios")),
        sa.UniqueConstraint("ladder_id", "key", name=op.f("uq_scenarios_ladder_id_key")),
    )
    op.create_table(
        "scenario_rating_history",
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("scenario_id", sa.Integer(), nullable=False),
        sa.Column("before", sa.Float(), nullable=False),
        sa.Column("after", sa.Float(), nullable=False),
        sa.Column("delta", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
            name=op.f("fk_scenario_rating_history_match_id_matches"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["scenario_id"],
            ["scenarios.id"],
            name=op.f("fk_scenario_rating_history_scenario_id_scenarios"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("match_id", name=op.f("pk_scenario_rating_history")),
    )
    op.create_index(
        op.f("ix_scenario_rating_history_scenario_id"), "scenario_rating_history", ["scenario_id"]
    )


def downgrade() -> None:
    """Drop them again (cooperative ladders become free-for-all ladders)."""
    op.drop_index(op.f("ix_scenario_rating_history_scenario_id"), "scenario_rating_history")
    op.drop_table("scenario_rating_history")
    op.drop_table("scenarios")
    op.drop_column("results", "team_won")
    op.drop_column("matches", "config")
    if op.get_context().dialect.name != "sqlite":
        op.drop_constraint(op.f("ck_ladders_kind"), "ladders", type_="check")
    op.drop_column("ladders", "kind")
