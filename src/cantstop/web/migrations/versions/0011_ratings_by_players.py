"""Ratings by number of players, and the trusted opponents that end a provisional rating.

Games of 2, 3 and 4 players are rated apart from now on: each entry gets the number of
players of its games. Ratings are not computed again: an entry whose rated games had
several numbers of players becomes the entry of the number most of them had (the fewest
players on a tie), its other games staying counted in it. Each entry's distinct trusted
opponents (bots, and accounts no longer provisional when they met) are found by walking
the rating history in order, and each point of it learns whether the rating was still
provisional after its game.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0011", "0010"
# The rule of `players.scale` when this was written: a migration does what it did then.
PROVISIONAL_GAMES, TRUSTED_OPPONENTS = 10, 5
CONVENTION = {"uq": "uq_%(table_name)s_%(column_0_name)s"}  # names SQLite's unnamed unique constraints, to drop them


def _account_unique(bind: sa.Connection) -> str:
    """The name of the unique constraint on ratings.account_id (PostgreSQL named it; SQLite did not)."""
    for found in sa.inspect(bind).get_unique_constraints("ratings"):
        if found["column_names"] == ["account_id"] and found["name"]:
            return str(found["name"])
    return "uq_ratings_account_id"


@contextmanager
def _ratings_rebuilt(bind: sa.Connection) -> Iterator[None]:
    """SQLite changes a table's constraints by building it again and dropping the old one,
    which the rating history's foreign key forbids while it points there (the migrations run
    in one transaction, where foreign keys cannot be turned off): the history lets go of its
    entries meanwhile and takes them back after. PostgreSQL changes the constraints in place."""
    if bind.dialect.name != "sqlite":
        yield
        return
    links = [{"p": point, "r": rating} for point, rating in bind.execute(
        sa.text("SELECT id, rating_id FROM rating_history WHERE rating_id IS NOT NULL"))]
    bind.execute(sa.text("UPDATE rating_history SET rating_id = NULL"))
    yield
    if links:
        bind.execute(sa.text("UPDATE rating_history SET rating_id = :r WHERE id = :p"), links)


def upgrade() -> None:
    bind = op.get_bind()
    account_unique = _account_unique(bind)
    with _ratings_rebuilt(bind), op.batch_alter_table("ratings", naming_convention=CONVENTION) as ratings:
        ratings.add_column(sa.Column("players", sa.Integer, nullable=False, server_default="2"))
        ratings.add_column(sa.Column("opponents", sa.Integer, nullable=False, server_default="0"))
        ratings.drop_constraint("uq_ratings_kind_name", type_="unique")
        ratings.drop_constraint(account_unique, type_="unique")
        ratings.create_unique_constraint("uq_ratings_kind_name_players", ["kind", "name", "players"])
        ratings.create_unique_constraint("uq_ratings_account_players", ["account_id", "players"])
    op.create_table(
        "rating_opponents",
        sa.Column("rating_id", sa.Integer, sa.ForeignKey("ratings.id"), primary_key=True),
        sa.Column("opponent_id", sa.Integer, sa.ForeignKey("ratings.id"), primary_key=True),
    )
    op.add_column("rating_history", sa.Column("provisional", sa.Boolean, nullable=True))
    _sort_by_players(bind)
    _walk_history(bind)


def _sort_by_players(bind: sa.Connection) -> None:
    """Each entry's number of players: the one most of its rated games had."""
    points = bind.execute(sa.text(
        "SELECT h.rating_id, (SELECT count(*) FROM seats s WHERE s.game_id = h.game_id) FROM rating_history h"
        " WHERE h.rating_id IS NOT NULL AND h.game_id IS NOT NULL"
    )).all()
    counts: dict[int, Counter[int]] = defaultdict(Counter)
    for rating_id, players in points:
        if 2 <= players <= 4:
            counts[rating_id][players] += 1
    for rating_id, seen in counts.items():
        most = max(seen.values())
        players = min(n for n, c in seen.items() if c == most)
        if players != 2:
            bind.execute(sa.text("UPDATE ratings SET players = :p WHERE id = :i"), {"p": players, "i": rating_id})


def _walk_history(bind: sa.Connection) -> None:
    """The trusted opponents each entry met in its counted games, and whether each point's
    rating was provisional after it, from the history in the order it was written."""
    bots = set(bind.scalars(sa.text("SELECT id FROM ratings WHERE kind = 'bot'")))
    persons = set(bind.scalars(sa.text("SELECT id FROM ratings WHERE kind = 'person'")))
    rows = bind.execute(sa.text(
        "SELECT id, game_id, rating_id, weight FROM rating_history WHERE seat IS NOT NULL AND rating_id IS NOT NULL"
        " AND game_id IS NOT NULL ORDER BY id"
    )).all()
    games: dict[str, list[tuple[int, int, float | None]]] = {}
    for point, game_id, rating_id, weight in rows:
        games.setdefault(game_id, []).append((point, rating_id, weight))
    counted: Counter[int] = Counter()
    met: dict[int, set[int]] = defaultdict(set)

    def trusted(rating_id: int) -> bool:
        return rating_id in bots or (counted[rating_id] >= PROVISIONAL_GAMES and len(met[rating_id]) >= TRUSTED_OPPONENTS)

    flags: list[dict[str, object]] = []
    for points in games.values():
        sure = {rating_id: trusted(rating_id) for _, rating_id, _ in points}  # as they stood before this game
        for _, rating_id, weight in points:
            if weight is None or weight > 0:
                counted[rating_id] += 1
                met[rating_id] |= {other for _, other, _ in points if other != rating_id and sure[other]}
        flags += [{"p": point, "v": rating_id in persons and not trusted(rating_id)} for point, rating_id, _ in points]
    if flags:
        bind.execute(sa.text("UPDATE rating_history SET provisional = :v WHERE id = :p"), flags)
    pairs = [{"r": rating_id, "o": other} for rating_id, others in met.items() for other in sorted(others)]
    if pairs:
        bind.execute(sa.text("INSERT INTO rating_opponents (rating_id, opponent_id) VALUES (:r, :o)"), pairs)
        bind.execute(sa.text("UPDATE ratings SET opponents = :n WHERE id = :r"), [{"r": r, "n": len(o)} for r, o in met.items()])


def downgrade() -> None:
    """One rating per holder again: the entry with the most games stays, the others go (their
    history points stay, attached to no entry)."""
    bind = op.get_bind()
    op.drop_column("rating_history", "provisional")
    op.drop_table("rating_opponents")
    entries = bind.execute(sa.text("SELECT id, kind, account_id, name, games FROM ratings ORDER BY games DESC, id")).all()
    kept: set[tuple[object, ...]] = set()
    extra = []
    for rating_id, kind, account_id, name, _ in entries:
        holder = (kind, account_id, name)
        if holder in kept:
            extra.append({"i": rating_id})
        kept.add(holder)
    if extra:
        bind.execute(sa.text("UPDATE rating_history SET rating_id = NULL WHERE rating_id = :i"), extra)
        bind.execute(sa.text("DELETE FROM ratings WHERE id = :i"), extra)
    with _ratings_rebuilt(bind), op.batch_alter_table("ratings", naming_convention=CONVENTION) as ratings:
        ratings.drop_constraint("uq_ratings_account_players", type_="unique")
        ratings.drop_constraint("uq_ratings_kind_name_players", type_="unique")
        ratings.create_unique_constraint("uq_ratings_kind_name", ["kind", "name"])
        ratings.create_unique_constraint("uq_ratings_account_id", ["account_id"])
        ratings.drop_column("opponents")
        ratings.drop_column("players")
