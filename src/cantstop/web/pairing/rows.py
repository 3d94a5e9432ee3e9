"""The pairing room's table (the migration `*_pairing.py`): one row per request for a quick
game, from its asking to its end (paired into a game, cancelled, or expired)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from cantstop.web.db.rows import Base, schema_of


class PairingRow(Base):
    """Who asks (an account, or a guest known by the request's secret alone), for what (rules,
    players, clock, rated), at what rating, since when and last heard from; its state, and
    once paired the game and seat it got. The secret's hash is also the seat's token hash, so
    the guest who holds the request holds the seat with the same secret."""

    __tablename__ = "pairing_requests"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    account_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id"), nullable=True, index=True)
    # The account again while its request waits, None after: its uniqueness is what lets an
    # account wait once, however many requests race.
    waiting_account: Mapped[int | None] = mapped_column(Integer, nullable=True, unique=True)
    name: Mapped[str] = mapped_column(String(40))  # the name its seat takes
    variant: Mapped[str] = mapped_column(String(200))
    players: Mapped[int] = mapped_column(Integer)
    clock: Mapped[int] = mapped_column(Integer)  # seconds a move
    rated: Mapped[bool] = mapped_column(Boolean)
    rating: Mapped[int] = mapped_column(Integer)  # as shown, when asked (1500 for a guest)
    asked: Mapped[datetime] = mapped_column(DateTime)
    seen: Mapped[datetime] = mapped_column(DateTime)  # its holder's last look: a request unseen for long expires
    state: Mapped[str] = mapped_column(String(16), index=True)  # a RequestState
    ended: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    game_id: Mapped[str | None] = mapped_column(ForeignKey("games.id"), nullable=True)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)


REQUESTS = schema_of(PairingRow)
