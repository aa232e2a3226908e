"""Each ladder's rating policy: k_established, k_provisional, provisional_games, initial_rating,
prior_games and confidence on ``ladders`` (``ladder.rating_policy.RatingPolicy``).

Every column has a server default equal to the constant ladders were rated with before, so an
existing ladder keeps rating exactly as it did; ``arena ladder create`` sets other values.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: (column, type, server default): the values of ladder.rating_policy.DEFAULT_POLICY
_COLUMNS: tuple[tuple[str, sa.types.TypeEngine[Any], str], ...] = (
    ("k_established", sa.Float(), "20"),
    ("k_provisional", sa.Float(), "40"),
    ("provisional_games", sa.Integer(), "20"),
    ("initial_rating", sa.Float(), "1500"),
    ("prior_games", sa.Float(), "1"),
    ("confidence", sa.Float(), "0.95"),
)


def upgrade() -> None:
    """Add the columns, existing rows taking the defaults."""
    for name, kind, default in _COLUMNS:
        op.add_column("ladders", sa.Column(name, kind, nullable=False, server_default=default))


def downgrade() -> None:
    """Drop them."""
    # not batch mode: a batch copy of ladders turns its column CHECK on kind into a table one,
    # and migration 0002's downgrade could no longer drop kind (SQLite drops a column natively)
    for name, _, _ in reversed(_COLUMNS):
        op.drop_column("ladders", name)
