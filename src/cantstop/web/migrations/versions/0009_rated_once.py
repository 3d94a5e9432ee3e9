"""A game's rating is written once: one history point per game and seat, enforced by a
unique index (which also finds a game's points without reading the whole history: the
end-of-game summary and the sweep that rates a game whose process stopped before rating it).

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

from alembic import op

revision, down_revision = "0009", "0008"


def upgrade() -> None:
    op.create_index("uq_rating_history_game_seat", "rating_history", ["game_id", "seat"], unique=True)


def downgrade() -> None:
    op.drop_index("uq_rating_history_game_seat", "rating_history")
