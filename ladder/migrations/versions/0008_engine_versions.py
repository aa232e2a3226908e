"""Engine versions: each ladder plays one (``ladders.engine_version``), each match records the
one it is played at (``matches.engine_version``, set when a worker claims it), and moving a
ladder to another version closes its rating period (``ladder_periods``: the closed periods with
their final standings). ladder/RATINGS.md, "Engine versions".

Existing ladders get the version of their game current in the build that runs this migration
(their matches were played at whatever the build of their day had; those replays carry their
own version). Existing matches keep a null version: their replays' headers name it.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from ladder.schema import UTCDateTime

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the version columns (existing ladders: their game's current version) and periods."""
    from referee.games import game_names, game_spec

    # a server default, so SQLite adds the NOT NULL column without rebuilding the table (which,
    # with foreign keys on, would cascade-delete every ladder's rows)
    op.add_column(
        "ladders", sa.Column("engine_version", sa.String(32), nullable=False, server_default="")
    )
    op.add_column("matches", sa.Column("engine_version", sa.String(32)))
    ladders = sa.table("ladders", sa.column("game", sa.String), sa.column("engine_version", sa.String))
    for game in game_names():
        version = game_spec(game).current_version()
        op.execute(ladders.update().where(ladders.c.game == game).values(engine_version=version))
    op.create_table(
        "ladder_periods",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "ladder_id", sa.Integer(), sa.ForeignKey("ladders.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("engine_version", sa.String(32), nullable=False),
        sa.Column("started_at", UTCDateTime(), nullable=False),
        sa.Column("ended_at", UTCDateTime(), nullable=False),
        sa.Column("standings", sa.JSON(), nullable=False),
        sa.Column("last_rating_id", sa.Integer(), nullable=False),
    )
    op.create_index(op.f("ix_ladder_periods_ladder_id"), "ladder_periods", ["ladder_id"])


def downgrade() -> None:
    """Drop the periods and the version columns."""
    op.drop_index(op.f("ix_ladder_periods_ladder_id"), table_name="ladder_periods")
    op.drop_table("ladder_periods")
    op.drop_column("matches", "engine_version")
    op.drop_column("ladders", "engine_version")
