"""Rated play: games rated or friendly (and whose move it is), seats of accounts, ratings of accounts, bots and legacy
names (today's name-keyed ratings, kept apart until attached), seat links, webhooks."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0006", "0005"
ACCOUNT, NAME, NUMBER = "accounts.id", sa.String(40), sa.Float


def upgrade() -> None:
    op.add_column("games", sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()))
    op.add_column("games", sa.Column("to_move", sa.Integer, nullable=True))  # for games under way: at their next move, or 0008
    with op.batch_alter_table("seats") as seats:  # SQLite adds a foreign key by copying the table
        seats.add_column(sa.Column("account_id", sa.Integer, sa.ForeignKey(ACCOUNT, name="fk_seats_account_id"), nullable=True))
        seats.create_index("ix_seats_account_id", ["account_id"])
    op.create_table(
        "ratings", sa.Column("id", sa.Integer, primary_key=True, autoincrement=True), sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("account_id", sa.Integer, sa.ForeignKey(ACCOUNT), nullable=True, unique=True), sa.Column("name", NAME, nullable=True),
        sa.Column("mu", NUMBER, nullable=False), sa.Column("sigma", NUMBER, nullable=False),
        sa.Column("games", sa.Integer, nullable=False), sa.Column("wins", sa.Integer, nullable=False),
        sa.UniqueConstraint("kind", "name", name="uq_ratings_kind_name"),
    )
    # Every name-keyed rating stays, as a bot's or as an unclaimed legacy entry: never an account's by its name.
    op.execute(
        "INSERT INTO ratings (kind, name, mu, sigma, games, wins) SELECT CASE WHEN name LIKE 'bot:%' THEN 'bot'"
        " ELSE 'legacy' END, name, mu, sigma, games, wins FROM players"
    )
    op.drop_table("players")
    with op.batch_alter_table("rating_history") as history:
        history.add_column(sa.Column("rating_id", sa.Integer, sa.ForeignKey("ratings.id", name="fk_rating_history_rating_id"), nullable=True))
        for column in ("seat", "weight", "before_mu", "before_sigma"):
            history.add_column(sa.Column(column, sa.Integer if column == "seat" else NUMBER, nullable=True))
        history.create_index("ix_rating_history_rating_id", ["rating_id"])
    op.execute("UPDATE rating_history SET rating_id = (SELECT id FROM ratings WHERE ratings.name = rating_history.name)")
    op.add_column("accounts", sa.Column("webhook_url", sa.String(2000), nullable=True))
    op.add_column("accounts", sa.Column("webhook_secret", sa.String(64), nullable=True))
    op.create_table(
        "seat_links", sa.Column("code_hash", sa.String(64), primary_key=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=False), sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False), sa.Column("expires", sa.DateTime, nullable=False),
    )


def _drop(table: str, columns: tuple[str, ...], index: str | None = None) -> None:
    """Drop the columns (and an index on them). SQLite drops a column that has a foreign key
    by copying the table (which only a table nothing refers to allows); a plain one, in place."""
    if index is None:
        for column in columns:
            op.drop_column(table, column)
        return
    with op.batch_alter_table(table) as batch:
        batch.drop_index(index)
        for column in columns:
            batch.drop_column(column)


def downgrade() -> None:
    """Back to name-keyed ratings: a person's under the account's name (a legacy entry of the
    same name, if any, wins: 0005 kept one rating per name)."""
    op.drop_table("seat_links")
    _drop("accounts", ("webhook_secret", "webhook_url"))
    _drop("rating_history", ("before_sigma", "before_mu", "weight", "seat", "rating_id"), "ix_rating_history_rating_id")
    op.create_table(
        "players", sa.Column("name", NAME, primary_key=True), sa.Column("mu", NUMBER, nullable=False),
        sa.Column("sigma", NUMBER, nullable=False), sa.Column("games", sa.Integer, nullable=False), sa.Column("wins", sa.Integer, nullable=False),
    )
    op.execute("INSERT INTO players (name, mu, sigma, games, wins) SELECT name, mu, sigma, games, wins FROM ratings WHERE name IS NOT NULL")
    op.execute(
        "INSERT INTO players (name, mu, sigma, games, wins) SELECT a.name, r.mu, r.sigma, r.games, r.wins FROM ratings r"
        " JOIN accounts a ON a.id = r.account_id WHERE a.name IS NOT NULL AND a.name NOT IN (SELECT name FROM players)"
    )
    op.drop_table("ratings")
    _drop("seats", ("account_id",), "ix_seats_account_id")
    _drop("games", ("to_move", "rated"))
