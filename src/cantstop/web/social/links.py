"""A link from one account to another (a follow, a block) in storage: made once, at most so
many from one account, undone. The rows are `rows.FollowRow` and `rows.BlockRow`, each keyed
by its two accounts, the one it goes from first. Plain blocking calls."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from cantstop.web.db.rows import now, schema_of
from cantstop.web.db.storage import Storage
from cantstop.web.errors import Conflict
from cantstop.web.social.rows import BlockRow, FollowRow

Link = type[FollowRow] | type[BlockRow]
Then = Callable[[Session], None]  # more to do in the same transaction


def ends(link: Link) -> tuple[str, str]:
    """The names of a link's two columns: the account it goes from, and the one it goes to."""
    first, second = schema_of(link).primary_key.columns
    return first.key, second.key


def add(storage: Storage, link: Link, first: int, second: int, most: int, too_many: str, then: Then | None = None) -> bool:
    """Link `first` to `second` (and `then`, in the same transaction); False if linked already.
    Conflict `too_many` (saying `too_many`) when `first` has `most` links of the kind already."""
    start, end = ends(link)
    with storage.session() as s:
        if s.get(link, (first, second)) is not None:
            return False
        if (s.scalar(select(func.count()).select_from(link).where(getattr(link, start) == first)) or 0) >= most:
            raise Conflict("too_many", too_many)
    try:
        with storage.session() as s:
            s.add(link(**{start: first, end: second, "created": now()}))
            if then is not None:
                then(s)
    except IntegrityError:  # linked at the same moment from another page
        return False
    return True


def remove(storage: Storage, link: Link, first: int, second: int, then: Then | None = None) -> bool:
    """Undo the link from `first` to `second` (and `then`, if there was one); False if there was none."""
    start, end = ends(link)
    with storage.session() as s:
        gone = bool(s.execute(delete(link).where(getattr(link, start) == first, getattr(link, end) == second)).rowcount)  # type: ignore[attr-defined]
        if gone and then is not None:
            then(s)
    return gone
