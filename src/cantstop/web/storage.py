"""Storage behind one small interface: games, seats, events and ratings in any SQLAlchemy database.

An event row is one move of a game as its table made it (dice, a choice, stop, or a
fallback or forfeit its failure policy recorded); its `seq` is the game's version after it. The unique (game_id, seq) key is what makes a
duplicate or late action impossible to apply twice, even across server processes.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    String,
    Table,
    UniqueConstraint,
    bindparam,
    create_engine,
    event,
    select,
    text,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker

from cantstop.core.record import Event, Record, Roll
from cantstop.core.state import Decision
from cantstop.core.variant import preset
from cantstop.table import Kind, Move

MIGRATIONS = Path(__file__).with_name("migrations")
CHANNEL = "cantstop"  # the PostgreSQL LISTEN/NOTIFY channel of game changes


def default_url() -> str:
    """`CANTSTOP_DB`, or a SQLite file in the user's data directory."""
    if os.environ.get("CANTSTOP_DB"):
        return os.environ["CANTSTOP_DB"]
    import platformdirs

    folder = Path(platformdirs.user_data_dir("cantstop"))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'cantstop.sqlite3'}"


def new_token() -> str:
    """A seat's secret: 192 random bits, URL-safe."""
    return secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class Base(DeclarativeBase):
    pass


class GameRow(Base):
    __tablename__ = "games"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    variant: Mapped[str] = mapped_column(String(200))
    first: Mapped[int | None] = mapped_column(Integer, nullable=True)  # set when play starts
    tags: Mapped[dict[str, str]] = mapped_column(JSON, default=dict)
    status: Mapped[str] = mapped_column(String(16), index=True)  # waiting, playing, over
    winner: Mapped[int | None] = mapped_column(Integer, nullable=True)
    version: Mapped[int] = mapped_column(Integer, default=0)
    created: Mapped[datetime] = mapped_column(DateTime, default=now)
    updated: Mapped[datetime] = mapped_column(DateTime, default=now)
    rematch: Mapped[str | None] = mapped_column(String(32), nullable=True)  # the game its players started next
    clock: Mapped[int] = mapped_column(Integer, default=0, server_default="0")  # seconds per move, 0: none


class SeatRow(Base):
    __tablename__ = "seats"
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))  # open, person, bot
    bot: Mapped[str | None] = mapped_column(String(64), nullable=True)
    name: Mapped[str | None] = mapped_column(String(40), nullable=True, index=True)
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)


class EventRow(Base):
    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("game_id", "seq", name="uq_events_game_seq"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(8))  # dice, choice, decision
    data: Mapped[str] = mapped_column(String(64))  # JSON list of numbers, or the decision
    created: Mapped[datetime] = mapped_column(DateTime, default=now)


class PlayerRow(Base):
    __tablename__ = "players"
    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)


class RatingHistoryRow(Base):
    __tablename__ = "rating_history"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(40), index=True)
    game_id: Mapped[str | None] = mapped_column(ForeignKey("games.id"), nullable=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    created: Mapped[datetime] = mapped_column(DateTime, default=now)


@dataclass(frozen=True)
class Seat:
    seat: int
    kind: str  # "open", "person" or "bot"
    bot: str | None
    name: str | None


@dataclass(frozen=True)
class StoredGame:
    id: str
    variant: str
    first: int | None
    tags: dict[str, str]
    status: str
    winner: int | None
    version: int
    created: datetime
    seats: tuple[Seat, ...]
    rematch: str | None = None
    clock: int = 0  # seconds a person has for each move; 0: no clock
    updated: datetime | None = None  # when play started or the last move was stored (UTC)

    def record(self, events: list[Event]) -> Record:
        assert self.first is not None, "a waiting game has no record yet"
        return Record(
            preset(self.variant), [s.name or f"Seat {s.seat + 1}" for s in self.seats], self.first, events, dict(self.tags)
        )


class Skill:
    """An openskill estimate, mean `mu` and uncertainty `sigma`."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """The conservative skill estimate the leaderboard sorts by."""
        return self.mu - 3 * self.sigma


@dataclass(frozen=True)
class Rating(Skill):
    name: str
    mu: float
    sigma: float
    games: int
    wins: int


@dataclass(frozen=True)
class RatingPoint(Skill):
    """A player's rating as it stood after one rated game."""

    game_id: str | None
    at: datetime
    mu: float
    sigma: float


@dataclass(frozen=True)
class Append:
    """Moves to store: the game, its version after the first of them, the moves (several when
    the table's failure policy answered a timeout), and the winner if they end the game.
    The moves of one Append are stored together or not at all."""

    game_id: str
    seq: int
    moves: tuple[Move, ...]
    winner: int | None = None

    @property
    def last(self) -> int:
        return self.seq + len(self.moves) - 1


class StaleError(Exception):
    """Another action was stored at this version first."""


class RematchExists(Exception):
    """The finished game has its rematch already (its id is the argument)."""

    def __init__(self, game_id: str) -> None:
        super().__init__(game_id)
        self.game_id = game_id


STORED_CHARS = 64  # the `data` column's width


def encode_move(move: Move) -> tuple[str, str]:
    """A move as its stored row's (kind, data): dice, a choice or a decision as before the
    table layer; an out-of-band move (a fallback, a forfeit) as its kind and "SEAT reason"."""
    if move.out_of_band:
        return move.kind.value, f"{move.seat} {move.reason}"[:STORED_CHARS]
    item = move.event
    if isinstance(item, Roll):
        return "dice", json.dumps(list(item))
    if isinstance(item, tuple):
        return "choice", json.dumps(list(item))
    return "decision", str(item)


def decode_move(kind: str, data: str) -> Move:
    if kind == "dice":
        return Move.rolled(tuple(json.loads(data)))
    if kind == "choice":
        return Move.of(tuple(json.loads(data)))
    if kind == "decision":
        return Move.of(Decision(data))
    seat, _, reason = data.partition(" ")
    return Move(Kind(kind), seat=int(seat), reason=reason)


class Storage:
    """Everything the server keeps: one object, one database URL."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.sqlite = url.startswith("sqlite")
        kwargs: dict[str, Any] = {}
        if self.sqlite:
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
        else:
            kwargs["pool_size"] = 10
            kwargs["max_overflow"] = 20
        self.engine: Engine = create_engine(url, **kwargs)
        if self.sqlite:
            event.listen(self.engine, "connect", _sqlite_pragmas)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        # SQLite has one writer at a time: one thread for it avoids its busy-wait on locks.
        self.threads = 1 if self.sqlite else 8
        self.shared = not self.sqlite  # other server processes may write too

    def migrate(self) -> None:
        """Bring the schema up to date with the migrations shipped in the package."""
        from alembic import command
        from alembic.config import Config

        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        config.set_main_option("sqlalchemy.url", self.url.replace("%", "%%"))
        with self.engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "head")

    def close(self) -> None:
        self.engine.dispose()

    def checkpoint(self) -> None:
        """SQLite: copy what the write-ahead log holds into the database file, without waiting
        for (or holding up) anyone, so that the log is started over. Other databases: nothing."""
        if self.sqlite:
            with self.engine.connect() as conn:
                conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")

    @contextmanager
    def session(self) -> Iterator[Session]:
        with self._sessions() as session, session.begin():
            yield session

    # ------------------------------------------------------------------ games
    def create_game(
        self,
        variant: str,
        seats: list[tuple[str, str | None]],
        people: Mapping[int, tuple[str, str]] | None = None,
        rematch_of: str | None = None,
        clock: int = 0,
    ) -> str:
        """A new game with `seats` as (kind, bot name) pairs; returns its id. `people` maps open
        seats taken at once to (name, token), so nobody can join them in between. With
        `rematch_of`, the new game is recorded as that game's rematch in the same transaction:
        a game has one rematch, and RematchExists (nothing stored) says which one it is."""
        game_id = secrets.token_urlsafe(9)
        people = people or {}
        seat_rows = []
        for i, (kind, bot) in enumerate(seats):
            if i in people:
                name, token = people[i]
                seat_rows.append({"game_id": game_id, "seat": i, "kind": "person", "bot": None, "name": name, "token_hash": hash_token(token)})
            else:
                seat_rows.append({"game_id": game_id, "seat": i, "kind": kind, "bot": bot, "name": f"bot:{bot}" if bot else None, "token_hash": None})
        stamp = now()
        # Plain statements, as for the other writes of every game's life (claim_seat, start).
        with self.engine.begin() as conn:
            old = None
            if rematch_of is not None:
                old = conn.execute(select(_GAMES.c.rematch).where(_GAMES.c.id == rematch_of).with_for_update()).first()
                if old is not None and old.rematch is not None:
                    raise RematchExists(old.rematch)
            conn.execute(_GAMES.insert(), {
                "id": game_id, "variant": variant, "tags": {}, "status": "waiting", "version": 0, "clock": clock, "created": stamp, "updated": stamp,
            })
            conn.execute(_SEAT_ROWS.insert(), seat_rows)
            if rematch_of is not None and old is not None:  # the new game exists before the old one points at it
                conn.execute(_GAMES.update().where(_GAMES.c.id == rematch_of).values(rematch=game_id))
                self._notify(conn, rematch_of, -1)
        return game_id

    def game(self, game_id: str) -> StoredGame | None:
        # Plain statements rather than the ORM: every join, start and game end reads a game,
        # and the ORM's session took more CPU than the two queries did.
        with self.engine.connect() as conn:
            row = conn.execute(_GAME, {"key": game_id}).first()
            return None if row is None else self._stored(conn, row)

    def _stored(self, conn: Session | Connection, row: Any) -> StoredGame:
        """A game's row (an ORM row or a plain one: the same fields) with its seats."""
        seats = conn.execute(_SEATS, {"key": row.id}).all()
        return StoredGame(
            row.id, row.variant, row.first, dict(row.tags or {}), row.status, row.winner, row.version,
            row.created, tuple(Seat(*x) for x in seats), row.rematch, row.clock, row.updated,
        )

    def games(self, status: tuple[str, ...], limit: int = 50, player: str | None = None) -> list[StoredGame]:
        """Games of these statuses, the last moved first (only those `player` sits in, if given)."""
        with self.session() as s:
            query = select(GameRow).where(GameRow.status.in_(status))
            if player is not None:
                query = query.where(GameRow.id.in_(select(SeatRow.game_id).where(SeatRow.name == player)))
            rows = s.scalars(query.order_by(GameRow.updated.desc()).limit(limit)).all()
            return [self._stored(s, row) for row in rows]

    def claim_seat(self, game_id: str, seat: int, name: str) -> str | None:
        """Give an open seat to `name`; returns the secret token, or None if it was taken."""
        token = new_token()
        with self.engine.begin() as conn:  # one conditional update: taken only while still open
            if not conn.execute(_CLAIM, {"key": game_id, "number": seat, "new_name": name, "hash": hash_token(token)}).rowcount:
                return None
            self._notify(conn, game_id, -1)
        return token

    def seat_of(self, game_id: str, token: str) -> int | None:
        with self.engine.connect() as s:  # no ORM session for a read on every connection's way in
            return s.scalar(
                select(SeatRow.seat).where(SeatRow.game_id == game_id, SeatRow.token_hash == hash_token(token))
            )

    def start(self, game_id: str, first: int, tags: dict[str, str]) -> bool:
        """Mark a waiting game as playing; False if another process started it first."""
        with self.engine.begin() as conn:  # one conditional update: started only while still waiting
            if not conn.execute(_START, {"key": game_id, "first_seat": first, "new_tags": tags, "stamp": now()}).rowcount:
                return False
            self._notify(conn, game_id, -1)
        return True

    # ----------------------------------------------------------------- events
    def events(self, game_id: str, after: int = 0) -> list[Move]:
        with self.engine.connect() as s:  # as `game`: the read every catch-up makes
            rows = s.execute(
                select(EventRow.kind, EventRow.data)
                .where(EventRow.game_id == game_id, EventRow.seq > after)
                .order_by(EventRow.seq)
            ).all()
            return [decode_move(kind, data) for kind, data in rows]

    def append(self, game_id: str, seq: int, move: Move, winner: int | None = None) -> None:
        """Store move number `seq`; raises StaleError if that number is already taken."""
        if not self.append_many([Append(game_id, seq, (move,), winner)])[0]:
            raise StaleError(f"version {seq - 1} of game {game_id} already has a next action")

    def append_many(self, items: list[Append]) -> list[bool]:
        """Store several games' events in one transaction (a group commit); False where stale.

        One commit for many actions is what lets one SQLite file keep up with many games.
        If any is stale (another process stored that version first), each is retried alone.
        """
        try:
            with self.engine.begin() as conn:
                self._insert(conn, items)
            return [True] * len(items)
        except IntegrityError:
            if len(items) == 1:
                return [False]
        return [self.append_many([one])[0] for one in items]

    def _insert(self, conn: Connection, items: list[Append]) -> None:
        # Plain SQL statements (SQLAlchemy Core, executemany), not the ORM: this is the one hot
        # write, and the ORM's bookkeeping cost more than the database did.
        stamp = now()
        rows = []
        for a in items:
            for seq, move in enumerate(a.moves, a.seq):
                kind, data = encode_move(move)
                rows.append({"game_id": a.game_id, "seq": seq, "kind": kind, "data": data, "created": stamp})
        conn.execute(_EVENTS.insert(), rows)
        latest = {a.game_id: a for a in items}  # a batch may hold several events of one game
        conn.execute(_SET_VERSION, [{"key": a.game_id, "new_version": a.last, "stamp": stamp} for a in latest.values()])
        ended = [{"key": a.game_id, "new_winner": a.winner} for a in items if a.winner is not None]
        if ended:
            conn.execute(_SET_WINNER, ended)
        if self.shared:
            conn.execute(_NOTIFY, [{"channel": CHANNEL, "payload": f"{a.game_id} {a.last}"} for a in latest.values()])

    def _notify(self, s: Session | Connection, game_id: str, version: int) -> None:
        """PostgreSQL: tell every server process (at commit) that a game changed; -1 for its seats."""
        if self.shared:
            s.execute(_NOTIFY, {"channel": CHANNEL, "payload": f"{game_id} {version}"})

    def notify_chat(self, game_id: str, frame: str) -> None:
        """PostgreSQL: relay a chat frame (JSON text) to every server process."""
        with self.session() as s:
            s.execute(_NOTIFY, {"channel": CHANNEL, "payload": f"{game_id} {frame}"})

    # ---------------------------------------------------------------- ratings
    def ratings(self, names: list[str]) -> dict[str, Rating]:
        with self.session() as s:
            rows = s.scalars(select(PlayerRow).where(PlayerRow.name.in_(names))).all()
            return {r.name: Rating(r.name, r.mu, r.sigma, r.games, r.wins) for r in rows}

    def save_ratings(self, ratings: list[Rating], game_id: str | None = None) -> None:
        """Store new ratings; with `game_id`, also as each player's point after that game."""
        with self.session() as s:
            if game_id is not None:
                s.add_all(RatingHistoryRow(name=r.name, game_id=game_id, mu=r.mu, sigma=r.sigma, created=now()) for r in ratings)
            for r in ratings:
                row = s.get(PlayerRow, r.name)
                if row is None:
                    s.add(PlayerRow(name=r.name, mu=r.mu, sigma=r.sigma, games=r.games, wins=r.wins))
                else:
                    row.mu, row.sigma, row.games, row.wins = r.mu, r.sigma, r.games, r.wins

    def leaderboard(self, limit: int = 50) -> list[Rating]:
        with self.session() as s:
            rows = s.scalars(select(PlayerRow)).all()
            ratings = [Rating(r.name, r.mu, r.sigma, r.games, r.wins) for r in rows]
        return sorted(ratings, key=lambda r: -r.ordinal)[:limit]

    # ---------------------------------------------------------------- players
    def rating_history(self, name: str) -> list[RatingPoint]:
        """A player's rating after each rated game, oldest first."""
        with self.session() as s:
            rows = s.scalars(select(RatingHistoryRow).where(RatingHistoryRow.name == name).order_by(RatingHistoryRow.id)).all()
            return [RatingPoint(r.game_id, r.created, r.mu, r.sigma) for r in rows]

    def finished_games(self, name: str | None = None, limit: int = 50) -> list[tuple[StoredGame, list[Event]]]:
        """Finished games, newest first (only those `name` sat in, if given), with their record's events."""
        with self.session() as s:
            query = select(GameRow).where(GameRow.status == "over")
            if name is not None:
                query = query.where(GameRow.id.in_(select(SeatRow.game_id).where(SeatRow.name == name)))
            rows = s.scalars(query.order_by(GameRow.updated.desc(), GameRow.id).limit(limit)).all()
            games = [self._stored(s, row) for row in rows]
            events: dict[str, list[Event]] = {g.id: [] for g in games}
            found = s.execute(
                select(EventRow.game_id, EventRow.kind, EventRow.data)
                .where(EventRow.game_id.in_(list(events)))
                .order_by(EventRow.game_id, EventRow.seq)
            ).all()
            for game_id, kind, data in found:
                move = decode_move(kind, data)
                if not move.out_of_band:  # a fallback's note is no event of the record; its move follows it
                    events[game_id].append(move.event)
            return [(g, events[g.id]) for g in games]


_EVENTS: Table = EventRow.__table__  # type: ignore[assignment]
_GAMES: Table = GameRow.__table__  # type: ignore[assignment]
_GAME = select(_GAMES).where(_GAMES.c.id == bindparam("key"))
_SEAT_ROWS: Table = SeatRow.__table__  # type: ignore[assignment]
_START = _GAMES.update().where(_GAMES.c.id == bindparam("key"), _GAMES.c.status == "waiting").values(
    status="playing", first=bindparam("first_seat"), tags=bindparam("new_tags"), updated=bindparam("stamp")
)
_CLAIM = _SEAT_ROWS.update().where(
    _SEAT_ROWS.c.game_id == bindparam("key"), _SEAT_ROWS.c.seat == bindparam("number"), _SEAT_ROWS.c.kind == "open"
).values(kind="person", name=bindparam("new_name"), token_hash=bindparam("hash"))
_SEATS = select(SeatRow.seat, SeatRow.kind, SeatRow.bot, SeatRow.name).where(SeatRow.game_id == bindparam("key")).order_by(SeatRow.seat)
_SET_VERSION = _GAMES.update().where(_GAMES.c.id == bindparam("key")).values(version=bindparam("new_version"), updated=bindparam("stamp"))
_SET_WINNER = _GAMES.update().where(_GAMES.c.id == bindparam("key")).values(status="over", winner=bindparam("new_winner"))
_NOTIFY = text("SELECT pg_notify(:channel, :payload)")


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    # WAL lets readers work while a writer commits. NORMAL sync: a commit is written to the
    # log but not flushed to the disk, so a killed process loses nothing and only a power
    # cut or an operating system crash can lose the last commits (docs/deploy.md).
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    # No checkpoint inside a commit: one flushes the disk twice, and on a busy disk held up
    # every action of the batch for 100-300 ms. The server checkpoints in the background
    # (`Recorder`); the last connection to close checkpoints too, as always.
    cursor.execute("PRAGMA wal_autocheckpoint=0")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()
