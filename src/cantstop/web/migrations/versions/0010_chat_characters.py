"""A chat message counts the characters people see (grapheme clusters), 200 of them, so the
column holds more code points than that: an accent written apart from its letter or a
family emoji is one character made of several.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0010", "0009"


def upgrade() -> None:
    with op.batch_alter_table("chat_messages") as batch:  # SQLite changes a column by copying its table
        batch.alter_column("text", type_=sa.String(1000), existing_type=sa.String(200), existing_nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("chat_messages") as batch:
        batch.alter_column("text", type_=sa.String(200), existing_type=sa.String(1000), existing_nullable=False)
