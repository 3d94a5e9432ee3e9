"""The challenges room's table (the migration `*_challenges.py`): one row per challenge, open
until it is accepted (then with the game it made), declined, withdrawn or expired.

Two accounts have one open challenge between them at a time, and an account at most so many
open: a challenge is stored with both accounts' rows locked (`store.ChallengeStore.create`),
so two pages challenging at the same moment are counted one after the other.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from cantstop.web.db.rows import Base, now, schema_of


class GameChallengeRow(Base):
    """A challenge: who asked whom, to what game, until when, and how it ended."""

    __tablename__ = "challenges"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    challenger_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    challenged_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    variant: Mapped[str] = mapped_column(String(200))  # the rules, as a preset spec
    clock: Mapped[int] = mapped_column(Integer)  # seconds a move; 0: none
    rated: Mapped[bool] = mapped_column(Boolean)
    seats: Mapped[str] = mapped_column(String(8))  # a SeatOrder: the challenger's seat
    created: Mapped[datetime] = mapped_column(DateTime, default=now)
    expires: Mapped[datetime] = mapped_column(DateTime, index=True)
    state: Mapped[str] = mapped_column(String(16), index=True)  # a ChallengeState
    answered: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)  # when it stopped being open
    game_id: Mapped[str | None] = mapped_column(ForeignKey("games.id"), nullable=True)  # the game an acceptance made


CHALLENGES = schema_of(GameChallengeRow)
