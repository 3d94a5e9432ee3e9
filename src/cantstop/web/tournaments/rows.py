"""The tournaments room's tables (the migration `*_tournaments.py`): a tournament, its
entries, each round paired (one row per round: the unique key that lets a round be paired
once, whichever process gets there first) and each player's seat in each round, with its
result."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlalchemy import Boolean, DateTime, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from cantstop.web.db.rows import Base, now, schema_of


class TournamentRow(Base):
    __tablename__ = "tournaments"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    variant: Mapped[str] = mapped_column(String(200))
    seats: Mapped[int] = mapped_column(Integer)  # players a game, 2 to 4
    clock: Mapped[int] = mapped_column(Integer)  # seconds a move
    rated: Mapped[bool] = mapped_column(Boolean)
    rounds: Mapped[int] = mapped_column(Integer)
    capacity: Mapped[int] = mapped_column(Integer)  # the most players who may enter
    starts: Mapped[datetime] = mapped_column(DateTime, index=True)  # entry is open until then (UTC)
    status: Mapped[str] = mapped_column(String(16), index=True)  # a TournamentStatus
    round: Mapped[int] = mapped_column(Integer, default=0)  # rounds paired so far
    creator_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    created: Mapped[datetime] = mapped_column(DateTime, default=now)
    ended: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)


class EntryRow(Base):
    """A player entered: when, its seed (the order of ratings when play began), and whether
    and why it left the tournament (withdrew, or forfeited two games)."""

    __tablename__ = "tournament_entries"
    tournament_id: Mapped[str] = mapped_column(ForeignKey("tournaments.id"), primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True, index=True)
    joined: Mapped[datetime] = mapped_column(DateTime)
    seed: Mapped[int | None] = mapped_column(Integer, nullable=True)
    withdrawn: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    why: Mapped[str | None] = mapped_column(String(200), nullable=True)


class RoundRow(Base):
    """A round paired: its key (tournament, round) is what makes the pairing once."""

    __tablename__ = "tournament_rounds"
    tournament_id: Mapped[str] = mapped_column(ForeignKey("tournaments.id"), primary_key=True)
    round: Mapped[int] = mapped_column(Integer, primary_key=True)
    paired: Mapped[datetime] = mapped_column(DateTime)


class PlaceRow(Base):
    """One player's seat in one round: its table and game (none for a bye), and once the
    game ends its place, of how many, whether it won and whether it forfeited on its clock."""

    __tablename__ = "tournament_places"
    __table_args__ = (sa.Index("ix_tournament_places_game_id", "game_id"),)
    tournament_id: Mapped[str] = mapped_column(ForeignKey("tournaments.id"), primary_key=True)
    round: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True)
    board: Mapped[int | None] = mapped_column(Integer, nullable=True)  # the table's number in its round; None: a bye
    game_id: Mapped[str | None] = mapped_column(ForeignKey("games.id"), nullable=True)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    place: Mapped[int | None] = mapped_column(Integer, nullable=True)  # 1 for the winner; None until the game ends
    players: Mapped[int | None] = mapped_column(Integer, nullable=True)
    won: Mapped[bool] = mapped_column(Boolean, default=False)
    forfeited: Mapped[bool] = mapped_column(Boolean, default=False)


TOURNAMENTS = schema_of(TournamentRow)
ENTRIES = schema_of(EntryRow)
ROUNDS = schema_of(RoundRow)
PLACES = schema_of(PlaceRow)
