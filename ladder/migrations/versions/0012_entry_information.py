"""Each ladder entry's accumulated Fisher information (``ladder_entries.information``), backfilled.

The standings' rating deviation used to walk every recorded match of the ladder on every view;
recording now adds each game's information to the bot's row (``ladder/RATINGS.md``, "Ladder
standings") and the standings read one number per bot. This fills the column from the history
already recorded, the way recording would have, at the ratings each game was played at:

* free-for-all: every head-to-head pair of seats held by two different bots, weight 1/(N-1), at
  the bots' ``rating_history.before`` of that match;
* cooperative: one game against the scenario, at the bot's and the scenario's ``before``
  (``scenario_rating_history``);
* campaign: each rated campaign as one game of its bots, pairs weighted 1/(players-1), at their
  ``campaign_ratings.before``.

The math is written out here rather than imported (``ladder.skill``) so the migration keeps
meaning what it meant when the code moves on; ``tests/ladder/test_information.py`` checks it
against the audit's recomputation.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-03
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | Sequence[str] | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _info(rating: float, opponent: float, weight: float) -> float:
    e = 1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0))
    return float(weight * e * (1.0 - e))


def _seats(raw: Any) -> list[int]:
    return [int(v) for v in (json.loads(raw) if isinstance(raw, str) else raw)]


def backfill(conn: sa.Connection) -> None:
    """Set every entry's information from the recorded history (replaces what is there)."""
    kinds: dict[int, str] = dict(conn.execute(sa.text("SELECT id, kind FROM ladders")).all())
    bot_of: dict[int, int] = dict(conn.execute(sa.text("SELECT id, bot_id FROM bot_versions")).all())
    total: defaultdict[tuple[int, int], float] = defaultdict(float)
    # bot's rating before each (match, bot) it was rated in
    before: dict[tuple[int, int], float] = {}
    ladder_of: dict[int, int] = {}
    for match_id, bot_id, ladder_id, value in conn.execute(
        sa.text('SELECT match_id, bot_id, ladder_id, "before" FROM rating_history')
    ):
        before[(match_id, bot_id)] = float(value)
        ladder_of[match_id] = ladder_id
    scenario_before: dict[int, float] = dict(
        conn.execute(sa.text('SELECT match_id, "before" FROM scenario_rating_history')).all()
    )
    rated = sorted(ladder_of)
    for start in range(0, len(rated), 5000):
        chunk = rated[start : start + 5000]
        for match_id, raw in conn.execute(
            sa.text("SELECT id, seats FROM matches WHERE id IN :ids").bindparams(
                sa.bindparam("ids", expanding=True)
            ),
            {"ids": chunk},
        ):
            ladder_id = ladder_of[match_id]
            seat_bots = [bot_of[v] for v in _seats(raw)]
            if kinds.get(ladder_id) == "coop":
                scenario = scenario_before.get(match_id)
                if scenario is None:
                    continue
                for b in set(seat_bots):
                    total[(ladder_id, b)] += _info(before[(match_id, b)], float(scenario), 1.0)
                continue
            weight = 1.0 / (len(seat_bots) - 1)
            for i, a in enumerate(seat_bots):
                for j, b in enumerate(seat_bots):
                    if i != j and a != b:
                        total[(ladder_id, a)] += _info(before[(match_id, a)], before[(match_id, b)], weight)
    campaign_rows: defaultdict[int, list[tuple[int, int, float, int]]] = defaultdict(list)
    for campaign_id, bot_id, ladder_id, value, players in conn.execute(
        sa.text(
            'SELECT r.campaign_id, r.bot_id, r.ladder_id, r."before", c.players '
            "FROM campaign_ratings r JOIN campaigns c ON c.id = r.campaign_id"
        )
    ):
        campaign_rows[campaign_id].append((bot_id, ladder_id, float(value), int(players)))
    for rows in campaign_rows.values():
        for a, ladder_id, rating, players in rows:
            for b, _, opponent, _ in rows:
                if a != b:
                    total[(ladder_id, a)] += _info(rating, opponent, 1.0 / (players - 1))
    if total:
        conn.execute(
            sa.text(
                "UPDATE ladder_entries SET information = :info WHERE ladder_id = :ladder AND bot_id = :bot"
            ),
            [{"info": info, "ladder": ladder, "bot": bot} for (ladder, bot), info in sorted(total.items())],
        )


def upgrade() -> None:
    """Add the column (0 for a bot with no games) and fill it from the history."""
    op.add_column(
        "ladder_entries", sa.Column("information", sa.Float(), nullable=False, server_default="0")
    )
    backfill(op.get_bind())


def downgrade() -> None:
    """Drop it (the history it was computed from stays)."""
    op.drop_column("ladder_entries", "information")
