"""Games that always end: when a player last had each game open, and an index on the time
each game last changed (the sweeper looks for games overdue by it).

Revision ID: 0007
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("games", sa.Column("seen", sa.DateTime(), nullable=True))
    op.create_index("ix_games_updated", "games", ["updated"])


def downgrade() -> None:
    op.drop_index("ix_games_updated", table_name="games")
    with op.batch_alter_table("games") as batch:  # SQLite drops a column by copying the table
        batch.drop_column("seen")
