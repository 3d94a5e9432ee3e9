"""Reports to the moderators, in storage: a chat line (kept as it was written) or a player,
with the reason the reporter gave; `cantstop admin reports` lists them and `resolve` marks
one dealt with. Every method is a plain blocking call (the server runs them off the event loop)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import aliased

from cantstop.web.db.rows import ChatRow, now
from cantstop.web.db.storage import Storage
from cantstop.web.errors import Conflict, Invalid, NotFound
from cantstop.web.identity import moderation
from cantstop.web.identity.rows import AccountRow
from cantstop.web.social.rows import REPORT_REASON, ReportRow


@dataclass(frozen=True)
class Report:
    """A report as the moderators read it."""

    id: int
    at: datetime
    reporter: str
    name: str  # the player reported, as shown
    account: str | None  # their account's name now, if they have one (a guest has none)
    game_id: str | None
    message_id: int | None
    text: str | None
    reason: str
    handled: datetime | None
    note: str | None


def reason_text(reason: str) -> str:
    """A report's reason: Invalid `bad_reason` unless 1..REPORT_REASON characters."""
    return moderation.reason_text(reason, REPORT_REASON, "say what is wrong in")


class Reports:
    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    def of_message(self, reporter: int, message_id: int, reason: str) -> int:
        """Report chat message `message_id`; the report's number. NotFound `no_message` for
        a message that does not exist, Invalid `own_message` for one's own line, Conflict
        `reported` for a message this account reported already."""
        with self.storage.session() as s:
            line = s.get(ChatRow, message_id)
            if line is None:
                raise NotFound("no_message", f"message: there is no chat message {message_id}")
            if line.account_id == reporter:
                raise Invalid("own_message", "message: that is your own chat line")
            row = ReportRow(reporter_id=reporter, account_id=line.account_id, name=line.name, game_id=line.game_id,
                            message_id=message_id, text=line.text, reason=reason_text(reason), created=now())
        return self._add(row)

    def of_player(self, reporter: int, account_id: int, name: str, reason: str) -> int:
        """Report the account `account_id` (called `name`); the report's number. Invalid
        `own_account` for oneself."""
        if account_id == reporter:
            raise Invalid("own_account", "player: you cannot report yourself")
        return self._add(ReportRow(reporter_id=reporter, account_id=account_id, name=name, reason=reason_text(reason), created=now()))

    def _add(self, row: ReportRow) -> int:
        try:
            with self.storage.session() as s:
                s.add(row)
                s.flush()
                return row.id
        except IntegrityError:
            raise Conflict("reported", "message: you have reported this chat line already") from None

    def listed(self, everything: bool = False, limit: int = 200) -> list[Report]:
        """The reports not dealt with yet (or all, with `everything`), oldest first."""
        reporter, reported = aliased(AccountRow), aliased(AccountRow)
        query = (select(ReportRow, reporter.name, reported.name).join(reporter, reporter.id == ReportRow.reporter_id)
                 .outerjoin(reported, reported.id == ReportRow.account_id))
        if not everything:
            query = query.where(ReportRow.handled.is_(None))
        with self.storage.session() as s:
            rows = s.execute(query.order_by(ReportRow.id).limit(limit)).all()
        return [Report(r.id, r.created, by or f"#{r.reporter_id}", r.name, about, r.game_id, r.message_id, r.text, r.reason, r.handled, r.note)
                for r, by, about in rows]

    def resolve(self, report_id: int, note: str) -> None:
        """Mark a report dealt with, with the moderators' note. NotFound `no_report`."""
        with self.storage.session() as s:
            done = s.execute(update(ReportRow).where(ReportRow.id == report_id)
                             .values(handled=now(), note=reason_text(note))).rowcount  # type: ignore[attr-defined]
        if not done:
            raise NotFound("no_report", f"there is no report {report_id}")
