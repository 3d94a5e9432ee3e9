"""The review room's tables (migration 0011): each game's analysis, its players' figures, the
costly decisions practice draws from, and each account's practice answers.

An analysis row is first a claim (no data yet): its game id is the key, so of two server
processes that set out to analyse one game the second finds the first's claim and waits
for its result instead. The figures and the practice positions are written with the data,
in the same transaction, and hold no name: a seat's player is read from `seats` when asked.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, Float, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from cantstop.web.db.rows import Base


class AnalysisRow(Base):
    __tablename__ = "analyses"
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    format: Mapped[int] = mapped_column(Integer)  # what `data` is written in (`analyses.FORMAT`)
    data: Mapped[str | None] = mapped_column(Text, nullable=True)  # the analysis's JSON; None while claimed
    claimed: Mapped[datetime] = mapped_column(DateTime)  # when a process set out to compute it
    done: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)


class AnalysisSeatRow(Base):
    """One player's figures in an analysed game: what a profile averages."""

    __tablename__ = "analysis_seats"
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    units: Mapped[str] = mapped_column(String(8))  # an analysis.Units: points of chance, or turns alone
    accuracy: Mapped[float | None] = mapped_column(Float, nullable=True)  # None: no decision at stake
    luck: Mapped[float] = mapped_column(Float)
    loss: Mapped[float] = mapped_column(Float)
    decisions: Mapped[int] = mapped_column(Integer)


class PracticeRow(Base):
    """A decision that cost its player much (practice asks it again): its position, the
    options with their values (best first, as JSON) and what was played."""

    __tablename__ = "practice_positions"
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    ply: Mapped[int] = mapped_column(Integer, primary_key=True)  # the decision's event in the record
    seat: Mapped[int] = mapped_column(Integer)
    units: Mapped[str] = mapped_column(String(8))
    position: Mapped[str] = mapped_column(Text)  # notation
    options: Mapped[str] = mapped_column(Text)
    chosen: Mapped[str] = mapped_column(String(32))
    loss: Mapped[float] = mapped_column(Float)


class PracticeAnswerRow(Base):
    """An account's answer to one practice position: how often it was answered, and whether
    the last answer was right (`correct`)."""

    __tablename__ = "practice_answers"
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True)
    game_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    ply: Mapped[int] = mapped_column(Integer, primary_key=True)
    answer: Mapped[str] = mapped_column(String(32))
    correct: Mapped[bool] = mapped_column(Boolean)
    tries: Mapped[int] = mapped_column(Integer)
    at: Mapped[datetime] = mapped_column(DateTime)
