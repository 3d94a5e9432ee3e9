"""Accounts follow and block one another and report chat lines and players; the moderators
silence, suspend or close an account, each with a reason, and every decision is logged.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0012", "0011"
ACCOUNT, WHEN, REASON = "accounts.id", sa.DateTime, sa.String(500)


def upgrade() -> None:
    for column, kind in (("silenced_why", REASON), ("silenced_until", WHEN), ("suspended_why", REASON), ("suspended_until", WHEN),
                         ("closed_why", REASON), ("closed", WHEN)):
        op.add_column("accounts", sa.Column(column, kind, nullable=True))
    op.create_table(
        "moderation_log", sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey(ACCOUNT), nullable=False), sa.Column("action", sa.String(16), nullable=False),
        sa.Column("reason", REASON, nullable=False), sa.Column("until", WHEN, nullable=True), sa.Column("created", WHEN, nullable=False),
    )
    op.create_index("ix_moderation_log_account_id", "moderation_log", ["account_id"])
    for table, first, second in (("follows", "follower_id", "followed_id"), ("blocks", "blocker_id", "blocked_id")):
        op.create_table(
            table, sa.Column(first, sa.Integer, sa.ForeignKey(ACCOUNT), primary_key=True),
            sa.Column(second, sa.Integer, sa.ForeignKey(ACCOUNT), primary_key=True), sa.Column("created", WHEN, nullable=False),
        )
        op.create_index(f"ix_{table}_{second}", table, [second])
    op.create_table(
        "reports", sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("reporter_id", sa.Integer, sa.ForeignKey(ACCOUNT), nullable=False),
        sa.Column("account_id", sa.Integer, sa.ForeignKey(ACCOUNT), nullable=True), sa.Column("name", sa.String(40), nullable=False),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=True),
        sa.Column("message_id", sa.Integer, sa.ForeignKey("chat_messages.id"), nullable=True),
        sa.Column("text", sa.String(1000), nullable=True), sa.Column("reason", REASON, nullable=False),
        sa.Column("created", WHEN, nullable=False), sa.Column("handled", WHEN, nullable=True), sa.Column("note", REASON, nullable=True),
        sa.UniqueConstraint("reporter_id", "message_id", name="uq_reports_reporter_message"),
    )
    for column in ("reporter_id", "account_id", "handled"):
        op.create_index(f"ix_reports_{column}", "reports", [column])


def downgrade() -> None:
    op.drop_table("reports")
    op.drop_table("blocks")
    op.drop_table("follows")
    op.drop_table("moderation_log")
    for column in ("closed", "closed_why", "suspended_until", "suspended_why", "silenced_until", "silenced_why"):
        op.drop_column("accounts", column)
