"""Who blocks whom, in storage.

A blocked account is not seen in the chat of the games of the account that blocks it, and
neither follows the other: each chat message is kept from the connections whose
account blocks its author (`games.connections`, which holds each connection's blocks, read
when it connects and again when they change, here or, told by the database, in another
process). Every method is a plain blocking call (the server runs them off the event loop).
"""

from __future__ import annotations

from sqlalchemy import delete, or_, select
from sqlalchemy.orm import Session

from cantstop.web.db.notify import NOTIFY, notice
from cantstop.web.db.storage import Storage
from cantstop.web.identity.rows import AccountRow
from cantstop.web.social import links
from cantstop.web.social.rows import BlockRow, FollowRow

MOST_BLOCKED = 1000  # accounts one account may block
BLOCKS_TOPIC = "~blocks"  # the notice every process hears when an account's blocks change (its id follows)


class Blocks:
    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    def block(self, blocker: int, blocked: int) -> bool:
        """`blocker` blocks `blocked` (and neither follows the other any more); False if it
        did already. Conflict `too_many` past MOST_BLOCKED."""

        def unfollow_and_tell(s: Session) -> None:
            s.execute(delete(FollowRow).where(or_(
                (FollowRow.follower_id == blocker) & (FollowRow.followed_id == blocked),
                (FollowRow.follower_id == blocked) & (FollowRow.followed_id == blocker))))
            self._tell(s, blocker)

        return links.add(self.storage, BlockRow, blocker, blocked, MOST_BLOCKED,
                         f"an account blocks at most {MOST_BLOCKED} others: unblock one first", unfollow_and_tell)

    def unblock(self, blocker: int, blocked: int) -> bool:
        return links.remove(self.storage, BlockRow, blocker, blocked, lambda s: self._tell(s, blocker))

    def _tell(self, s: Session, blocker: int) -> None:
        """PostgreSQL: every server process hears (at commit) that the account's blocks changed."""
        if self.storage.shared:
            s.execute(NOTIFY, notice(BLOCKS_TOPIC, blocker))

    def blocked_by(self, blocker: int) -> frozenset[int]:
        """The accounts `blocker` blocks."""
        with self.storage.autocommit.connect() as conn:
            return frozenset(conn.scalars(select(BlockRow.blocked_id).where(BlockRow.blocker_id == blocker)))

    def between(self, first: int, second: int) -> bool:
        """Whether either account blocks the other."""
        with self.storage.autocommit.connect() as conn:
            return conn.scalar(select(BlockRow.blocker_id).where(or_(
                (BlockRow.blocker_id == first) & (BlockRow.blocked_id == second),
                (BlockRow.blocker_id == second) & (BlockRow.blocked_id == first))).limit(1)) is not None

    def listed(self, blocker: int) -> list[tuple[int, str]]:
        """The live accounts `blocker` blocks, by name."""
        with self.storage.session() as s:
            rows = s.execute(select(AccountRow.id, AccountRow.name).join(BlockRow, BlockRow.blocked_id == AccountRow.id)
                             .where(BlockRow.blocker_id == blocker, AccountRow.name.is_not(None)).order_by(AccountRow.name)).all()
        return [(number, name) for number, name in rows if name is not None]
