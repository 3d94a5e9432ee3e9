"""The schema: one ORM row class per table (the migrations in `web/migrations` create them).

An event row is one move of a game as its table made it (dice, a choice, stop, or a
fallback or forfeit its failure policy recorded); its `seq` is the game's version after it.
The unique (game_id, seq) key is what makes a duplicate or late action impossible to apply
twice, even across server processes. A game that ends without a winner (abandoned) gets
one last row of kind `end` under the next version: no move can be stored after it, and
no two processes can end the game twice.
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy import JSON, Boolean, DateTime, Float, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def now() -> datetime:
    """The time as stored: UTC, without a zone."""
    return datetime.now(UTC).replace(tzinfo=None)


class Base(DeclarativeBase):
    pass


class GameRow(Base):
    __tablename__ = "games"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    variant: Mapped[str] = mapped_column(String(200))
    first: Mapped[int | None] = mapped_column(Integer, nullable=True)  # set when play starts
    tags: Mapped[dict[str, str]] = mapped_column(JSON, default=dict)
    status: Mapped[str] = mapped_column(String(16), index=True)  # a GameStatus
    winner: Mapped[int | None] = mapped_column(Integer, nullable=True)
    version: Mapped[int] = mapped_column(Integer, default=0)
    created: Mapped[datetime] = mapped_column(DateTime, default=now)
    updated: Mapped[datetime] = mapped_column(DateTime, default=now, index=True)  # the last change: a move, the start, a seat taken
    rematch: Mapped[str | None] = mapped_column(String(32), nullable=True)  # the game its players started next
    clock: Mapped[int] = mapped_column(Integer, default=0, server_default="0")  # seconds per move, 0: none
    rated: Mapped[bool] = mapped_column(Boolean, default=False, server_default=sa.false())  # else friendly
    to_move: Mapped[int | None] = mapped_column(Integer, nullable=True)  # the seat whose move it is, while playing
    seen: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)  # when a player last had the game open
    spectators_muted: Mapped[bool] = mapped_column(Boolean, default=False, server_default=sa.false())  # only players may chat


class SeatRow(Base):
    __tablename__ = "seats"
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))  # a SeatKind
    bot: Mapped[str | None] = mapped_column(String(64), nullable=True)
    name: Mapped[str | None] = mapped_column(String(40), nullable=True, index=True)
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    # The signed-in person's account, if a signed-in person took the seat: any of their
    # devices acts for it. A guest's seat has none and is held by its token alone.
    account_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id"), nullable=True, index=True)


class SeatLinkRow(Base):
    """A one-time link that moves a guest's seat to another device: its code (as a hash),
    which seat, the seat's token when the link was made (a seat moved since has a new one,
    and the link no longer works), and when it expires."""

    __tablename__ = "seat_links"
    code_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"))
    seat: Mapped[int] = mapped_column(Integer)
    token_hash: Mapped[str] = mapped_column(String(64))
    expires: Mapped[datetime] = mapped_column(DateTime)


class EventRow(Base):
    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("game_id", "seq", name="uq_events_game_seq"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(8))  # dice, choice, decision, or an out-of-band move's kind
    data: Mapped[str] = mapped_column(String(64))  # see `web.db.moves`
    created: Mapped[datetime] = mapped_column(DateTime, default=now)


CHAT_CHARS = 200  # the longest chat message, in characters as people see them (`games.chat`)
# What the column holds, in code points: a character a reader counts once may be several
# (an accent written apart, a family emoji), so the column is wider than CHAT_CHARS.
CHAT_CODE_POINTS = 1000


class ChatRow(Base):
    """One chat message, stored before anyone is sent it: who said it (a seat's player, with
    the account if signed in, or a spectator by the label its connection had), the text,
    and when. A player's line keeps the name the seat had then; deleting its account
    renames it as the account's seats are."""

    __tablename__ = "chat_messages"
    __table_args__ = (sa.Index("ix_chat_messages_game_id_id", "game_id", "id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)  # the order said in
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"))
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)  # None for a spectator
    spectator: Mapped[bool] = mapped_column(Boolean)  # a spectator's line: kept from a rated game's players until it ends
    name: Mapped[str] = mapped_column(String(40))
    account_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id"), nullable=True, index=True)
    text: Mapped[str] = mapped_column(String(CHAT_CODE_POINTS))
    created: Mapped[datetime] = mapped_column(DateTime, default=now)


class RatingRow(Base):
    """A rating for games of one number of players: a person's (by account), a bot's (by
    'bot:NAME'), or a legacy one (by the name typed before accounts existed, until an
    administrator attaches it to an account). `opponents` counts the distinct trusted
    opponents its counted games met (`players.scale`), each one a row of `rating_opponents`."""

    __tablename__ = "ratings"
    __table_args__ = (
        UniqueConstraint("kind", "name", "players", name="uq_ratings_kind_name_players"),
        UniqueConstraint("account_id", "players", name="uq_ratings_account_players"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(8))  # a RatingKind
    account_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id"), nullable=True)
    name: Mapped[str | None] = mapped_column(String(40), nullable=True)  # None for a person: the account names them
    players: Mapped[int] = mapped_column(Integer, default=2, server_default="2")  # the number of players of its games
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    opponents: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class RatingOpponentRow(Base):
    """A trusted opponent a rating has met in a game that counted (`players.scale`): the
    distinct ones are what lets a rating stop being provisional."""

    __tablename__ = "rating_opponents"
    rating_id: Mapped[int] = mapped_column(ForeignKey("ratings.id"), primary_key=True)
    opponent_id: Mapped[int] = mapped_column(ForeignKey("ratings.id"), primary_key=True)


class RatingHistoryRow(Base):
    """A rating as it stood after one rated game, with what it was before and the weight the
    game counted with (a pair's repeated games count less). One point per game and seat: a game
    is rated once, whoever gets to it first (`players.ratings.rate_game`)."""

    __tablename__ = "rating_history"
    __table_args__ = (sa.Index("uq_rating_history_game_seat", "game_id", "seat", unique=True),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(40), index=True)  # the name played under then
    game_id: Mapped[str | None] = mapped_column(ForeignKey("games.id"), nullable=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    created: Mapped[datetime] = mapped_column(DateTime, default=now)
    rating_id: Mapped[int | None] = mapped_column(ForeignKey("ratings.id"), nullable=True, index=True)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    weight: Mapped[float | None] = mapped_column(Float, nullable=True)
    before_mu: Mapped[float | None] = mapped_column(Float, nullable=True)
    before_sigma: Mapped[float | None] = mapped_column(Float, nullable=True)
    provisional: Mapped[bool | None] = mapped_column(Boolean, nullable=True)  # whether the rating was provisional after the game


def schema_of(row: type[Base]) -> sa.Table:
    """A row class's SQL table, for statements written without the ORM (SQLAlchemy Core)."""
    found = row.__table__
    assert isinstance(found, sa.Table)
    return found


GAMES = schema_of(GameRow)
SEATS = schema_of(SeatRow)
EVENTS = schema_of(EventRow)
CHAT = schema_of(ChatRow)
