"""Challenges: one account asks another to a game of two; each row is open until accepted
(with the game it made), declined, withdrawn or expired.

Revision ID: 0015
Revises: 0014
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0015", "0014"


def upgrade() -> None:
    op.create_table(
        "challenges",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("challenger_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("challenged_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("variant", sa.String(200), nullable=False),
        sa.Column("clock", sa.Integer, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("seats", sa.String(8), nullable=False),
        sa.Column("created", sa.DateTime, nullable=False),
        sa.Column("expires", sa.DateTime, nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("answered", sa.DateTime, nullable=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=True),
    )
    for column in ("challenger_id", "challenged_id", "expires", "state"):
        op.create_index(f"ix_challenges_{column}", "challenges", [column])


def downgrade() -> None:
    for column in ("state", "expires", "challenged_id", "challenger_id"):
        op.drop_index(f"ix_challenges_{column}", table_name="challenges")
    op.drop_table("challenges")
