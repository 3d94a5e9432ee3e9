"""Games, seats, events and players.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("variant", sa.String(200), nullable=False),
        sa.Column("first", sa.Integer, nullable=True),
        sa.Column("tags", sa.JSON, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("winner", sa.Integer, nullable=True),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("created", sa.DateTime, nullable=False),
        sa.Column("updated", sa.DateTime, nullable=False),
    )
    op.create_index("ix_games_status", "games", ["status"])
    op.create_table(
        "seats",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("bot", sa.String(64), nullable=True),
        sa.Column("name", sa.String(40), nullable=True),
        sa.Column("token_hash", sa.String(64), nullable=True),
    )
    op.create_table(
        "events",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("data", sa.String(64), nullable=False),
        sa.Column("created", sa.DateTime, nullable=False),
        sa.UniqueConstraint("game_id", "seq", name="uq_events_game_seq"),
    )
    op.create_index("ix_events_game_id", "events", ["game_id"])
    op.create_table(
        "players",
        sa.Column("name", sa.String(40), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("players")
    op.drop_table("events")
    op.drop_table("seats")
    op.drop_table("games")
