"""Accounts in storage: made, found, renamed, given a password, deleted. Their sessions,
passkeys, sign-in throttle and webhooks are kept by modules of their own beside this one;
`service.AccountService` is what the routes call, and `cantstop admin` uses these directly.

Every method is a plain blocking call on the storage's engine (the server runs them off the
event loop); none hashes a password, which is the caller's (slow) work.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.exc import IntegrityError

from cantstop.web.challenges.rows import GameChallengeRow
from cantstop.web.db.notify import NOTIFY, notice
from cantstop.web.db.rows import ChatRow, GameRow, SeatRow, now
from cantstop.web.db.storage import Storage
from cantstop.web.db.values import GameStatus
from cantstop.web.errors import Conflict, NotFound
from cantstop.web.identity.rows import AccountRow, ChallengeRow, PasskeyRow, SessionRow
from cantstop.web.names import DELETED, name_key, normal
from cantstop.web.spoof import lookalike_key

UNDER_WAY = (GameStatus.WAITING, GameStatus.PLAYING)


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


def live_account(row: AccountRow) -> Account:
    assert row.name is not None, "a deleted account is never handed out"
    return Account(row.id, row.name, row.created)


class Accounts:
    """The accounts, on the server's database."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    # ------------------------------------------------------------- accounts
    def create(self, name: str, password_hash: str | None) -> Account:
        """A new account; Conflict `name_taken` (nothing stored) when the name or a look-alike is taken.
        The two unique hashes decide, so two sign-ups racing for one name cannot both win."""
        by_name, by_look = name_hashes(name)
        row = AccountRow(name=name, name_hash=by_name, lookalike_hash=by_look, password_hash=password_hash,
                         user_handle=secrets.token_hex(32), created=now())
        try:
            with self.storage.session() as s:
                s.add(row)
                s.flush()
                return live_account(row)
        except IntegrityError:
            raise name_taken(name) from None

    def name_is_taken(self, name: str, but: int | None = None) -> bool:
        """Whether `name` is, or looks like, the name of an account other than `but` (deleted
        accounts' names stay taken, so nobody can pass for the player they were)."""
        by_name, by_look = name_hashes(name)
        with self.storage.session() as s:
            query = select(AccountRow.id).where(or_(AccountRow.name_hash == by_name, AccountRow.lookalike_hash == by_look))
            return any(found != but for found in s.scalars(query))

    def find(self, name: str) -> tuple[Account, str | None] | None:
        """The live account called `name` (compared case-folded) and its password hash."""
        with self.storage.session() as s:
            row = s.scalar(select(AccountRow).where(AccountRow.name_hash == name_hashes(name)[0], AccountRow.deleted.is_(None)))
            return None if row is None else (live_account(row), row.password_hash)

    def open_account(self, name: str) -> Account | None:
        """The account called `name` (compared case-folded) that is neither deleted nor closed:
        one that others may follow, block or report."""
        with self.storage.session() as s:
            row = s.scalar(select(AccountRow).where(AccountRow.name_hash == name_hashes(name)[0], AccountRow.deleted.is_(None),
                                                    AccountRow.closed.is_(None)))
            return None if row is None else live_account(row)

    def named(self, name: str) -> Account:
        """The live account called `name`; NotFound `no_account` if there is none."""
        found = self.find(name)
        if found is None:
            raise NotFound("no_account", f"no account is called {name!r}")
        return found[0]

    def password_hash(self, account_id: int) -> str | None:
        with self.storage.session() as s:
            return s.scalar(select(AccountRow.password_hash).where(AccountRow.id == account_id))

    def set_password(self, account_id: int, password_hash: str) -> None:
        with self.storage.session() as s:
            s.execute(update(AccountRow).where(AccountRow.id == account_id).values(password_hash=password_hash))

    def user_handle(self, account_id: int) -> bytes:
        with self.storage.session() as s:
            return bytes.fromhex(s.scalar(select(AccountRow.user_handle).where(AccountRow.id == account_id)) or "")

    def rename(self, old: str, new: str) -> Account:
        """Give an account another name (checked by the caller); NotFound `no_account`, Conflict `name_taken`."""
        account = self.named(old)
        by_name, by_look = name_hashes(new)
        try:
            with self.storage.session() as s:
                s.execute(update(AccountRow).where(AccountRow.id == account.id).values(name=new, name_hash=by_name, lookalike_hash=by_look))
        except IntegrityError:
            raise name_taken(new) from None
        return Account(account.id, new, account.created)

    def rekey(self) -> tuple[int, list[str]]:
        """Keep every live account's name under the look-alike key of today's rules (they
        learn what the eye cannot tell apart: a dot above an i, say). How many changed, and
        the names left as they were because another account has that key already (two
        accounts that look alike, made before the rule: the operator renames one)."""
        changed, clashing = 0, []
        with self.storage.session() as s:
            rows = s.scalars(select(AccountRow).where(AccountRow.name.is_not(None)).order_by(AccountRow.id)).all()
            taken = {row.lookalike_hash: row.id for row in s.scalars(select(AccountRow))}
            for row in rows:
                assert row.name is not None
                key = name_hashes(row.name)[1]
                if key == row.lookalike_hash:
                    continue
                if taken.get(key, row.id) != row.id:
                    clashing.append(row.name)
                    continue
                del taken[row.lookalike_hash]
                row.lookalike_hash, taken[key] = key, row.id
                s.flush()
                changed += 1
        return changed, clashing

    def end_sessions(self, account_id: int) -> None:
        """End every session of the account (a closed account's)."""
        with self.storage.session() as s:
            s.execute(delete(SessionRow).where(SessionRow.account_id == account_id))

    def seats_in_play(self, account_id: int) -> list[tuple[str, int]]:
        """(game, seat) of every seat the account holds in a game waiting or under way."""
        with self.storage.session() as s:
            rows = s.execute(
                select(SeatRow.game_id, SeatRow.seat).join(GameRow, GameRow.id == SeatRow.game_id)
                .where(SeatRow.account_id == account_id, GameRow.status.in_([s.value for s in UNDER_WAY]))
            ).all()
            return [(game_id, seat) for game_id, seat in rows]

    def delete(self, account_id: int) -> list[str]:
        """Anonymise an account: its name, password, sessions, passkeys, seat tokens and
        challenges (made and received) go; the
        row and the hashes of its name stay, so nobody takes the name. The seats it played in since it
        was made (nobody else could sit under its name), and the chat messages it wrote as a
        player, read "deleted player #ID" instead. Returns the games of those seats (every
        server process is told they changed, as of a seat moved)."""
        with self.storage.session() as s:
            row = s.get(AccountRow, account_id)
            if row is None or row.name is None:
                return []
            for table in (SessionRow, PasskeyRow, ChallengeRow):
                s.execute(delete(table).where(table.account_id == account_id))
            # The challenges it made or was made go with it (their games, if any, stay).
            s.execute(delete(GameChallengeRow).where(or_(GameChallengeRow.challenger_id == account_id,
                                                         GameChallengeRow.challenged_id == account_id)))
            gone = deleted_label(account_id)
            games = set(s.scalars(select(SeatRow.game_id).where(SeatRow.account_id == account_id)))
            # Its seat tokens hold nothing any more: nobody moves for a deleted account.
            s.execute(update(SeatRow).where(SeatRow.account_id == account_id).values(name=gone, token_hash=None))
            # What it said as a player stays, renamed; as a spectator it was never named.
            s.execute(update(ChatRow).where(ChatRow.account_id == account_id, ChatRow.seat.is_not(None)).values(name=gone))
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
            if self.storage.shared:
                for game_id in games:
                    s.execute(NOTIFY, notice(game_id, -1))
        return sorted(games)
