"""Ratings in storage: one entry per account, per bot and per legacy name for each number of
players (2, 3 or 4: games of each are rated apart), the point each rated game left in an
entry's history, the trusted opponents each entry met, and the boards that list them.

A person's entry is keyed by their account, never by a name: a name can be typed by anyone,
an account only by its owner. The entries from before accounts (keyed by the name typed)
stay apart as legacy ones until an administrator attaches one to its owner's account.
Every function is a blocking call on the storage's engine (the server runs them off the
event loop).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import and_, func, or_, select, update
from sqlalchemy.orm import Session, aliased
from sqlalchemy.sql.elements import ColumnElement

from cantstop.web.db.rows import (
    GameRow,
    RatingHistoryRow,
    RatingOpponentRow,
    RatingRow,
    SeatRow,
    now,
)
from cantstop.web.db.storage import Storage
from cantstop.web.db.values import GameStatus, Rating, RatingKind, RatingPoint
from cantstop.web.errors import Conflict, NotFound
from cantstop.web.identity.rows import AccountRow
from cantstop.web.players import scale

# Who a rating entry is: (PERSON, account id), (BOT, 'bot:NAME') or (LEGACY, name).
Holder = tuple[RatingKind, int | str]


@dataclass(frozen=True)
class Result:
    """One seat's outcome of a rated game, to store: the entry as it is now, and as it was;
    the trusted opponents it met in this game, if the game counted for it."""

    seat: int
    holder: Holder
    after: Rating
    before: Rating
    weight: float
    played_as: str  # the name on the seat
    met: tuple[Holder, ...] = ()


def _rating(row: RatingRow, account_name: str | None) -> Rating:
    name = account_name if row.kind == RatingKind.PERSON else row.name
    return Rating(RatingKind(row.kind), name or "", row.mu, row.sigma, row.games, row.wins, row.account_id, row.id, row.players, row.opponents)


def _holder_filter(holder: Holder) -> ColumnElement[bool]:
    kind, key = holder
    if kind is RatingKind.PERSON:
        return RatingRow.account_id == key
    return and_(RatingRow.kind == kind.value, RatingRow.name == key)


def _entries(s: Session, holder: Holder, players: int | None = None, lock: bool = False) -> list[tuple[RatingRow, str | None]]:
    """The holder's stored rows (for games of `players`, or of every number), fewest players first."""
    query = select(RatingRow, AccountRow.name).outerjoin(AccountRow, AccountRow.id == RatingRow.account_id).where(_holder_filter(holder))
    if players is not None:
        query = query.where(RatingRow.players == players)
    query = query.order_by(RatingRow.players)
    return [(row, name) for row, name in s.execute(query.with_for_update(of=RatingRow) if lock else query).all()]


def _rows(s: Session, holders: list[Holder], players: int, lock: bool = False) -> dict[Holder, tuple[RatingRow, str | None]]:
    """The holders' stored rows for games of `players`; with `lock`, each row locked until the
    transaction ends (on PostgreSQL), taken in one fixed order so that two games locking the
    same entries never wait for each other."""
    found: dict[Holder, tuple[RatingRow, str | None]] = {}
    for holder in sorted(holders, key=lambda h: (h[0].value, str(h[1]))) if lock else holders:
        rows = _entries(s, holder, players, lock)
        if rows:
            found[holder] = rows[0]
    return found


def ratings(storage: Storage, holders: list[Holder], players: int) -> dict[Holder, Rating]:
    """The stored entries of these holders for games of `players` (a holder with no rated game
    of that many players yet has none)."""
    with storage.session() as s:
        return {holder: _rating(row, name) for holder, (row, name) in _rows(s, holders, players).items()}


def locked(s: Session, holders: list[Holder], players: int) -> dict[Holder, Rating]:
    """`ratings`, inside the caller's transaction, the rows locked until it ends: a rating is
    read and written back by one game at a time, so that two games finishing at once for the
    same account both count (read, rate, `save` in one transaction)."""
    return {holder: _rating(row, name) for holder, (row, name) in _rows(s, holders, players, lock=True).items()}


def save(s: Session, game_id: str, results: list[Result]) -> None:
    """Store a rated game's outcome in the caller's transaction: each entry as it now stands
    (the stored one `before` names by its id, else a new one: its first game), the trusted
    opponents it met that it had not met before, and a point of its history with the rating
    before, the seat, the game's weight and whether the rating is provisional after it."""
    stamp = now()
    rows: dict[Holder, RatingRow] = {}
    for r in results:
        # The entry read (and locked) before rating is in the session already: no query for it.
        row = s.get(RatingRow, r.before.id) if r.before.id is not None else None
        if row is None:
            kind, key = r.holder
            row = RatingRow(kind=kind.value, account_id=key if kind is RatingKind.PERSON else None,
                            name=None if kind is RatingKind.PERSON else str(key), players=r.before.players, opponents=0)
            s.add(row)
        row.mu, row.sigma, row.games, row.wins = r.after.mu, r.after.sigma, r.after.games, r.after.wins
        rows[r.holder] = row
    s.flush()  # every entry has its id: the opponents met are recorded by it
    for r in results:
        row = rows[r.holder]
        met = {rows[holder].id for holder in r.met} - set(
            s.scalars(select(RatingOpponentRow.opponent_id).where(RatingOpponentRow.rating_id == row.id)))
        s.add_all(RatingOpponentRow(rating_id=row.id, opponent_id=other) for other in sorted(met))
        row.opponents = (row.opponents or 0) + len(met)
        still = scale.provisional(row.games, row.opponents) and r.holder[0] is RatingKind.PERSON
        s.add(RatingHistoryRow(name=r.played_as, game_id=game_id, mu=r.after.mu, sigma=r.after.sigma, created=stamp,
                               rating_id=row.id, seat=r.seat, weight=r.weight, before_mu=r.before.mu, before_sigma=r.before.sigma,
                               provisional=still))


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


def established_filter() -> ColumnElement[bool]:
    """Entries no longer provisional (`players.scale`): a bot's, or one with enough counted
    games against enough distinct trusted opponents."""
    return or_(RatingRow.kind == RatingKind.BOT.value,
               and_(RatingRow.games >= scale.PROVISIONAL_GAMES, RatingRow.opponents >= scale.TRUSTED_OPPONENTS))


def board(storage: Storage, kind: RatingKind, players: int, limit: int = 50, provisional: bool = False) -> list[Rating]:
    """One board of games of `players`, best first by the rating shown (mu): people (live
    accounts only, and only those no longer provisional unless `provisional`), bots, or the
    legacy names nobody has claimed."""
    with storage.session() as s:
        query = select(RatingRow, AccountRow.name).outerjoin(AccountRow, AccountRow.id == RatingRow.account_id)
        query = query.where(RatingRow.kind == kind.value, RatingRow.players == players)
        if kind is RatingKind.PERSON:
            query = query.where(AccountRow.deleted.is_(None))
            if not provisional:
                query = query.where(established_filter())
        rows = s.execute(query.order_by(RatingRow.mu.desc(), RatingRow.id).limit(limit)).all()
        return [_rating(row, name) for row, name in rows]


def entry(storage: Storage, holder: Holder, players: int) -> Rating | None:
    return ratings(storage, [holder], players).get(holder)


def entries(storage: Storage, holder: Holder) -> list[Rating]:
    """The holder's entries, one for each number of players it has played rated, fewest first."""
    with storage.session() as s:
        return [_rating(row, name) for row, name in _entries(s, holder)]


def history(storage: Storage, rating_id: int) -> list[RatingPoint]:
    """An entry's rating after each of its rated games, oldest first."""
    with storage.session() as s:
        rows = s.scalars(select(RatingHistoryRow).where(RatingHistoryRow.rating_id == rating_id).order_by(RatingHistoryRow.id)).all()
        return [RatingPoint(r.game_id, r.created, r.mu, r.sigma, 1.0 if r.weight is None else r.weight, bool(r.provisional)) for r in rows]


@dataclass(frozen=True)
class RatingChange:
    """What one finished rated game did to a seat's rating, on the scale people read
    (`players.scale.shown`), the weight it counted with (less than 1 for a pair's repeated
    games and against provisional opponents), and whether the rating is provisional after it."""

    before: int
    after: int
    weight: float = 1.0
    provisional: bool = False

    @property
    def change(self) -> int:
        return self.after - self.before


def changes(storage: Storage, game_id: str) -> dict[int, RatingChange]:
    """Seat -> how its rating moved with the finished game `game_id`; empty for a game that
    rated nobody (friendly, solitaire, abandoned)."""
    with storage.session() as s:
        rows = s.scalars(select(RatingHistoryRow).where(RatingHistoryRow.game_id == game_id, RatingHistoryRow.seat.is_not(None))).all()
        return {
            r.seat: RatingChange(scale.shown(scale.MU0 if r.before_mu is None else r.before_mu), scale.shown(r.mu),
                                 1.0 if r.weight is None else r.weight, bool(r.provisional))
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
    """The legacy entries nobody has claimed, best first, of every number of players."""
    with storage.session() as s:
        rows = s.execute(select(RatingRow).where(RatingRow.kind == RatingKind.LEGACY.value)
                         .order_by(RatingRow.mu.desc(), RatingRow.id).limit(limit)).scalars().all()
        return [_rating(row, None) for row in rows]


def attach(storage: Storage, legacy_name: str, account_id: int) -> list[Rating]:
    """Make the legacy entries of `legacy_name` (one per number of players it was rated for)
    the account's ratings, history and all. Refused (nothing changed) for an unknown name, or
    an account that has a rating of its own for one of those numbers of players, which would
    be lost or counted twice."""
    with storage.session() as s:
        rows = s.scalars(select(RatingRow).where(RatingRow.kind == RatingKind.LEGACY.value, RatingRow.name == legacy_name)
                         .order_by(RatingRow.players)).all()
        if not rows:
            raise NotFound("no_legacy", f"no unclaimed legacy rating is called {legacy_name!r} (`cantstop admin legacy` lists them)")
        own = s.scalar(select(RatingRow).where(RatingRow.account_id == account_id, RatingRow.players.in_([r.players for r in rows])))
        if own is not None:
            raise Conflict("has_rating", f"the account has a {own.players}-player rating of its own from {own.games} rated games: a"
                           " legacy one is attached only to an account without one, so that no game counts twice or is lost")
        ids = [row.id for row in rows]
        s.execute(update(RatingRow).where(RatingRow.id.in_(ids)).values(kind=RatingKind.PERSON.value, account_id=account_id, name=None))
        name = s.scalar(select(AccountRow.name).where(AccountRow.id == account_id))
        for row in rows:
            s.refresh(row)
        return [_rating(row, name) for row in rows]
