"""Passkeys in storage, and the WebAuthn challenges handed out and not yet answered.

The checks of what an authenticator answers are `passkeys.py`'s; this module only keeps
what they need. Every method is a plain blocking call (the server runs them off the event loop).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, select, update

from cantstop.web.db.rows import now
from cantstop.web.db.storage import Storage
from cantstop.web.db.tokens import hash_token
from cantstop.web.identity.accounts import Account, live_account
from cantstop.web.identity.rows import AccountRow, ChallengeRow, PasskeyRow


@dataclass(frozen=True)
class Passkey:
    credential_id: str
    account_id: int
    public_key: bytes
    sign_count: int
    created: datetime


def _passkey(row: PasskeyRow) -> Passkey:
    return Passkey(row.credential_id, row.account_id, row.public_key, row.sign_count, row.created)


def _key(handle: str, client: str) -> str:
    """What a challenge is stored under: the handle's hash, with the client's secret if bound to one."""
    return hash_token(f"{handle} {client}" if client else handle)


class PasskeyStore:
    """`clock`: the time as stored (UTC, no zone), which tests move on."""

    def __init__(self, storage: Storage, clock: Callable[[], datetime] = now) -> None:
        self.storage, self.clock = storage, clock

    def add(self, key: Passkey) -> None:
        with self.storage.session() as s:
            s.add(PasskeyRow(credential_id=key.credential_id, account_id=key.account_id, public_key=key.public_key,
                             sign_count=key.sign_count, created=key.created))

    def of_account(self, account_id: int) -> list[Passkey]:
        with self.storage.session() as s:
            rows = s.scalars(select(PasskeyRow).where(PasskeyRow.account_id == account_id).order_by(PasskeyRow.created)).all()
            return [_passkey(r) for r in rows]

    def find(self, credential_id: str) -> tuple[Passkey, Account] | None:
        """The passkey with this id and its account, unless that account was deleted."""
        with self.storage.session() as s:
            found = s.execute(
                select(PasskeyRow, AccountRow).join(AccountRow, AccountRow.id == PasskeyRow.account_id)
                .where(PasskeyRow.credential_id == credential_id, AccountRow.deleted.is_(None))
            ).first()
            return None if found is None else (_passkey(found[0]), live_account(found[1]))

    def used(self, credential_id: str, sign_count: int) -> None:
        with self.storage.session() as s:
            s.execute(update(PasskeyRow).where(PasskeyRow.credential_id == credential_id).values(sign_count=sign_count))

    def remove(self, account_id: int, credential_id: str) -> bool:
        with self.storage.session() as s:
            query = delete(PasskeyRow).where(PasskeyRow.account_id == account_id, PasskeyRow.credential_id == credential_id)
            return bool(s.execute(query).rowcount)  # type: ignore[attr-defined]

    def put_challenge(self, challenge: str, account_id: int | None, lasts: timedelta, client: str = "") -> str:
        """Keep a challenge handed to a browser; the handle that names it comes back with the
        answer. With `client` (a secret the asking client alone holds), only the handle and
        that secret together find it."""
        handle = secrets.token_urlsafe(24)
        stamp = self.clock()
        with self.storage.session() as s:
            s.execute(delete(ChallengeRow).where(ChallengeRow.expires < stamp))
            s.add(ChallengeRow(handle_hash=_key(handle, client), challenge=challenge, account_id=account_id, expires=stamp + lasts))
        return handle

    def take_challenge(self, handle: str, account_id: int | None, client: str = "") -> str | None:
        """The challenge `handle` (and `client`, if it was bound to one) names, once (it is
        deleted), if unexpired and for this account."""
        with self.storage.session() as s:
            row = s.get(ChallengeRow, _key(handle, client))
            if row is None:
                return None
            s.delete(row)
            return row.challenge if row.expires >= self.clock() and row.account_id == account_id else None
