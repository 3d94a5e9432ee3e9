"""Quick pairing: the queue of requests for a game, each from its asking to its end (paired,
cancelled or expired); an account waits once (the unique `waiting_account`, set only while
its request waits).

Revision ID: 0016
Revises: 0015
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0016", "0015"


def upgrade() -> None:
    op.create_table(
        "pairing_requests",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=True),
        sa.Column("waiting_account", sa.Integer, nullable=True, unique=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("variant", sa.String(200), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("clock", sa.Integer, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("rating", sa.Integer, nullable=False),
        sa.Column("asked", sa.DateTime, nullable=False),
        sa.Column("seen", sa.DateTime, nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("ended", sa.DateTime, nullable=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=True),
        sa.Column("seat", sa.Integer, nullable=True),
    )
    op.create_index("ix_pairing_requests_account_id", "pairing_requests", ["account_id"])
    op.create_index("ix_pairing_requests_state", "pairing_requests", ["state"])


def downgrade() -> None:
    op.drop_index("ix_pairing_requests_state", table_name="pairing_requests")
    op.drop_index("ix_pairing_requests_account_id", table_name="pairing_requests")
    op.drop_table("pairing_requests")
