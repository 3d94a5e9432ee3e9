"""Sessions of signed-in accounts in storage: opened at sign-in, looked up on every signed-in
request, ended by signing out, by a new password, or when they expire.

A session's token is kept only as a hash; the token itself lives in the browser's
HttpOnly cookie. Every method is a plain blocking call (the server runs them off the event loop).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import NamedTuple

from sqlalchemy import bindparam, delete, or_, select, update

from cantstop.web.db.rows import now
from cantstop.web.db.storage import Storage
from cantstop.web.db.tokens import hash_token
from cantstop.web.identity.accounts import Account, name_hashes
from cantstop.web.identity.rows import AccountRow, SessionRow

SEEN_EVERY = timedelta(minutes=1)  # a session's last use is written at most this often


class SignedIn(NamedTuple):
    """A live session: whose, and its token's hash (what revokes it)."""

    account: Account
    token_hash: str


@dataclass(frozen=True)
class SessionInfo:
    """A session as an account page and the admin list show it (never its token)."""

    account: str
    created: datetime
    seen: datetime
    address: str
    token_hash: str


_SIGNED_IN = (
    select(SessionRow.seen, SessionRow.created.label("started"), AccountRow.id, AccountRow.name, AccountRow.created)
    .join(AccountRow, AccountRow.id == SessionRow.account_id)
    .where(SessionRow.token_hash == bindparam("key"), AccountRow.deleted.is_(None), AccountRow.closed.is_(None))
)


class Sessions:
    """`idle`: how long a session may go unused; `longest`: how long it lasts at most;
    `clock`: the time as stored (UTC, no zone), which tests move on."""

    def __init__(self, storage: Storage, idle: timedelta, longest: timedelta, clock: Callable[[], datetime] = now) -> None:
        self.storage, self.idle, self.longest, self.clock = storage, idle, longest, clock

    def open(self, account_id: int, address: str) -> str:
        """A new session for the account; its token (kept only as a hash) goes in the cookie.
        Sessions that expired unseen are swept out on the way."""
        token = secrets.token_urlsafe(32)
        stamp = self.clock()
        with self.storage.session() as s:
            s.execute(delete(SessionRow).where(or_(SessionRow.seen < stamp - self.idle, SessionRow.created < stamp - self.longest)))
            s.add(SessionRow(token_hash=hash_token(token), account_id=account_id, created=stamp, seen=stamp, address=address[:64]))
        return token

    def signed_in(self, token: str) -> SignedIn | None:
        """The session whose token this is, unless it is unknown, revoked, idle too long or
        too old (an expired one is deleted)."""
        stamp = self.clock()
        key = hash_token(token)
        # A plain read (every signed-in request makes one); a write only now and then.
        with self.storage.autocommit.connect() as conn:
            found = conn.execute(_SIGNED_IN, {"key": key}).first()
        if found is None:
            return None
        if stamp - found.seen > self.idle or stamp - found.started > self.longest:
            self.close(key)
            return None
        if stamp - found.seen > SEEN_EVERY:
            with self.storage.engine.begin() as conn:
                conn.execute(update(SessionRow).where(SessionRow.token_hash == key).values(seen=stamp))
        return SignedIn(Account(found.id, found.name, found.created), key)

    def close(self, token_hash: str) -> None:
        with self.storage.session() as s:
            s.execute(delete(SessionRow).where(SessionRow.token_hash == token_hash))

    def close_token(self, token: str) -> None:
        """End the session of a cookie's token (a sign-in over it: its id is never reused)."""
        self.close(hash_token(token))

    def close_all(self, account_id: int, but: str | None = None) -> int:
        """End every session of the account (but the one whose hash is `but`); how many ended."""
        with self.storage.session() as s:
            query = delete(SessionRow).where(SessionRow.account_id == account_id)
            if but is not None:
                query = query.where(SessionRow.token_hash != but)
            return int(s.execute(query).rowcount)  # type: ignore[attr-defined]

    def listed(self, name: str | None = None) -> list[SessionInfo]:
        """Live accounts' sessions, newest use first (only `name`'s if given)."""
        with self.storage.session() as s:
            query = select(SessionRow, AccountRow.name).join(AccountRow, AccountRow.id == SessionRow.account_id)
            if name is not None:
                query = query.where(AccountRow.name_hash == name_hashes(name)[0])
            rows = s.execute(query.order_by(SessionRow.seen.desc())).all()
            return [SessionInfo(who or "", r.created, r.seen, r.address, r.token_hash) for r, who in rows]
