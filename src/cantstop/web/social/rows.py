"""The social room's tables (migration 0012): who follows whom, who blocks whom, and the reports
made to the moderators."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from cantstop.web.db.rows import Base, now

REPORT_REASON = 500  # characters of a report's reason


class FollowRow(Base):
    """`follower` follows `followed`: sees whether they are online and what they play."""

    __tablename__ = "follows"
    follower_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True)
    followed_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True, index=True)
    created: Mapped[datetime] = mapped_column(DateTime, default=now)


class BlockRow(Base):
    """`blocker` blocks `blocked`: who is not seen in the chat of their games, and neither
    follows the other."""

    __tablename__ = "blocks"
    blocker_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True)
    blocked_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True, index=True)
    created: Mapped[datetime] = mapped_column(DateTime, default=now)


class ReportRow(Base):
    """A report to the moderators: who made it, whom it is about (the account, and the name
    shown), the chat line it is about if any (its text as it was), the reason, and when the
    moderators dealt with it (with their note)."""

    __tablename__ = "reports"
    __table_args__ = (UniqueConstraint("reporter_id", "message_id", name="uq_reports_reporter_message"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    reporter_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    account_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id"), nullable=True, index=True)
    name: Mapped[str] = mapped_column(String(40))  # the reported player as shown (a guest has no account)
    game_id: Mapped[str | None] = mapped_column(ForeignKey("games.id"), nullable=True)
    message_id: Mapped[int | None] = mapped_column(ForeignKey("chat_messages.id"), nullable=True)
    text: Mapped[str | None] = mapped_column(String(1000), nullable=True)  # the chat line reported, as it was
    reason: Mapped[str] = mapped_column(String(REPORT_REASON))
    created: Mapped[datetime] = mapped_column(DateTime, default=now)
    handled: Mapped[datetime | None] = mapped_column(DateTime, nullable=True, index=True)
    note: Mapped[str | None] = mapped_column(String(REPORT_REASON), nullable=True)
