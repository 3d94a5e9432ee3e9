"""Storage behind one small interface: games, seats, events and chat messages in any
SQLAlchemy database (ratings have their own room: `web.players.standings`).

Every method is a blocking call: the server makes them off its event loop (`Recorder`).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, delete, false, or_, select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from cantstop.core.record import Event
from cantstop.table import Move, StaleMoveError
from cantstop.web.db import queries
from cantstop.web.db.driver import Driver, Read, sqlalchemy_reading
from cantstop.web.db.engine import checkpoint, is_sqlite, migrate, open_engine
from cantstop.web.db.moves import END, STORED_CHARS, decode_move, encode_move, recorded
from cantstop.web.db.notify import NOTIFY, notice
from cantstop.web.db.queries import GameFields
from cantstop.web.db.rows import (
    CHAT,
    EVENTS,
    GAMES,
    SEATS,
    EventRow,
    GameRow,
    SeatLinkRow,
    SeatRow,
    now,
)
from cantstop.web.db.tokens import hash_token, new_game_id, new_token
from cantstop.web.db.values import (
    ENDED,
    Append,
    ChatLine,
    GameStatus,
    RematchExists,
    Seat,
    SeatKind,
    StoredGame,
    Taker,
)

DEADLOCK = "40P01"  # PostgreSQL's SQLSTATE for a transaction undone to break a deadlock
DEADLOCK_TRIES = 3
SEEN_CHUNK = 500  # game ids per statement when writing down which games players have open


class Storage:
    """Everything the server keeps: one object, one database URL."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.sqlite = is_sqlite(url)
        self.engine = open_engine(url)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        # Threads for every storage call but the group commit (which has its own: `Recorder`).
        # SQLite: one, as it has one writer at a time (more would busy-wait on its lock).
        # PostgreSQL: two. Each thread's statements need the interpreter lock the event loop
        # plays every move with; eight of them, in a wave of games being set up, held the
        # moves up (action p99 147-166 ms with eight, 134-156 with three, 121-129 with two:
        # docs/performance.md).
        self.threads = 1 if self.sqlite else 2
        self.shared = not self.sqlite  # other server processes may write too
        # PostgreSQL runs the hot reads and the group commit outside a transaction: at its
        # READ COMMITTED level each statement sees its own snapshot inside one too, and BEGIN
        # and ROLLBACK were two round trips of every read (each, under load, also a wait for
        # the interpreter lock). SQLite's driver begins no transaction for a read anyway.
        self.autocommit = open_engine(url, autocommit=True) if self.shared else self.engine
        # PostgreSQL runs those on psycopg itself, SQLAlchemy's execution left out (`driver`).
        self.driver = Driver(self.autocommit) if self.shared else None

    def migrate(self) -> None:
        """Bring the schema up to date with the migrations shipped in the package."""
        migrate(self.engine, self.url)

    def close(self) -> None:
        self.engine.dispose()
        if self.autocommit is not self.engine:
            self.autocommit.dispose()

    def checkpoint(self) -> None:
        """SQLite: start the write-ahead log over (see `engine.checkpoint`). Other databases: nothing."""
        if self.sqlite:
            checkpoint(self.engine)

    @contextmanager
    def reading(self) -> Iterator[Read]:
        """The way of the hot reads (`queries`): a function that runs a statement and returns
        its rows, on one connection, each statement on its own."""
        if self.driver is not None:
            with self.driver.reading() as read:
                yield read
        else:
            with sqlalchemy_reading(self.engine) as read:
                yield read

    @contextmanager
    def session(self) -> Iterator[Session]:
        with self._sessions() as session, session.begin():
            yield session

    # ------------------------------------------------------------------ games
    def create_game(
        self,
        variant: str,
        seats: list[tuple[SeatKind, str | None]],
        people: Mapping[int, Taker] | None = None,
        rematch_of: str | None = None,
        clock: int = 0,
        rated: bool = False,
    ) -> str:
        """A new game with `seats` as (kind, bot name) pairs; returns its id. `people` maps open
        seats taken at once to who takes them, so nobody can join them in between. With
        `rematch_of`, the new game is recorded as that game's rematch in the same transaction:
        a game has one rematch, and RematchExists (nothing stored) says which one it is."""
        with self.engine.begin() as conn:
            old = None
            if rematch_of is not None:
                old = conn.execute(select(GAMES.c.rematch).where(GAMES.c.id == rematch_of).with_for_update()).first()
                if old is not None and old.rematch is not None:
                    raise RematchExists(old.rematch)
            game_id = self.insert_game(conn, variant, seats, people, clock, rated)
            if rematch_of is not None and old is not None:  # the new game exists before the old one points at it
                conn.execute(GAMES.update().where(GAMES.c.id == rematch_of).values(rematch=game_id))
                self._notify(conn, rematch_of, -1)
        return game_id

    @staticmethod
    def insert_game(
        conn: Connection, variant: str, seats: list[tuple[SeatKind, str | None]], people: Mapping[int, Taker] | None = None,
        clock: int = 0, rated: bool = False, tags: Mapping[str, str] | None = None,
    ) -> str:
        """`create_game`'s rows, in the caller's transaction (a tournament's round makes its
        games in the transaction that pairs it); `tags` go into the record's header. Returns
        the new game's id."""
        game_id = new_game_id()
        people = people or {}
        seat_rows = []
        for i, (kind, bot) in enumerate(seats):
            if i in people:
                taker = Taker(*people[i])  # a plain (name, token) pair is a guest's
                seat_rows.append({"game_id": game_id, "seat": i, "kind": SeatKind.PERSON.value, "bot": None, "name": taker.name,
                                  "token_hash": hash_token(taker.token), "account_id": taker.account_id})
            else:
                seat_rows.append({"game_id": game_id, "seat": i, "kind": SeatKind(kind).value, "bot": bot, "name": f"bot:{bot}" if bot else None,
                                  "token_hash": None, "account_id": None})
        stamp = now()
        # Plain statements, as for the other writes of every game's life (claim_seat, start).
        conn.execute(GAMES.insert(), {
            "id": game_id, "variant": variant, "tags": dict(tags or {}), "status": GameStatus.WAITING.value, "version": 0,
            "clock": clock, "created": stamp, "updated": stamp, "rated": rated,
        })
        conn.execute(SEATS.insert(), seat_rows)
        return game_id

    def game(self, game_id: str) -> StoredGame | None:
        # Plain statements rather than the ORM: every join, start and game end reads a game,
        # and the ORM's session took more CPU than the two queries did.
        with self.reading() as read:
            found = read(queries.GAME, {"key": game_id})
            return stored_game(GameFields._make(found[0]), read(queries.SEATS_OF_GAME, {"key": game_id})) if found else None

    def _read(self, conn: Connection, game_id: str) -> StoredGame:
        """A game that exists (its row was just written), read in the caller's transaction."""
        row = conn.execute(queries.GAME, {"key": game_id}).one()
        return self._stored(conn, row)

    def _stored(self, conn: Session | Connection, row: Any) -> StoredGame:
        """A game's row (an ORM row or a plain one: the same fields) with its seats."""
        return stored_game(row, conn.execute(queries.SEATS_OF_GAME, {"key": row.id}).all())

    def games(
        self, status: tuple[GameStatus, ...], limit: int = 50, player: str | None = None, account: int | None = None,
        with_bots: bool = False,
    ) -> list[StoredGame]:
        """Games of these statuses, the last moved first: only those a guest called `player` sat
        in (a seat of no account), or those the account `account` sat in, if given; only those
        with a bot seat, `with_bots`."""
        with self.session() as s:
            query = select(GameRow).where(GameRow.status.in_([GameStatus(x).value for x in status]))
            if with_bots:
                query = query.where(GameRow.id.in_(select(SeatRow.game_id).where(SeatRow.kind == SeatKind.BOT.value)))
            rows = s.scalars(_sat_in(query, player, account).order_by(GameRow.updated.desc()).limit(limit)).all()
            return [self._stored(s, row) for row in rows]

    def claim_seat(self, game_id: str, seat: int, name: str, account_id: int | None = None) -> tuple[str, StoredGame] | None:
        """Give an open seat to `name` (of the account `account_id`, if signed in); returns the
        secret token and the game as it stands with the seat taken, or None if it was taken.

        The game is read after its row is locked: of two processes taking a game's last two
        seats at once, the second sees the first's seat taken (and starts the game)."""
        token = new_token()
        with self.engine.begin() as conn:
            claim = {"key": game_id, "number": seat, "new_name": name, "hash": hash_token(token), "account": account_id}
            if not conn.execute(queries.CLAIM, claim).rowcount:
                return None
            conn.execute(queries.TOUCH_UPDATED, {"key": game_id, "stamp": now()})  # someone came: the game is not idle
            self._notify(conn, game_id, -1)
            game = self._read(conn, game_id)
        return token, game

    def free_seat(self, game_id: str, seat: int) -> bool:
        """Open a person's seat again in a game still waiting for players (they left before it
        started); its token holds nothing any more. False if the game started or the seat is no person's."""
        with self.engine.begin() as conn:
            if not conn.execute(queries.FREE, {"key": game_id, "number": seat}).rowcount:
                return False
            conn.execute(queries.TOUCH_UPDATED, {"key": game_id, "stamp": now()})
            self._notify(conn, game_id, -1)
        return True

    def seat_of(self, game_id: str, token: str) -> int | None:
        with self.reading() as read:  # no ORM session for a read on every connection's way in
            found = read(queries.SEAT_OF_TOKEN, {"key": game_id, "hash": hash_token(token)})
        return found[0][0] if found else None

    def seat_of_account(self, game_id: str, account_id: int) -> int | None:
        """The seat the account holds in the game, if any (an account takes one seat a game)."""
        with self.reading() as read:
            found = read(queries.SEAT_OF_ACCOUNT, {"key": game_id, "account": account_id})
        return found[0][0] if found else None

    def held_games(self, tokens: Mapping[str, str], status: tuple[GameStatus, ...]) -> list[tuple[StoredGame, int]]:
        """The games of these statuses in which a token of `tokens` (game id -> token) holds a
        seat, each with that seat, the last moved first."""
        hashes = {hash_token(token): game_id for game_id, token in tokens.items()}
        if not hashes:
            return []
        with self.session() as s:
            held = s.execute(
                select(SeatRow.game_id, SeatRow.seat).join(GameRow, GameRow.id == SeatRow.game_id)
                .where(SeatRow.token_hash.in_(list(hashes)), GameRow.status.in_([GameStatus(x).value for x in status]))
            ).all()
            seat_of = {game_id: seat for game_id, seat in held}
            rows = s.scalars(select(GameRow).where(GameRow.id.in_(list(seat_of))).order_by(GameRow.updated.desc())).all()
            return [(self._stored(s, row), seat_of[row.id]) for row in rows]

    def make_seat_link(self, game_id: str, seat: int, lasts: timedelta) -> str:
        """A one-time code that moves the seat (a guest's, held by its token) to whoever uses it
        within `lasts`; expired links are swept out on the way."""
        code = secrets.token_urlsafe(18)
        stamp = now()
        with self.session() as s:
            s.execute(delete(SeatLinkRow).where(SeatLinkRow.expires < stamp))
            held = s.scalar(select(SeatRow.token_hash).where(SeatRow.game_id == game_id, SeatRow.seat == seat))
            s.add(SeatLinkRow(code_hash=hash_token(code), game_id=game_id, seat=seat, token_hash=held or "", expires=stamp + lasts))
        return code

    def use_seat_link(self, game_id: str, code: str) -> tuple[int, str] | None:
        """Move the seat a link's code names to a new token (the old one holds nothing any more):
        the seat and its token; None (nothing changed) for a code that is unknown, used,
        expired, of another game, or made before the seat moved by another link."""
        token = new_token()
        with self.session() as s:
            link = s.get(SeatLinkRow, hash_token(code), with_for_update=True)
            if link is None:
                return None
            s.delete(link)  # used once, whatever follows
            if link.game_id != game_id or link.expires < now():
                return None
            seat = s.scalar(select(SeatRow).where(SeatRow.game_id == game_id, SeatRow.seat == link.seat).with_for_update())
            if seat is None or seat.token_hash != link.token_hash or seat.account_id is not None:
                return None
            seat.token_hash = hash_token(token)
            self._notify(s, game_id, -1)
            return link.seat, token

    def start(self, game_id: str, first: int, tags: dict[str, str]) -> StoredGame | None:
        """Mark a waiting game as playing; returns it as started, or None if another process
        started it first."""
        with self.engine.begin() as conn:
            if not conn.execute(queries.START, {"key": game_id, "first_seat": first, "new_tags": tags, "stamp": now()}).rowcount:
                return None
            self._notify(conn, game_id, -1)
            return self._read(conn, game_id)

    # ------------------------------------------------------------- game ends
    def end_game(self, game_id: str, version: int, status: GameStatus, reason: str, idle_before: datetime | None = None) -> bool:
        """End a game without a winner (status ABANDONED; the record's `Ended` tag gives
        `reason`), found at `version` and `status`, with an `end` row under the next version,
        so that no move can be stored after it and no other process ends it twice. With
        `idle_before`, only if nothing happened to the game since then and no player had it
        open since then. False, nothing stored, if any of that no longer holds."""
        stamp = now()
        try:
            with self.engine.begin() as conn:
                row = conn.execute(queries.GAME, {"key": game_id}).first()
                if row is None:
                    return False
                tags = {**(row.tags or {}), "Ended": reason}
                conn.execute(EVENTS.insert(), {"game_id": game_id, "seq": version + 1, "kind": END, "data": reason[:STORED_CHARS], "created": stamp})
                ending = GAMES.update().where(GAMES.c.id == game_id, GAMES.c.status == status.value, GAMES.c.version == version)
                if idle_before is not None:
                    ending = ending.where(GAMES.c.updated <= idle_before, or_(GAMES.c.seen.is_(None), GAMES.c.seen <= idle_before))
                if not conn.execute(ending.values(status=GameStatus.ABANDONED.value, tags=tags, updated=stamp)).rowcount:
                    raise _Changed  # rolls the end row back
                self._notify(conn, game_id, -1)
        except (IntegrityError, _Changed):  # a move (or another process's end) took that version first
            return False
        return True

    def seen_now(self, game_ids: list[str], at: datetime) -> None:
        """These games were open in a player's browser at `at` (their abandonment waits).

        A game whose row another transaction holds is passed over (PostgreSQL's SKIP LOCKED):
        a group commit moving it sets its `updated`, which keeps it from idling just as well,
        and waiting for it could deadlock, as the two take their rows in no common order."""
        with self.engine.begin() as conn:
            for start in range(0, len(game_ids), SEEN_CHUNK):
                free = select(GAMES.c.id).where(GAMES.c.id.in_(game_ids[start:start + SEEN_CHUNK])).with_for_update(skip_locked=True)
                conn.execute(GAMES.update().where(GAMES.c.id.in_(free)).values(seen=at))

    def overdue(self, clocks: Mapping[int, datetime], idle_before: datetime, limit: int = 1000) -> list[tuple[str, bool]]:
        """Games a sweep must look at, as (id, timed): `timed`, a game in play whose move
        clock of C seconds may run out soon, as its last change came before `clocks[C]`;
        else a game with no clock running (waiting for players, or played without a clock)
        that nothing happened to and no player had open since `idle_before`. Oldest first."""
        timed = and_(
            GAMES.c.status == GameStatus.PLAYING.value,
            or_(false(), *(and_(GAMES.c.clock == clock, GAMES.c.updated <= due) for clock, due in clocks.items() if clock)),
        )
        unclocked = or_(GAMES.c.status == GameStatus.WAITING.value, and_(GAMES.c.status == GameStatus.PLAYING.value, GAMES.c.clock == 0))
        idle = and_(unclocked, GAMES.c.updated <= idle_before, or_(GAMES.c.seen.is_(None), GAMES.c.seen <= idle_before))
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(GAMES.c.id, GAMES.c.status, GAMES.c.clock).where(or_(timed, idle)).order_by(GAMES.c.updated).limit(limit)
            ).all()
        return [(game_id, status == GameStatus.PLAYING.value and clock != 0) for game_id, status, clock in rows]

    # ----------------------------------------------------------------- events
    def events(self, game_id: str, after: int = 0) -> list[Move]:
        """The moves stored after version `after` (a game's `end` row is no move: see `end_game`)."""
        with self.reading() as read:  # as `game`: the read every catch-up makes
            rows = read(queries.EVENTS_AFTER, {"key": game_id, "after": after})
        return [decode_move(kind, data) for kind, data in rows]

    def append(self, game_id: str, seq: int, move: Move, winner: int | None = None, to_move: int | None = None) -> None:
        """Store move number `seq`; StaleMoveError if that number is already taken."""
        if not self.append_many([Append(game_id, seq, (move,), winner, to_move)])[0]:
            raise StaleMoveError(seq - 1)

    def append_many(self, items: list[Append]) -> list[bool]:
        """Store several games' events in one transaction (a group commit); False where stale.

        One commit for many actions is what lets one SQLite file keep up with many games.
        If any is stale (another process stored that version first), each is retried alone.
        """
        try:
            if self.shared:
                self._append_statement(items)
            else:
                with self.engine.begin() as conn:
                    self._insert(conn, items)
            return [True] * len(items)
        except IntegrityError:
            if len(items) == 1:
                return [False]
        return [self.append_many([one])[0] for one in items]

    def _append_statement(self, items: list[Append]) -> None:
        """PostgreSQL's group commit, one statement, atomic on its own. Its rows are locked in
        no set order, so with another server process's commit (or any transaction holding
        several games' rows) it can deadlock: the one PostgreSQL picks is undone whole and
        tried again, as PostgreSQL's manual advises."""
        assert self.driver is not None, "PostgreSQL's"
        for attempt in range(DEADLOCK_TRIES):
            try:
                self.driver.execute(queries.APPEND_AND_NOTIFY, self._columns(items))
                return
            except OperationalError as error:
                if getattr(error.orig, "sqlstate", None) != DEADLOCK or attempt == DEADLOCK_TRIES - 1:
                    raise

    @staticmethod
    def _events(items: list[Append]) -> Iterator[tuple[str, int, str, str]]:
        """(game, seq, kind, data) of every event of the batch."""
        for a in items:
            for seq, move in enumerate(a.moves, a.seq):
                yield (a.game_id, seq, *encode_move(move))

    @staticmethod
    def _last_of_each_game(items: list[Append]) -> list[Append]:
        """A batch may hold several Appends of one game: the last says where it stands."""
        return list({a.game_id: a for a in items}.values())

    def _insert(self, conn: Connection, items: list[Append]) -> None:
        # Plain SQL statements (executemany), not the ORM: this is the one hot write.
        stamp = now()
        rows = [{"game_id": g, "seq": seq, "kind": kind, "data": data, "created": stamp} for g, seq, kind, data in self._events(items)]
        conn.execute(EVENTS.insert(), rows)
        latest = self._last_of_each_game(items)
        conn.execute(queries.SET_VERSION, [{"key": a.game_id, "new_version": a.last, "stamp": stamp, "next_seat": a.to_move} for a in latest])
        ended = [{"key": a.game_id, "new_winner": a.winner} for a in latest if a.winner is not None]
        if ended:
            conn.execute(queries.SET_WINNER, ended)

    def _columns(self, items: list[Append]) -> dict[str, Any]:
        """PostgreSQL's one-statement group commit's parameters: the events (game, seq, kind,
        data) and the games (id, version, seat to move, winner) as JSON arrays of arrays."""
        games = [(a.game_id, a.last, a.to_move, a.winner) for a in self._last_of_each_game(items)]
        return {"stamp": now(), "events": json.dumps(list(self._events(items))), "games": json.dumps(games)}

    def _notify(self, s: Session | Connection, game_id: str, version: int) -> None:
        """PostgreSQL: tell every server process (at commit) that a game changed; -1 for its seats."""
        if self.shared:
            s.execute(NOTIFY, notice(game_id, version))

    # ------------------------------------------------------------------- chat
    def say(self, line: ChatLine) -> ChatLine:
        """Store a chat message; returns it with its number and time. On PostgreSQL every
        server process is told (its frame, at commit), as it is of a move."""
        stamp = now()
        with self.engine.begin() as conn:
            row = {"game_id": line.game_id, "seat": line.seat, "spectator": line.seat is None, "name": line.name,
                   "account_id": line.account_id, "text": line.text, "created": stamp}
            key = conn.execute(CHAT.insert(), row).inserted_primary_key
            assert key is not None, "an insert has a key"
            stored = replace(line, id=key[0], at=stamp)
            if self.shared:
                conn.execute(NOTIFY, notice(line.game_id, json.dumps(stored.relayed())))
        return stored

    def mute_spectators(self, game_id: str, on: bool, frame: str) -> None:
        """Let only the players chat (`on`), or everyone; on PostgreSQL `frame` (JSON text,
        saying so) goes to every server process at commit."""
        with self.engine.begin() as conn:
            conn.execute(GAMES.update().where(GAMES.c.id == game_id).values(spectators_muted=on))
            if self.shared:
                conn.execute(NOTIFY, notice(game_id, frame))

    def chat(self, game_id: str, last: int) -> tuple[list[ChatLine], bool]:
        """A game's `last` chat messages, oldest first, and whether spectators are muted."""
        with self.reading() as read:
            rows = read(queries.LAST_CHAT, {"key": game_id, "last": last})
            muted = read(queries.MUTED, {"key": game_id})
        lines = [ChatLine(game_id, seat, name, text, account, number, at) for number, seat, name, text, account, at in reversed(rows)]
        return lines, bool(muted and muted[0][0])

    # ---------------------------------------------------------------- players
    def finished_games(
        self, name: str | None = None, limit: int = 50, account: int | None = None,
    ) -> list[tuple[StoredGame, list[Event]]]:
        """Finished games (won or abandoned), newest first (only those `name` sat in as a guest
        or a bot, or the account `account` sat in, if given), with their record's events."""
        with self.session() as s:
            query = select(GameRow).where(GameRow.status.in_([status.value for status in ENDED]))
            rows = s.scalars(_sat_in(query, name, account).order_by(GameRow.updated.desc(), GameRow.id).limit(limit)).all()
            games = [self._stored(s, row) for row in rows]
            moves: dict[str, list[Move]] = {g.id: [] for g in games}
            found = s.execute(
                select(EventRow.game_id, EventRow.kind, EventRow.data)
                .where(EventRow.game_id.in_(list(moves)), EventRow.kind != END)
                .order_by(EventRow.game_id, EventRow.seq)
            ).all()
            for game_id, kind, data in found:
                moves[game_id].append(decode_move(kind, data))
            return [(g, recorded(moves[g.id])) for g in games]


def stored_game(row: Any, seats: Iterable[Sequence[Any]]) -> StoredGame:
    """A game's row (`GameFields`, or an ORM row: the same fields by name) and its seats'
    (`queries.SEATS_OF_GAME`) as the value storage hands out."""
    return StoredGame(
        row.id, row.variant, row.first, dict(row.tags or {}), GameStatus(row.status), row.winner, row.version,
        row.created, tuple(Seat(seat, SeatKind(kind), bot, name, account) for seat, kind, bot, name, account in seats),
        row.rematch, row.clock, row.updated, bool(row.rated), row.to_move, row.seen,
    )


def _sat_in(query: Any, name: str | None, account: int | None) -> Any:
    """`query` of games narrowed to those a seat of no account called `name`, or the account
    `account`, sat in: an account's games are its own, never a guest's of the same name."""
    if account is not None:
        return query.where(GameRow.id.in_(select(SeatRow.game_id).where(SeatRow.account_id == account)))
    if name is not None:
        return query.where(GameRow.id.in_(select(SeatRow.game_id).where(SeatRow.name == name, SeatRow.account_id.is_(None))))
    return query


class _Changed(Exception):
    """The game changed since it was read: the transaction is rolled back."""
