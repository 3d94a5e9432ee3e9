"""Who follows whom, in storage, and when the accounts followed were last seen: a follower
sees which of them are online (a session used within `ONLINE_WITHIN`) and what they play.
Every method is a plain blocking call (the server runs them off the event loop)."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import func, select

from cantstop.web.db.storage import Storage
from cantstop.web.identity.rows import AccountRow, SessionRow
from cantstop.web.social import links
from cantstop.web.social.rows import FollowRow

MOST_FOLLOWED = 500  # accounts one account may follow
ONLINE_WITHIN = timedelta(minutes=5)  # a session used this recently is someone online (sessions note a use once a minute)


class Follows:
    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    def follow(self, follower: int, followed: int) -> bool:
        """`follower` follows `followed` from now on; False if it did already. Conflict
        `too_many` past MOST_FOLLOWED."""
        return links.add(self.storage, FollowRow, follower, followed, MOST_FOLLOWED,
                         f"an account follows at most {MOST_FOLLOWED} others: unfollow one first")

    def unfollow(self, follower: int, followed: int) -> bool:
        return links.remove(self.storage, FollowRow, follower, followed)

    def follows(self, follower: int, followed: int) -> bool:
        with self.storage.session() as s:
            return s.get(FollowRow, (follower, followed)) is not None

    def following(self, follower: int) -> list[tuple[int, str, datetime | None]]:
        """The live accounts `follower` follows, by name: (id, name, the last use of any of
        their sessions, None if they have none)."""
        seen = select(SessionRow.account_id, func.max(SessionRow.seen).label("seen")).group_by(SessionRow.account_id).subquery()
        with self.storage.session() as s:
            rows = s.execute(
                select(AccountRow.id, AccountRow.name, seen.c.seen).join(FollowRow, FollowRow.followed_id == AccountRow.id)
                .outerjoin(seen, seen.c.account_id == AccountRow.id)
                .where(FollowRow.follower_id == follower, AccountRow.deleted.is_(None), AccountRow.closed.is_(None))
                .order_by(AccountRow.name)
            ).all()
        return [(number, name, last) for number, name, last in rows if name is not None]

    def followers(self, followed: int) -> int:
        with self.storage.session() as s:
            return int(s.scalar(select(func.count()).select_from(FollowRow).where(FollowRow.followed_id == followed)) or 0)
