"""Games that always end: when a player last had each game open, and an index on the time
each game last changed (the sweeper looks for games overdue by it).

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("games", sa.Column("seen", sa.DateTime(), nullable=True))
    op.create_index("ix_games_updated", "games", ["updated"])


def downgrade() -> None:
    op.drop_index("ix_games_updated", table_name="games")
    # In place: copying the table, as a batch would on SQLite, is refused while seats and
    # events refer to it (foreign keys are on); SQLite 3.35+ drops a plain column itself.
    op.drop_column("games", "seen")
