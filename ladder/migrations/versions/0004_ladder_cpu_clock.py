"""Ladders may rule hosted bots on CPU time: ladders.cpu_decision_ms and ladders.cpu_bank_ms.

Both 0 (the CPU clock off) for every existing ladder. With ``cpu_decision_ms`` > 0 a hosted
bot's decisions are charged the CPU time its sandbox's cgroup measured, against that allowance
and the CPU bank (``referee/server/PROTOCOL.md``, "CPU time"; ``workers/SANDBOX.md``).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the two CPU clock columns (0: off)."""
    # plain ADD COLUMN on both databases (SQLite allows it with a default; no table rebuild,
    # which would cascade-delete through the foreign keys)
    op.add_column("ladders", sa.Column("cpu_decision_ms", sa.Integer(), nullable=False, server_default="0"))
    op.add_column("ladders", sa.Column("cpu_bank_ms", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    """Drop them."""
    op.drop_column("ladders", "cpu_bank_ms")
    op.drop_column("ladders", "cpu_decision_ms")
