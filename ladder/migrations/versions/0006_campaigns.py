"""Campaigns (Clank! Legacy): stored campaign state, its games, and campaign ladders.

``campaigns`` holds a campaign (seats, seed, the campaign state as versioned JSON with its
digest, the index of the next game, status) and its own ladder (its games are matches there);
``campaign_games`` each game, unique per (campaign, index), with the state digests before and
after and the scores; ``campaign_ratings`` the rating change a finished campaign gave each bot
on a campaign ladder, once per (campaign, bot). ``ladders.kind`` gains ``'campaign'``.

Widening the CHECK on ``ladders.kind``: PostgreSQL drops and re-creates it. SQLite cannot
alter a constraint without rebuilding the table (and dropping ``ladders`` with foreign keys on
would cascade-delete its rows), so there the CHECK's text in the stored schema is rewritten
(``writable_schema``, the procedure SQLite documents for loosening a CHECK: no existing row can
violate the wider one) and the schema version bumped so every connection re-reads it.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from ladder.schema import UTCDateTime

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_OLD_KINDS = "kind IN ('ffa', 'coop')"
_NEW_KINDS = "kind IN ('ffa', 'coop', 'campaign')"


def _set_kind_check(old: str, new: str) -> None:
    if op.get_context().dialect.name == "sqlite":
        bind = op.get_bind()
        version = bind.exec_driver_sql("PRAGMA schema_version").scalar_one()
        bind.exec_driver_sql("PRAGMA writable_schema = ON")
        bind.execute(
            sa.text(
                "UPDATE sqlite_master SET sql = replace(sql, :old, :new) "
                "WHERE type = 'table' AND name = 'ladders'"
            ),
            {"old": old, "new": new},
        )
        bind.exec_driver_sql(f"PRAGMA schema_version = {int(version) + 1}")
        bind.exec_driver_sql("PRAGMA writable_schema = OFF")
    else:
        op.drop_constraint(op.f("ck_ladders_kind"), "ladders", type_="check")
        op.create_check_constraint(op.f("ck_ladders_kind"), "ladders", new)


def upgrade() -> None:
    """Create the campaign tables; allow ladders of kind 'campaign'."""
    _set_kind_check(_OLD_KINDS, _NEW_KINDS)
    op.create_table(
        "campaigns",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("state", sa.JSON(), nullable=False),
        sa.Column("state_digest", sa.String(64), nullable=False),
        sa.Column("state_version", sa.Integer(), nullable=False),
        sa.Column("next_index", sa.Integer(), nullable=False),
        sa.Column(
            "status",
            sa.String(16),
            sa.CheckConstraint("status IN ('running', 'finished', 'failed')", name="status"),
            nullable=False,
        ),
        sa.Column("ladder_id", sa.Integer(), sa.ForeignKey("ladders.id", ondelete="CASCADE"), nullable=False),
        sa.Column("rating_ladder_id", sa.Integer(), sa.ForeignKey("ladders.id")),
        sa.Column("rated_at", UTCDateTime()),
        sa.Column("error", sa.Text()),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
        sa.UniqueConstraint("ladder_id"),
    )
    op.create_index(op.f("ix_campaigns_rating_ladder_id"), "campaigns", ["rating_ladder_id"])
    op.create_table(
        "campaign_games",
        sa.Column(
            "campaign_id", sa.Integer(), sa.ForeignKey("campaigns.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("game_index", sa.Integer(), nullable=False),
        sa.Column("match_id", sa.Integer(), sa.ForeignKey("matches.id", ondelete="CASCADE"), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("state_before", sa.String(64), nullable=False),
        sa.Column("state_after", sa.String(64)),
        sa.Column("scores", sa.JSON()),
        sa.Column("outcomes", sa.JSON()),
        sa.PrimaryKeyConstraint("campaign_id", "game_index"),
        sa.UniqueConstraint("match_id"),
    )
    op.create_table(
        "campaign_ratings",
        sa.Column(
            "campaign_id", sa.Integer(), sa.ForeignKey("campaigns.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("bot_id", sa.Integer(), sa.ForeignKey("bots.id", ondelete="CASCADE"), nullable=False),
        sa.Column("ladder_id", sa.Integer(), sa.ForeignKey("ladders.id", ondelete="CASCADE"), nullable=False),
        sa.Column("before", sa.Float(), nullable=False),
        sa.Column("after", sa.Float(), nullable=False),
        sa.Column("delta", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("campaign_id", "bot_id"),
    )
    op.create_index(op.f("ix_campaign_ratings_ladder_id"), "campaign_ratings", ["ladder_id"])


def downgrade() -> None:
    """Drop them; refused while a campaign ladder exists (its kind would break the CHECK)."""
    left = op.get_bind().execute(sa.text("SELECT count(*) FROM ladders WHERE kind = 'campaign'")).scalar_one()
    if left:
        raise RuntimeError(f"{left} campaign ladders exist: delete them before downgrading below 0006")
    op.drop_index(op.f("ix_campaign_ratings_ladder_id"), table_name="campaign_ratings")
    op.drop_table("campaign_ratings")
    op.drop_table("campaign_games")
    op.drop_index(op.f("ix_campaigns_rating_ladder_id"), table_name="campaigns")
    op.drop_table("campaigns")
    _set_kind_check(_NEW_KINDS, _OLD_KINDS)
