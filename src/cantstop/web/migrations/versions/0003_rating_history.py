"""Each player's rating after each rated game (the profile's plot), and seats found by name.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("created", sa.DateTime, nullable=False),
    )
    op.create_index("ix_rating_history_name", "rating_history", ["name"])
    op.create_index("ix_seats_name", "seats", ["name"])  # a profile's games


def downgrade() -> None:
    op.drop_index("ix_seats_name", "seats")
    op.drop_table("rating_history")
