"""Chat kept: each game's messages and whether its spectators are muted, stored rather than
held in one process's memory. And whose move it is, filled in for the games under way
since before 0006 recorded it (they said "your turn" only after their next move).

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from cantstop.core.dice import SeededDice
from cantstop.core.record import Record
from cantstop.core.variant import preset
from cantstop.table import Policy, Table
from cantstop.web.db.moves import END, decode_move

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "chat_messages",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("spectator", sa.Boolean, nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=True),
        sa.Column("text", sa.String(200), nullable=False),
        sa.Column("created", sa.DateTime, nullable=False),
    )
    op.create_index("ix_chat_messages_game_id_id", "chat_messages", ["game_id", "id"])
    op.create_index("ix_chat_messages_account_id", "chat_messages", ["account_id"])
    op.add_column("games", sa.Column("spectators_muted", sa.Boolean, nullable=False, server_default=sa.false()))
    fill_to_move(op.get_bind())


def fill_to_move(conn: sa.Connection) -> None:
    """Whose move it is in each game under way that does not say: its stored moves replayed
    as the server does (`Table.restore`; a stored roll carries its dice, so nothing is
    rolled). A game that does not replay is left as it was: its next move says."""
    games = sa.table("games", sa.column("id"), sa.column("variant"), sa.column("first"), sa.column("status"), sa.column("to_move"))
    seats = sa.table("seats", sa.column("game_id"), sa.column("seat"))
    events = sa.table("events", sa.column("game_id"), sa.column("seq"), sa.column("kind"), sa.column("data"))
    waiting = conn.execute(
        sa.select(games.c.id, games.c.variant, games.c.first)
        .where(games.c.status == "playing", games.c.to_move.is_(None), games.c.first.is_not(None))
    ).all()
    for game_id, variant, first in waiting:
        count = conn.scalar(sa.select(sa.func.count()).select_from(seats).where(seats.c.game_id == game_id)) or 0
        moves = conn.execute(
            sa.select(events.c.kind, events.c.data).where(events.c.game_id == game_id, events.c.kind != END).order_by(events.c.seq)
        ).all()
        try:
            table = Table(Record(preset(variant), [f"Seat {seat + 1}" for seat in range(count)], first, []), SeededDice(0),
                          policy=Policy.FALLBACK)
            for kind, data in moves:
                table.restore(decode_move(kind, data))
        except ValueError:  # a CantStopError is one, and so is a row that does not decode
            continue
        if not table.over:
            conn.execute(games.update().where(games.c.id == game_id).values(to_move=table.seat))


def downgrade() -> None:
    # In place, as 0007's: SQLite 3.35+ drops a plain column itself.
    op.drop_column("games", "spectators_muted")
    op.drop_index("ix_chat_messages_account_id", table_name="chat_messages")
    op.drop_index("ix_chat_messages_game_id_id", table_name="chat_messages")
    op.drop_table("chat_messages")
