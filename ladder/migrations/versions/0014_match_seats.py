"""Each match's seats as rows (``match_seats``), backfilled from ``matches.seats``.

"The matches a bot played" (its page, its win rates by seat and by opponent, the API's
``/bots/{id}/matches``) used to unpack the JSON ``seats`` list of every match of the ladder; a
keyed look-up on (version_id, match_id) costs the bot's own matches instead (issue 29). New
matches write their rows with the match (``ladder.match_queue.insert_match``); this fills them
for the matches already there. ``matches.seats`` stays: it is what the workers read.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-03
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | Sequence[str] | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: matches read and written per round trip while backfilling
BATCH = 5_000


def _seats(raw: Any) -> list[int]:
    return [int(v) for v in (json.loads(raw) if isinstance(raw, str) else raw)]


def backfill(conn: sa.Connection) -> int:
    """Write the seat rows of every match that has none; how many matches were filled.

    Keyset batches on the match id, so a long history is read a batch at a time."""
    table = sa.table("match_seats", sa.column("match_id"), sa.column("seat"), sa.column("version_id"))
    filled, last = 0, 0
    while True:
        rows = conn.execute(
            sa.text(
                "SELECT id, seats FROM matches WHERE id > :last AND NOT EXISTS "
                "(SELECT 1 FROM match_seats s WHERE s.match_id = matches.id) ORDER BY id LIMIT :n"
            ),
            {"last": last, "n": BATCH},
        ).all()
        if not rows:
            return filled
        conn.execute(
            sa.insert(table),
            [
                {"match_id": match_id, "seat": seat, "version_id": version}
                for match_id, raw in rows
                for seat, version in enumerate(_seats(raw))
            ],
        )
        filled += len(rows)
        last = int(rows[-1][0])


def upgrade() -> None:
    """Create the table and its index, then fill it from the matches already recorded."""
    op.create_table(
        "match_seats",
        sa.Column("match_id", sa.Integer(), sa.ForeignKey("matches.id", ondelete="CASCADE"), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("match_id", "seat"),
    )
    op.create_index("ix_match_seats_version_id_match_id", "match_seats", ["version_id", "match_id"])
    backfill(op.get_bind())


def downgrade() -> None:
    """Drop the table (``matches.seats`` still holds everything it held)."""
    op.drop_index("ix_match_seats_version_id_match_id", table_name="match_seats")
    op.drop_table("match_seats")
