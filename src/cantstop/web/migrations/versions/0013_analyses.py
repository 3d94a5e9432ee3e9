"""Game analysis: each game's analysis (claimed by the process computing it, then its JSON),
its players' figures (accuracy, luck, loss), the costly decisions that practice asks again,
and each account's practice answers.

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0013", "0012"
GAME = "games.id"


def upgrade() -> None:
    op.create_table(
        "analyses",
        sa.Column("game_id", sa.String(32), sa.ForeignKey(GAME), primary_key=True),
        sa.Column("format", sa.Integer, nullable=False),
        sa.Column("data", sa.Text, nullable=True),
        sa.Column("claimed", sa.DateTime, nullable=False),
        sa.Column("done", sa.DateTime, nullable=True),
    )
    op.create_table(
        "analysis_seats",
        sa.Column("game_id", sa.String(32), sa.ForeignKey(GAME), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("units", sa.String(8), nullable=False),
        sa.Column("accuracy", sa.Float, nullable=True),
        sa.Column("luck", sa.Float, nullable=False),
        sa.Column("loss", sa.Float, nullable=False),
        sa.Column("decisions", sa.Integer, nullable=False),
    )
    op.create_table(
        "practice_positions",
        sa.Column("game_id", sa.String(32), sa.ForeignKey(GAME), primary_key=True),
        sa.Column("ply", sa.Integer, primary_key=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("units", sa.String(8), nullable=False),
        sa.Column("position", sa.Text, nullable=False),
        sa.Column("options", sa.Text, nullable=False),
        sa.Column("chosen", sa.String(32), nullable=False),
        sa.Column("loss", sa.Float, nullable=False),
    )
    op.create_table(
        "practice_answers",
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("game_id", sa.String(32), primary_key=True),
        sa.Column("ply", sa.Integer, primary_key=True),
        sa.Column("answer", sa.String(32), nullable=False),
        sa.Column("correct", sa.Boolean, nullable=False),
        sa.Column("tries", sa.Integer, nullable=False),
        sa.Column("at", sa.DateTime, nullable=False),
    )


def downgrade() -> None:
    for table in ("practice_answers", "practice_positions", "analysis_seats", "analyses"):
        op.drop_table(table)
