"""The identity room's tables (migrations 0005, 0006, 0012): accounts (with what the moderators
decided about them), sessions, passkeys, passkey challenges, failed sign-ins, and the log of
the moderators' decisions. Secrets are kept only as hashes; names as hashes of the
keys they are compared by, so that a deleted account's name stays taken without being kept."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Integer, LargeBinary, String
from sqlalchemy.orm import Mapped, mapped_column

from cantstop.web.db.rows import Base, now

REASON = 500  # characters of a moderator's reason


class AccountRow(Base):
    __tablename__ = "accounts"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str | None] = mapped_column(String(40), nullable=True)  # None once deleted
    name_hash: Mapped[str] = mapped_column(String(64), unique=True)  # of the case-folded name
    lookalike_hash: Mapped[str] = mapped_column(String(64), unique=True)  # of the UTS #39 skeleton
    password_hash: Mapped[str | None] = mapped_column(String(200), nullable=True)
    user_handle: Mapped[str] = mapped_column(String(64), unique=True)  # WebAuthn's user id, random
    created: Mapped[datetime] = mapped_column(DateTime, default=now)
    deleted: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    # Where "your turn" is POSTed (web/webhooks.py), and the secret its deliveries are signed with.
    webhook_url: Mapped[str | None] = mapped_column(String(2000), nullable=True)
    webhook_secret: Mapped[str | None] = mapped_column(String(64), nullable=True)
    # The moderators' decisions in force (web/identity/moderation.py): each with its reason,
    # shown to the account, and until when (None: until lifted). Closed is for good.
    silenced_why: Mapped[str | None] = mapped_column(String(REASON), nullable=True)
    silenced_until: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    suspended_why: Mapped[str | None] = mapped_column(String(REASON), nullable=True)
    suspended_until: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    closed_why: Mapped[str | None] = mapped_column(String(REASON), nullable=True)
    closed: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)


class SessionRow(Base):
    __tablename__ = "account_sessions"
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    created: Mapped[datetime] = mapped_column(DateTime)
    seen: Mapped[datetime] = mapped_column(DateTime)  # last use, to a minute: the idle expiry
    address: Mapped[str] = mapped_column(String(64))  # where it was signed in from


class PasskeyRow(Base):
    __tablename__ = "passkeys"
    credential_id: Mapped[str] = mapped_column(String(1400), primary_key=True)  # base64url
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    public_key: Mapped[bytes] = mapped_column(LargeBinary)  # COSE
    sign_count: Mapped[int] = mapped_column(Integer)
    created: Mapped[datetime] = mapped_column(DateTime)


class ChallengeRow(Base):
    """A WebAuthn challenge handed out and not yet answered: used once, then deleted."""

    __tablename__ = "passkey_challenges"
    handle_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    challenge: Mapped[str] = mapped_column(String(128))  # base64url
    account_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id"), nullable=True)  # None: a sign-in
    expires: Mapped[datetime] = mapped_column(DateTime)


class FailureRow(Base):
    """Failed sign-ins against one account name or from one address, and how long the next try waits."""

    __tablename__ = "sign_in_failures"
    key_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    failures: Mapped[int] = mapped_column(Integer)
    last: Mapped[datetime] = mapped_column(DateTime)
    until: Mapped[datetime] = mapped_column(DateTime)


class ModerationRow(Base):
    """One decision of the moderators, kept for good: silencing (no chat), suspending (no
    play), closing an account, or lifting one of the first two, with the reason given."""

    __tablename__ = "moderation_log"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    action: Mapped[str] = mapped_column(String(16))  # a Sanction's kind, or 'lift <kind>'
    reason: Mapped[str] = mapped_column(String(REASON))
    until: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    created: Mapped[datetime] = mapped_column(DateTime, default=now)
