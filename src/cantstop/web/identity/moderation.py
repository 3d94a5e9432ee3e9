"""What the moderators decided about an account, in storage: silenced (no chat), suspended (no
play) or closed (no sign-in), each with the reason the account is shown and until when, and
the log of every decision. `cantstop admin` makes the decisions; the rooms ask `standing`.

Every method is a plain blocking call on the storage's engine (the server runs them off the
event loop).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from sqlalchemy import select, update

from cantstop.web.challenges.store import close_open
from cantstop.web.db.rows import now
from cantstop.web.db.storage import Storage
from cantstop.web.errors import Invalid, NotAllowed, NotFound
from cantstop.web.identity.rows import REASON, AccountRow, ModerationRow


class Kind(StrEnum):
    SILENCE = "silence"  # no chat
    SUSPEND = "suspend"  # no play: no game created, joined or played again
    CLOSE = "close"  # no sign-in, for good


# Each kind's columns on the account: (reason, until).
COLUMNS = {
    Kind.SILENCE: (AccountRow.silenced_why, AccountRow.silenced_until),
    Kind.SUSPEND: (AccountRow.suspended_why, AccountRow.suspended_until),
    Kind.CLOSE: (AccountRow.closed_why, AccountRow.closed),
}
WORDS = {Kind.SILENCE: "silenced (no chat)", Kind.SUSPEND: "suspended (no play)", Kind.CLOSE: "closed"}


@dataclass(frozen=True)
class Sanction:
    """A decision in force: its kind, the reason shown to the account, and until when (None:
    until lifted; for a closed account, when it was closed)."""

    kind: Kind
    reason: str
    until: datetime | None

    def words(self) -> str:
        """'silenced (no chat) until 2026-12-01 12:00 UTC: <reason>', for the account's refusals."""
        if self.kind is Kind.CLOSE:
            return f"this account was closed by the moderators: {self.reason}"
        until = f" until {self.until:%Y-%m-%d %H:%M} UTC" if self.until is not None else ""
        return f"this account is {WORDS[self.kind]}{until} by the moderators: {self.reason}"

    def json(self) -> dict[str, str | None]:
        return {"reason": self.reason, "until": None if self.until is None else self.until.isoformat(timespec="minutes")}


@dataclass(frozen=True)
class Standing:
    """The decisions in force on one account."""

    silenced: Sanction | None = None
    suspended: Sanction | None = None
    closed: Sanction | None = None

    def check_chat(self) -> None:
        """NotAllowed `silenced` (with the reason) while the account may not chat."""
        if self.silenced is not None:
            raise NotAllowed("silenced", self.silenced.words())

    def check_play(self) -> None:
        """NotAllowed `suspended` (with the reason) while the account may not play."""
        if self.suspended is not None:
            raise NotAllowed("suspended", self.suspended.words())

    def json(self) -> dict[str, dict[str, str | None] | None]:
        return {kind: None if found is None else found.json() for kind, found in
                (("silenced", self.silenced), ("suspended", self.suspended), ("closed", self.closed))}


@dataclass(frozen=True)
class Decision:
    """One line of the log."""

    account: str
    action: str
    reason: str
    until: datetime | None
    at: datetime


def reason_text(reason: str, longest: int = REASON, asked: str = "a decision gives its reason to the account, in") -> str:
    """A reason given in words (a moderator's, or a report's), its runs of spaces made one:
    Invalid `bad_reason` unless 1..`longest` characters (`asked` says what is asked for)."""
    reason = " ".join(reason.split())
    if not 1 <= len(reason) <= longest:
        raise Invalid("bad_reason", f"reason: {asked} 1..{longest} characters, not {len(reason)}")
    return reason


class Moderation:
    """`clock`: the time as stored (UTC, no zone), which tests move on."""

    def __init__(self, storage: Storage, clock: Callable[[], datetime] = now) -> None:
        self.storage, self.clock = storage, clock

    def standing(self, account_id: int) -> Standing:
        """The decisions in force on the account (none for an unknown one): one read."""
        stamp = self.clock()
        with self.storage.autocommit.connect() as conn:
            row = conn.execute(select(*[c for pair in COLUMNS.values() for c in pair]).where(AccountRow.id == account_id)).first()
        if row is None:
            return Standing()
        found: dict[Kind, Sanction | None] = {}
        for kind, (why, till) in COLUMNS.items():
            reason, until = getattr(row, why.key), getattr(row, till.key)
            lasting = kind is Kind.CLOSE or until is None or until > stamp
            found[kind] = Sanction(kind, reason, until) if reason is not None and lasting else None
        return Standing(found[Kind.SILENCE], found[Kind.SUSPEND], found[Kind.CLOSE])

    def decide(self, account_id: int, kind: Kind, reason: str, until: datetime | None = None) -> Sanction:
        """Put `kind` on the account, for `reason` (shown to it), until `until` (None: until
        lifted; a closed account stays closed), and log it. A suspended or closed account's
        open challenges close with it: those it made are withdrawn, those made to it declined.
        NotFound `no_account` for an account that does not exist or is closed already."""
        reason = reason_text(reason)
        stamp = self.clock()
        why, till = COLUMNS[kind]
        with self.storage.session() as s:
            row = s.get(AccountRow, account_id)
            if row is None or row.name is None or row.closed is not None:
                raise NotFound("no_account", "no open account has this id")
            s.execute(update(AccountRow).where(AccountRow.id == account_id)
                      .values({why: reason, till: stamp if kind is Kind.CLOSE else until}))
            s.add(ModerationRow(account_id=account_id, action=kind.value, reason=reason, until=until, created=stamp))
            if kind in (Kind.SUSPEND, Kind.CLOSE):  # nobody waits on a challenge it could not play
                close_open(s.connection(), account_id, stamp)
        return Sanction(kind, reason, stamp if kind is Kind.CLOSE else until)

    def lift(self, account_id: int, kind: Kind, reason: str) -> bool:
        """End a silence or a suspension early, for `reason`, logged; False if none was in
        force. Invalid `not_liftable` for a closed account (closing is for good)."""
        if kind is Kind.CLOSE:
            raise Invalid("not_liftable", "a closed account stays closed: only a silence or a suspension is lifted")
        reason = reason_text(reason)
        current = self.standing(account_id)
        if (current.silenced if kind is Kind.SILENCE else current.suspended) is None:
            return False
        why, till = COLUMNS[kind]
        with self.storage.session() as s:
            s.execute(update(AccountRow).where(AccountRow.id == account_id).values({why: None, till: None}))
            s.add(ModerationRow(account_id=account_id, action=f"lift {kind.value}", reason=reason, created=self.clock()))
        return True

    def log(self, account_id: int | None = None, limit: int = 200) -> list[Decision]:
        """The decisions, newest first (of the account `account_id`, if given)."""
        with self.storage.session() as s:
            query = select(ModerationRow, AccountRow.name, AccountRow.id).join(AccountRow, AccountRow.id == ModerationRow.account_id)
            if account_id is not None:
                query = query.where(ModerationRow.account_id == account_id)
            rows = s.execute(query.order_by(ModerationRow.id.desc()).limit(limit)).all()
            return [Decision(name or f"#{number}", r.action, r.reason, r.until, r.created) for r, name, number in rows]
