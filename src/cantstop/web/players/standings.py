"""Ratings in storage: one entry per account, per bot and per legacy name, the point each rated
game left in an entry's history, and the boards that list them.

A person's entry is keyed by their account, never by a name: a name can be typed by anyone,
an account only by its owner. The entries from before accounts (keyed by the name typed)
stay apart as legacy ones until an administrator attaches one to its owner's account.
Every function is a blocking call on the storage's engine (the server runs them off the
event loop).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import and_, func, select, update
from sqlalchemy.orm import Session, aliased
from sqlalchemy.sql.elements import ColumnElement

from cantstop.web.db.rows import GameRow, RatingHistoryRow, RatingRow, SeatRow, now
from cantstop.web.db.storage import Storage
from cantstop.web.db.values import GameStatus, Rating, RatingKind, RatingPoint
from cantstop.web.errors import Conflict, NotFound
from cantstop.web.identity.rows import AccountRow

# Who a rating entry is: (PERSON, account id), (BOT, 'bot:NAME') or (LEGACY, name).
Holder = tuple[RatingKind, int | str]


@dataclass(frozen=True)
class Result:
    """One seat's outcome of a rated game, to store: the entry as it is now, and as it was."""

    seat: int
    holder: Holder
    after: Rating
    before: Rating
    weight: float
    played_as: str  # the name on the seat


def _rating(row: RatingRow, account_name: str | None) -> Rating:
    name = account_name if row.kind == RatingKind.PERSON else row.name
    return Rating(RatingKind(row.kind), name or "", row.mu, row.sigma, row.games, row.wins, row.account_id, row.id)


def _holder_filter(holder: Holder) -> ColumnElement[bool]:
    kind, key = holder
    if kind is RatingKind.PERSON:
        return RatingRow.account_id == key
    return and_(RatingRow.kind == kind.value, RatingRow.name == key)


def _rows(s: Session, holders: list[Holder], lock: bool = False) -> dict[Holder, tuple[RatingRow, str | None]]:
    """The holders' stored rows; with `lock`, each row locked until the transaction ends (on
    PostgreSQL), taken in one fixed order so that two games locking the same entries never
    wait for each other."""
    found: dict[Holder, tuple[RatingRow, str | None]] = {}
    for holder in sorted(holders, key=lambda h: (h[0].value, str(h[1]))) if lock else holders:
        query = select(RatingRow, AccountRow.name).outerjoin(AccountRow, AccountRow.id == RatingRow.account_id).where(_holder_filter(holder))
        row = s.execute(query.with_for_update(of=RatingRow) if lock else query).first()
        if row is not None:
            found[holder] = (row[0], row[1])
    return found


def ratings(storage: Storage, holders: list[Holder]) -> dict[Holder, Rating]:
    """The stored entries of these holders (a holder with no rated game yet has none)."""
    with storage.session() as s:
        return {holder: _rating(row, name) for holder, (row, name) in _rows(s, holders).items()}


def locked(s: Session, holders: list[Holder]) -> dict[Holder, Rating]:
    """`ratings`, inside the caller's transaction, the rows locked until it ends: a rating is
    read and written back by one game at a time, so that two games finishing at once for the
    same account both count (read, rate, `save` in one transaction)."""
    return {holder: _rating(row, name) for holder, (row, name) in _rows(s, holders, lock=True).items()}


def save(s: Session, game_id: str, results: list[Result]) -> None:
    """Store a rated game's outcome in the caller's transaction: each entry as it now stands
    (the stored one `before` names by its id, else a new one: its first game), and a point
    of its history with the rating before, the seat and the game's weight."""
    stamp = now()
    for r in results:
        # The entry read (and locked) before rating is in the session already: no query for it.
        row = s.get(RatingRow, r.before.id) if r.before.id is not None else None
        if row is None:
            kind, key = r.holder
            row = RatingRow(kind=kind.value, account_id=key if kind is RatingKind.PERSON else None,
                            name=None if kind is RatingKind.PERSON else str(key))
            s.add(row)
        row.mu, row.sigma, row.games, row.wins = r.after.mu, r.after.sigma, r.after.games, r.after.wins
        s.flush()
        s.add(RatingHistoryRow(name=r.played_as, game_id=game_id, mu=r.after.mu, sigma=r.after.sigma, created=stamp,
                               rating_id=row.id, seat=r.seat, weight=r.weight, before_mu=r.before.mu, before_sigma=r.before.sigma))


def rated_already(s: Session, game_id: str) -> bool:
    """Whether game `game_id` has left its points in the history (in the caller's transaction)."""
    return s.scalar(select(RatingHistoryRow.id).where(RatingHistoryRow.game_id == game_id).limit(1)) is not None


def unrated(storage: Storage, since: datetime, before: datetime, limit: int) -> list[str]:
    """Rated games won between `since` and `before` that nobody has rated yet (the process
    that ended one stopped before its rating was written), oldest first."""
    rated = select(RatingHistoryRow.id).where(RatingHistoryRow.game_id == GameRow.id)
    with storage.session() as s:
        return list(s.scalars(
            select(GameRow.id)
            .where(GameRow.rated.is_(True), GameRow.status == GameStatus.OVER.value, GameRow.winner.is_not(None))
            .where(GameRow.updated >= since, GameRow.updated <= before, ~rated.exists())
            .order_by(GameRow.updated).limit(limit)
        ).all())


def board(storage: Storage, kind: RatingKind, limit: int = 50) -> list[Rating]:
    """One board, best first by the cautious estimate mu - 3 sigma: people (live accounts
    only), bots, or the legacy names nobody has claimed."""
    with storage.session() as s:
        query = select(RatingRow, AccountRow.name).outerjoin(AccountRow, AccountRow.id == RatingRow.account_id)
        query = query.where(RatingRow.kind == kind.value)
        if kind is RatingKind.PERSON:
            query = query.where(AccountRow.deleted.is_(None))
        rows = s.execute(query.order_by((RatingRow.mu - 3 * RatingRow.sigma).desc(), RatingRow.id).limit(limit)).all()
        return [_rating(row, name) for row, name in rows]


def entry(storage: Storage, holder: Holder) -> Rating | None:
    return ratings(storage, [holder]).get(holder)


def history(storage: Storage, rating_id: int) -> list[RatingPoint]:
    """An entry's rating after each of its rated games, oldest first."""
    with storage.session() as s:
        rows = s.scalars(select(RatingHistoryRow).where(RatingHistoryRow.rating_id == rating_id).order_by(RatingHistoryRow.id)).all()
        return [RatingPoint(r.game_id, r.created, r.mu, r.sigma, 1.0 if r.weight is None else r.weight) for r in rows]


@dataclass(frozen=True)
class RatingChange:
    """What one finished rated game did to a seat's rating (the leaderboard's mu - 3 sigma,
    to two places), and the weight it counted with (less than 1 for a pair's repeated games)."""

    before: float
    after: float
    weight: float = 1.0

    @property
    def change(self) -> float:
        return self.after - self.before


def changes(storage: Storage, game_id: str) -> dict[int, RatingChange]:
    """Seat -> how its rating moved with the finished game `game_id`; empty for a game that
    rated nobody (friendly, solitaire, abandoned)."""
    with storage.session() as s:
        rows = s.scalars(select(RatingHistoryRow).where(RatingHistoryRow.game_id == game_id, RatingHistoryRow.seat.is_not(None))).all()
        return {
            r.seat: RatingChange(round((r.before_mu or 0) - 3 * (r.before_sigma or 0), 2), round(r.mu - 3 * r.sigma, 2), 1.0 if r.weight is None else r.weight)
            for r in rows if r.seat is not None
        }


def _sat(seat: type[SeatRow], holder: Holder) -> ColumnElement[bool]:
    kind, key = holder
    if kind is RatingKind.PERSON:
        return seat.account_id == key
    return and_(seat.kind == "bot", seat.name == key)


_ONE, _OTHER = aliased(SeatRow), aliased(SeatRow)  # made once: an alias builds its columns anew, some ms each time


def games_together(s: Session, first: Holder, second: Holder, since: datetime, but: str) -> int:
    """Finished rated games since `since` (but the game `but`) in which both holders sat."""
    query = (
        select(func.count(func.distinct(GameRow.id)))
        .join(_ONE, _ONE.game_id == GameRow.id).join(_OTHER, _OTHER.game_id == GameRow.id)
        .where(GameRow.rated.is_(True), GameRow.status == GameStatus.OVER.value, GameRow.updated >= since, GameRow.id != but)
        .where(_sat(_ONE, first), _sat(_OTHER, second), _ONE.seat != _OTHER.seat)
    )
    return int(s.scalar(query) or 0)


# ------------------------------------------------------------ legacy entries and attaching
def legacy(storage: Storage, limit: int = 200) -> list[Rating]:
    return board(storage, RatingKind.LEGACY, limit)


def attach(storage: Storage, legacy_name: str, account_id: int) -> Rating:
    """Make the legacy entry `legacy_name` the account's rating, history and all. Refused
    (nothing changed) for an unknown entry or an account that has a rating of its own,
    which would be lost or counted twice."""
    with storage.session() as s:
        row = s.scalar(select(RatingRow).where(RatingRow.kind == RatingKind.LEGACY.value, RatingRow.name == legacy_name))
        if row is None:
            raise NotFound("no_legacy", f"no unclaimed legacy rating is called {legacy_name!r} (`cantstop admin legacy` lists them)")
        own = s.scalar(select(RatingRow).where(RatingRow.account_id == account_id))
        if own is not None:
            raise Conflict("has_rating", f"the account has a rating of its own from {own.games} rated games: a legacy one is"
                           " attached only to an account without one, so that no game counts twice or is lost")
        s.execute(update(RatingRow).where(RatingRow.id == row.id).values(kind=RatingKind.PERSON.value, account_id=account_id, name=None))
        name = s.scalar(select(AccountRow.name).where(AccountRow.id == account_id))
        s.refresh(row)
        return _rating(row, name)
