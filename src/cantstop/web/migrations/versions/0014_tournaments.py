"""Swiss tournaments: the tournaments, their entries, each round paired once (its primary key
is the round, so a second process pairing the same round fails on it), and each player's
seat and result in each round.

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0014", "0013"


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("variant", sa.String(200), nullable=False),
        sa.Column("seats", sa.Integer, nullable=False),
        sa.Column("clock", sa.Integer, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("rounds", sa.Integer, nullable=False),
        sa.Column("capacity", sa.Integer, nullable=False),
        sa.Column("starts", sa.DateTime, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("creator_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("created", sa.DateTime, nullable=False),
        sa.Column("ended", sa.DateTime, nullable=True),
    )
    op.create_index("ix_tournaments_starts", "tournaments", ["starts"])
    op.create_index("ix_tournaments_status", "tournaments", ["status"])
    op.create_index("ix_tournaments_creator_id", "tournaments", ["creator_id"])
    op.create_table(
        "tournament_entries",
        sa.Column("tournament_id", sa.String(32), sa.ForeignKey("tournaments.id"), primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("joined", sa.DateTime, nullable=False),
        sa.Column("seed", sa.Integer, nullable=True),
        sa.Column("withdrawn", sa.DateTime, nullable=True),
        sa.Column("why", sa.String(200), nullable=True),
    )
    op.create_index("ix_tournament_entries_account_id", "tournament_entries", ["account_id"])
    op.create_table(
        "tournament_rounds",
        sa.Column("tournament_id", sa.String(32), sa.ForeignKey("tournaments.id"), primary_key=True),
        sa.Column("round", sa.Integer, primary_key=True),
        sa.Column("paired", sa.DateTime, nullable=False),
    )
    op.create_table(
        "tournament_places",
        sa.Column("tournament_id", sa.String(32), sa.ForeignKey("tournaments.id"), primary_key=True),
        sa.Column("round", sa.Integer, primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("board", sa.Integer, nullable=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=True),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("place", sa.Integer, nullable=True),
        sa.Column("players", sa.Integer, nullable=True),
        sa.Column("won", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("forfeited", sa.Boolean, nullable=False, server_default=sa.false()),
    )
    op.create_index("ix_tournament_places_game_id", "tournament_places", ["game_id"])


def downgrade() -> None:
    op.drop_index("ix_tournament_places_game_id", table_name="tournament_places")
    op.drop_table("tournament_places")
    op.drop_table("tournament_rounds")
    op.drop_index("ix_tournament_entries_account_id", table_name="tournament_entries")
    op.drop_table("tournament_entries")
    op.drop_index("ix_tournaments_creator_id", table_name="tournaments")
    op.drop_index("ix_tournaments_status", table_name="tournaments")
    op.drop_index("ix_tournaments_starts", table_name="tournaments")
    op.drop_table("tournaments")
