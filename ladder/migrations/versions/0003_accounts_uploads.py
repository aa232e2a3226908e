"""Accounts and API keys, account-owned bots, uploaded bot versions, qualification, bot logs.

Adds the ``accounts`` and ``api_keys`` tables; ``bots.account_id`` and ``bots.game`` (null for
bots registered before: they keep their free ``owner`` string); on ``bot_versions`` the uploaded
archive (``archive``, ``archive_sha256``, ``archive_files``, ``archive_bytes``), the
qualification state (``qualification``, every existing version counts as ``passed``, and
``qualification_detail``) and ``unsafe_no_sandbox`` (false); and the ``bot_logs`` table (a hosted
bot's captured output per match seat).

SQLite cannot add a constraint to an existing table without rebuilding it (and rebuilding
``bots`` with foreign keys on would cascade-delete its versions), so there the foreign key of
``bots.account_id`` and the CHECK on ``qualification`` are written inline in ``ADD COLUMN``,
which SQLite allows.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_QUALIFICATION_CHECK = "qualification IN ('pending', 'running', 'passed', 'failed')"


def _utc() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    """Add accounts, keys, account-owned bots, uploads, qualification and bot logs."""
    sqlite = op.get_context().dialect.name == "sqlite"
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("is_operator", sa.Boolean(), nullable=False),
        sa.Column("created_at", _utc(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_accounts")),
        sa.UniqueConstraint("name", name=op.f("uq_accounts_name")),
    )
    op.create_table(
        "api_keys",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False),
        sa.Column("prefix", sa.String(16), nullable=False),
        sa.Column("scopes", sa.String(255), nullable=False),
        sa.Column("rate_per_minute", sa.Integer(), nullable=False),
        sa.Column("created_at", _utc(), nullable=False),
        sa.Column("last_used_at", _utc(), nullable=True),
        sa.Column("revoked_at", _utc(), nullable=True),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_api_keys_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_keys")),
        sa.UniqueConstraint("key_hash", name=op.f("uq_api_keys_key_hash")),
    )
    op.create_index(op.f("ix_api_keys_account_id"), "api_keys", ["account_id"])

    if sqlite:
        op.execute(
            "ALTER TABLE bots ADD COLUMN account_id INTEGER "
            "CONSTRAINT fk_bots_account_id_accounts REFERENCES accounts (id)"
        )
        op.execute(
            "ALTER TABLE bot_versions ADD COLUMN qualification VARCHAR(16) DEFAULT 'passed' NOT NULL "
            f"CONSTRAINT ck_bot_versions_qualification CHECK ({_QUALIFICATION_CHECK})"
        )
    else:
        op.add_column("bots", sa.Column("account_id", sa.Integer(), nullable=True))
        op.create_foreign_key(
            op.f("fk_bots_account_id_accounts"),
            "bots",
            "accounts",
            ["account_id"],
            ["id"],
        )
        op.add_column(
            "bot_versions",
            sa.Column("qualification", sa.String(16), server_default="passed", nullable=False),
        )
        op.create_check_constraint(
            op.f("ck_bot_versions_qualification"), "bot_versions", _QUALIFICATION_CHECK
        )
    op.create_index(op.f("ix_bots_account_id"), "bots", ["account_id"])
    op.add_column("bots", sa.Column("game", sa.String(32), nullable=True))

    op.add_column("bot_versions", sa.Column("archive", sa.LargeBinary(), nullable=True))
    op.add_column("bot_versions", sa.Column("archive_sha256", sa.String(64), nullable=True))
    op.add_column("bot_versions", sa.Column("archive_files", sa.Integer(), nullable=True))
    op.add_column("bot_versions", sa.Column("archive_bytes", sa.Integer(), nullable=True))
    op.add_column("bot_versions", sa.Column("qualification_detail", sa.Text(), nullable=True))
    op.add_column(
        "bot_versions",
        sa.Column("unsafe_no_sandbox", sa.Boolean(), server_default=sa.false(), nullable=False),
    )

    op.create_table(
        "bot_logs",
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("bytes", sa.Integer(), nullable=False),
        sa.Column("truncated", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
            name=op.f("fk_bot_logs_match_id_matches"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["bot_id"], ["bots.id"], name=op.f("fk_bot_logs_bot_id_bots"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("match_id", "seat", name=op.f("pk_bot_logs")),
    )
    op.create_index(op.f("ix_bot_logs_bot_id"), "bot_logs", ["bot_id"])


def downgrade() -> None:
    """Drop them again (account-owned bots keep their owner's name in ``bots.owner``)."""
    sqlite = op.get_context().dialect.name == "sqlite"
    op.drop_index(op.f("ix_bot_logs_bot_id"), "bot_logs")
    op.drop_table("bot_logs")
    for column in (
        "unsafe_no_sandbox",
        "qualification_detail",
        "archive_bytes",
        "archive_files",
        "archive_sha256",
        "archive",
    ):
        op.drop_column("bot_versions", column)
    if not sqlite:
        op.drop_constraint(op.f("ck_bot_versions_qualification"), "bot_versions", type_="check")
    op.drop_column("bot_versions", "qualification")
    op.drop_column("bots", "game")
    op.drop_index(op.f("ix_bots_account_id"), "bots")
    if not sqlite:
        op.drop_constraint(op.f("fk_bots_account_id_accounts"), "bots", type_="foreignkey")
    op.drop_column("bots", "account_id")
    op.drop_index(op.f("ix_api_keys_account_id"), "api_keys")
    op.drop_table("api_keys")
    op.drop_table("accounts")
