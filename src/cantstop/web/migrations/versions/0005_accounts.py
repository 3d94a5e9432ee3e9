"""Accounts, their sessions and passkeys, passkey challenges, failed sign-ins (no older table changes)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0005", "0004"
HASH, WHEN = sa.String(64), sa.DateTime  # a SHA-256 in hex; a time in UTC


def upgrade() -> None:
    key: dict[str, Any] = {"primary_key": True}
    needed: dict[str, Any] = {"nullable": False}
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True), sa.Column("name", sa.String(40), nullable=True),
        sa.Column("name_hash", HASH, unique=True, **needed), sa.Column("lookalike_hash", HASH, unique=True, **needed),
        sa.Column("password_hash", sa.String(200), nullable=True), sa.Column("user_handle", HASH, unique=True, **needed),
        sa.Column("created", WHEN, **needed), sa.Column("deleted", WHEN, nullable=True),
    )
    op.create_table(
        "account_sessions", sa.Column("token_hash", HASH, **key), sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), **needed),
        sa.Column("created", WHEN, **needed), sa.Column("seen", WHEN, **needed), sa.Column("address", sa.String(64), **needed),
    )
    op.create_index("ix_account_sessions_account_id", "account_sessions", ["account_id"])
    op.create_table(
        "passkeys", sa.Column("credential_id", sa.String(1400), **key), sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), **needed),
        sa.Column("public_key", sa.LargeBinary, **needed), sa.Column("sign_count", sa.Integer, **needed),
        sa.Column("created", WHEN, **needed),
    )
    op.create_index("ix_passkeys_account_id", "passkeys", ["account_id"])
    op.create_table(
        "passkey_challenges", sa.Column("handle_hash", HASH, **key), sa.Column("challenge", sa.String(128), **needed),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=True), sa.Column("expires", WHEN, **needed),
    )
    op.create_table(
        "sign_in_failures", sa.Column("key_hash", HASH, **key), sa.Column("failures", sa.Integer, **needed),
        sa.Column("last", WHEN, **needed), sa.Column("until", WHEN, **needed),
    )


def downgrade() -> None:
    for table in ("sign_in_failures", "passkey_challenges", "passkeys", "account_sessions", "accounts"):
        op.drop_table(table)
