"""Accounts and their sessions in storage: the queries the routes and `cantstop admin` share.

Every method is a plain blocking call on the storage's engine (the server runs them off the
event loop); none hashes a password, which is the caller's (slow) work.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import NamedTuple, TypeVar

from sqlalchemy import bindparam, delete, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from cantstop.web.db.notify import NOTIFY, notice
from cantstop.web.db.rows import ChatRow, GameRow, SeatRow, now
from cantstop.web.db.storage import Storage
from cantstop.web.db.tokens import hash_token
from cantstop.web.errors import Conflict, NotFound
from cantstop.web.identity.rows import AccountRow, ChallengeRow, FailureRow, PasskeyRow, SessionRow
from cantstop.web.names import DELETED, name_key, normal
from cantstop.web.spoof import lookalike_key

SEEN_EVERY = timedelta(minutes=1)  # a session's last use is written at most this often
# How long a process trusts the webhook it read for an account: a change made through this
# process is seen at once; one made through another server process, within this time.
HOOK_FRESH = 60.0
Hook = tuple[str, str]  # a webhook's address and the secret its deliveries are signed with


def deleted_label(account_id: int) -> str:
    """What a deleted account's seats read (no name may start so: `names.checked_name`)."""
    return f"{DELETED} #{account_id}"


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def name_taken(name: str) -> Conflict:
    return Conflict("name_taken", f"{name!r} is taken, or looks like the name of an account: choose another")


def name_hashes(name: str) -> tuple[str, str]:
    """The hashes a name is kept under: of its case-folded form, and of its look-alike key."""
    return digest(name_key(name)), digest(lookalike_key(normal(name)))


@dataclass(frozen=True)
class Account:
    id: int
    name: str
    created: datetime


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


@dataclass(frozen=True)
class Passkey:
    credential_id: str
    account_id: int
    public_key: bytes
    sign_count: int
    created: datetime


def _account(row: AccountRow) -> Account:
    assert row.name is not None, "a deleted account is never handed out"
    return Account(row.id, row.name, row.created)


def _passkey(row: PasskeyRow) -> Passkey:
    return Passkey(row.credential_id, row.account_id, row.public_key, row.sign_count, row.created)


Owned = TypeVar("Owned", SessionRow, PasskeyRow)


def _with_live_account(s: Session, row: type[Owned], where: ColumnElement[bool]) -> tuple[Owned, AccountRow] | None:
    """The row of `row`'s table that `where` picks, with its account, unless that account was deleted."""
    found = s.execute(
        select(row, AccountRow).join(AccountRow, AccountRow.id == row.account_id).where(where, AccountRow.deleted.is_(None))
    ).first()
    return None if found is None else (found[0], found[1])


_SIGNED_IN = (
    select(SessionRow.seen, SessionRow.created.label("started"), AccountRow.id, AccountRow.name, AccountRow.created)
    .join(AccountRow, AccountRow.id == SessionRow.account_id)
    .where(SessionRow.token_hash == bindparam("key"), AccountRow.deleted.is_(None))
)


class Accounts:
    """The identity room's storage, on the server's database."""

    def __init__(self, storage: Storage, clock: Callable[[], float] = time.monotonic) -> None:
        self.storage = storage
        self.clock = clock
        # "Your turn" asks for a seat's hook at every turn; most accounts have none, and a
        # query per turn was a good part of a signed-in game's cost on PostgreSQL.
        self._hooks: dict[int, tuple[float, Hook | None]] = {}
        self._hook_changes = 0  # a lookup that overlapped a change does not keep what it read

    @contextmanager
    def _session(self) -> Iterator[Session]:
        with self.storage.session() as s:
            yield s

    # ------------------------------------------------------------- accounts
    def create(self, name: str, password_hash: str | None) -> Account:
        """A new account; Conflict `name_taken` (nothing stored) when the name or a look-alike is taken.
        The two unique hashes decide, so two sign-ups racing for one name cannot both win."""
        by_name, by_look = name_hashes(name)
        row = AccountRow(name=name, name_hash=by_name, lookalike_hash=by_look, password_hash=password_hash,
                         user_handle=secrets.token_hex(32), created=now())
        try:
            with self._session() as s:
                s.add(row)
                s.flush()
                return _account(row)
        except IntegrityError:
            raise name_taken(name) from None

    def name_is_taken(self, name: str, but: int | None = None) -> bool:
        """Whether `name` is, or looks like, the name of an account other than `but` (deleted
        accounts' names stay taken, so nobody can pass for the player they were)."""
        by_name, by_look = name_hashes(name)
        with self._session() as s:
            query = select(AccountRow.id).where(or_(AccountRow.name_hash == by_name, AccountRow.lookalike_hash == by_look))
            return any(found != but for found in s.scalars(query))

    def find(self, name: str) -> tuple[Account, str | None] | None:
        """The live account called `name` (compared case-folded) and its password hash."""
        with self._session() as s:
            row = s.scalar(select(AccountRow).where(AccountRow.name_hash == name_hashes(name)[0], AccountRow.deleted.is_(None)))
            return None if row is None else (_account(row), row.password_hash)

    def named(self, name: str) -> Account:
        """The live account called `name`; NotFound `no_account` if there is none."""
        found = self.find(name)
        if found is None:
            raise NotFound("no_account", f"no account is called {name!r}")
        return found[0]

    def password_hash(self, account_id: int) -> str | None:
        with self._session() as s:
            return s.scalar(select(AccountRow.password_hash).where(AccountRow.id == account_id))

    def set_password(self, account_id: int, password_hash: str) -> None:
        with self._session() as s:
            s.execute(update(AccountRow).where(AccountRow.id == account_id).values(password_hash=password_hash))

    def set_webhook(self, account_id: int, url: str | None, secret: str | None) -> None:
        """Where the account's "your turn" is POSTed, and the secret that signs it (None: no hook)."""
        with self._session() as s:
            s.execute(update(AccountRow).where(AccountRow.id == account_id).values(webhook_url=url, webhook_secret=secret))
        self._hook_changed(account_id)

    def known_hook(self, account_id: int) -> tuple[bool, Hook | None]:
        """(True, the hook) when this process read the account's hook less than `HOOK_FRESH`
        seconds ago and nothing changed it here since; (False, None) when it must be read."""
        found = self._hooks.get(account_id)
        if found is None or self.clock() - found[0] > HOOK_FRESH:
            return False, None
        return True, found[1]

    def turn_hook(self, account_id: int) -> Hook | None:
        """`webhook`, remembered for `HOOK_FRESH` seconds (the "your turn" path)."""
        changes, read_at = self._hook_changes, self.clock()
        hook = self.webhook(account_id)
        if changes == self._hook_changes:
            if len(self._hooks) >= 100_000:  # a bound, not a policy: the next reads fill it again
                self._hooks.clear()
            self._hooks[account_id] = (read_at, hook)
        return hook

    def _hook_changed(self, account_id: int) -> None:
        self._hook_changes += 1
        self._hooks.pop(account_id, None)

    def webhook(self, account_id: int) -> Hook | None:
        """The account's hook address and secret, if it set one (and is not deleted)."""
        with self._session() as s:
            found = s.execute(
                select(AccountRow.webhook_url, AccountRow.webhook_secret).where(AccountRow.id == account_id, AccountRow.deleted.is_(None))
            ).first()
            return None if found is None or not found[0] or not found[1] else (found[0], found[1])

    def user_handle(self, account_id: int) -> bytes:
        with self._session() as s:
            return bytes.fromhex(s.scalar(select(AccountRow.user_handle).where(AccountRow.id == account_id)) or "")

    def rename(self, old: str, new: str) -> Account:
        """Give an account another name (checked by the caller); NotFound `no_account`, Conflict `name_taken`."""
        account = self.named(old)
        by_name, by_look = name_hashes(new)
        try:
            with self._session() as s:
                s.execute(update(AccountRow).where(AccountRow.id == account.id).values(name=new, name_hash=by_name, lookalike_hash=by_look))
        except IntegrityError:
            raise name_taken(new) from None
        return Account(account.id, new, account.created)

    def delete(self, account_id: int) -> list[str]:
        """Anonymise an account: its name, password, sessions and passkeys go; the row and the
        hashes of its name stay, so nobody takes the name. The seats it played in since it
        was made (nobody else could sit under its name), and the chat messages it wrote as a
        player, read "deleted player #ID" instead. Returns the games of those seats (every
        server process is told they changed, as of a seat moved)."""
        with self._session() as s:
            row = s.get(AccountRow, account_id)
            if row is None or row.name is None:
                return []
            for table in (SessionRow, PasskeyRow, ChallengeRow):
                s.execute(delete(table).where(table.account_id == account_id))
            gone = deleted_label(account_id)
            games = set(s.scalars(select(SeatRow.game_id).where(SeatRow.account_id == account_id)))
            s.execute(update(SeatRow).where(SeatRow.account_id == account_id).values(name=gone))
            s.execute(update(ChatRow).where(ChatRow.account_id == account_id).values(name=gone))  # what it said stays
            # Seats taken under its name before seats knew their account (no guest may take an account's name).
            since = select(GameRow.id).where(GameRow.created >= row.created)
            seats = s.scalars(select(SeatRow.name).distinct().where(
                SeatRow.kind == "person", func.lower(SeatRow.name) == row.name.lower(), SeatRow.game_id.in_(since))).all()
            mine = [n for n in seats if n is not None and name_key(n) == name_key(row.name)]
            if mine:
                named = (SeatRow.name.in_(mine), SeatRow.game_id.in_(since))
                games.update(s.scalars(select(SeatRow.game_id).where(*named)))
                s.execute(update(SeatRow).where(*named).values(name=gone))
            row.name, row.password_hash, row.deleted = None, None, now()
            row.webhook_url = row.webhook_secret = None
            self._hook_changed(account_id)
            if self.storage.shared:
                for game_id in games:
                    s.execute(NOTIFY, notice(game_id, -1))
        return sorted(games)

    # ------------------------------------------------------------- sessions
    def open_session(self, account_id: int, address: str, idle: timedelta, longest: timedelta) -> str:
        """A new session for the account; its token (kept only as a hash) goes in the cookie.
        Sessions that expired unseen are swept out on the way."""
        token = secrets.token_urlsafe(32)
        stamp = now()
        with self._session() as s:
            s.execute(delete(SessionRow).where(or_(SessionRow.seen < stamp - idle, SessionRow.created < stamp - longest)))
            s.add(SessionRow(token_hash=hash_token(token), account_id=account_id, created=stamp, seen=stamp, address=address[:64]))
        return token

    def signed_in(self, token: str, idle: timedelta, longest: timedelta) -> SignedIn | None:
        """The session whose token this is, unless it is unknown, revoked, idle longer than
        `idle` or older than `longest` (an expired one is deleted)."""
        stamp = now()
        key = hash_token(token)
        # A plain read (every signed-in request makes one); a write only now and then.
        with self.storage.autocommit.connect() as conn:
            found = conn.execute(_SIGNED_IN, {"key": key}).first()
        if found is None:
            return None
        if stamp - found.seen > idle or stamp - found.started > longest:
            self.close_session(key)
            return None
        if stamp - found.seen > SEEN_EVERY:
            with self.storage.engine.begin() as conn:
                conn.execute(update(SessionRow).where(SessionRow.token_hash == key).values(seen=stamp))
        return SignedIn(Account(found.id, found.name, found.created), key)

    def close_session(self, token_hash: str) -> None:
        with self._session() as s:
            s.execute(delete(SessionRow).where(SessionRow.token_hash == token_hash))

    def close_sessions(self, account_id: int, but: str | None = None) -> int:
        """End every session of the account (but the one whose hash is `but`); how many ended."""
        with self._session() as s:
            query = delete(SessionRow).where(SessionRow.account_id == account_id)
            if but is not None:
                query = query.where(SessionRow.token_hash != but)
            return int(s.execute(query).rowcount)  # type: ignore[attr-defined]

    def sessions(self, name: str | None = None) -> list[SessionInfo]:
        """Live accounts' sessions, newest use first (only `name`'s if given)."""
        with self._session() as s:
            query = select(SessionRow, AccountRow.name).join(AccountRow, AccountRow.id == SessionRow.account_id)
            if name is not None:
                query = query.where(AccountRow.name_hash == name_hashes(name)[0])
            rows = s.execute(query.order_by(SessionRow.seen.desc())).all()
            return [SessionInfo(who or "", r.created, r.seen, r.address, r.token_hash) for r, who in rows]

    # ------------------------------------------------------------- passkeys
    def add_passkey(self, key: Passkey) -> None:
        with self._session() as s:
            s.add(PasskeyRow(credential_id=key.credential_id, account_id=key.account_id, public_key=key.public_key,
                             sign_count=key.sign_count, created=key.created))

    def passkeys(self, account_id: int) -> list[Passkey]:
        with self._session() as s:
            rows = s.scalars(select(PasskeyRow).where(PasskeyRow.account_id == account_id).order_by(PasskeyRow.created)).all()
            return [_passkey(r) for r in rows]

    def passkey(self, credential_id: str) -> tuple[Passkey, Account] | None:
        with self._session() as s:
            found = _with_live_account(s, PasskeyRow, PasskeyRow.credential_id == credential_id)
            return None if found is None else (_passkey(found[0]), _account(found[1]))

    def passkey_used(self, credential_id: str, sign_count: int) -> None:
        with self._session() as s:
            s.execute(update(PasskeyRow).where(PasskeyRow.credential_id == credential_id).values(sign_count=sign_count))

    def remove_passkey(self, account_id: int, credential_id: str) -> bool:
        with self._session() as s:
            query = delete(PasskeyRow).where(PasskeyRow.account_id == account_id, PasskeyRow.credential_id == credential_id)
            return bool(s.execute(query).rowcount)  # type: ignore[attr-defined]

    def put_challenge(self, challenge: str, account_id: int | None, lasts: timedelta) -> str:
        """Keep a challenge handed to a browser; the handle that names it comes back with the answer."""
        handle = secrets.token_urlsafe(24)
        stamp = now()
        with self._session() as s:
            s.execute(delete(ChallengeRow).where(ChallengeRow.expires < stamp))
            s.add(ChallengeRow(handle_hash=hash_token(handle), challenge=challenge, account_id=account_id, expires=stamp + lasts))
        return handle

    def take_challenge(self, handle: str, account_id: int | None) -> str | None:
        """The challenge `handle` names, once (it is deleted), if unexpired and for this account."""
        with self._session() as s:
            row = s.get(ChallengeRow, hash_token(handle))
            if row is None:
                return None
            s.delete(row)
            return row.challenge if row.expires >= now() and row.account_id == account_id else None

    # ------------------------------------------------------- failed sign-ins
    def attempt(self, keys: dict[str, int], base: float, forget: timedelta) -> float:
        """Start a sign-in: the seconds to wait first if any of `keys` (a name, an address)
        must (nothing counted then), else 0 with the attempt counted as failed against each
        key until `succeeded` says otherwise. Counting before the password is checked is what
        makes a burst of tries at once count in full. Past a key's free tries (its value)
        each failure doubles the next wait, from `base`; a key quiet for `forget` starts over."""
        try:
            return self._attempt(keys, base, forget)
        except IntegrityError:  # another try made the same key's first row at once: now it exists
            return self._attempt(keys, base, forget)

    def _attempt(self, keys: dict[str, int], base: float, forget: timedelta) -> float:
        stamp = now()
        with self._session() as s:
            s.execute(delete(FailureRow).where(FailureRow.last < stamp - forget, FailureRow.until < stamp))
            rows = {key: s.get(FailureRow, digest(key), with_for_update=True) for key in keys}
            wait = max((r.until - stamp).total_seconds() for r in rows.values() if r is not None) if any(rows.values()) else 0.0
            if wait > 0:
                return wait
            for key, free in keys.items():
                row = rows[key]
                if row is None:
                    row = FailureRow(key_hash=digest(key), failures=0, last=stamp, until=stamp)
                    s.add(row)
                elif stamp - row.last > forget:
                    row.failures = 0
                row.failures += 1
                row.last = stamp
                row.until = stamp + _backoff(row.failures - free, base, forget)
            return 0.0

    def failed(self, keys: dict[str, int], base: float, forget: timedelta) -> None:
        """The sign-in counted by `attempt` failed: each key's wait starts again from now, as
        checking the password may have taken a while."""
        stamp = now()
        with self._session() as s:
            for key, free in keys.items():
                row = s.get(FailureRow, digest(key), with_for_update=True)
                if row is not None:
                    row.until = stamp + _backoff(row.failures - free, base, forget)

    def succeeded(self, keys: dict[str, int], forgiven: str | None) -> None:
        """The sign-in counted by `attempt` succeeded: the key `forgiven` (its name, if any)
        starts over, and the others (its address) no longer count it, so that many people signing in
        from one address do not add up to a wait."""
        with self._session() as s:
            if forgiven is not None:
                s.execute(delete(FailureRow).where(FailureRow.key_hash == digest(forgiven)))
            for key, free in keys.items():
                row = s.get(FailureRow, digest(key), with_for_update=True)
                if key != forgiven and row is not None:
                    row.failures = max(0, row.failures - 1)
                    if row.failures <= free:
                        row.until = min(row.until, now())


def _backoff(over: int, base: float, forget: timedelta) -> timedelta:
    """The wait after `over` failures beyond the free ones: none, then base, 2 base, 4 base..."""
    return timedelta(seconds=min(base * 2.0 ** min(over - 1, 40), forget.total_seconds())) if over > 0 else timedelta(0)
