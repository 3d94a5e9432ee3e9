"""The statements of every game's life, written once as plain SQL (SQLAlchemy Core) with
bound parameters: the hot reads and writes, where the ORM's bookkeeping cost more CPU
than the database did."""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from sqlalchemy import Integer, bindparam, select, text

from cantstop.web.db.moves import END
from cantstop.web.db.notify import CHANNEL, NOTICE_GAMES
from cantstop.web.db.rows import CHAT, EVENTS, GAMES, SEATS, SeatRow
from cantstop.web.db.values import GameStatus, SeatKind


class GameFields(NamedTuple):
    """A game's row as `GAME` reads it, by name (a driver hands out plain tuples)."""

    id: str
    variant: str
    first: int | None
    tags: dict[str, str] | None
    status: str
    winner: int | None
    version: int
    created: datetime
    updated: datetime | None
    rematch: str | None
    clock: int
    rated: bool
    to_move: int | None
    seen: datetime | None


# The reads on every game's and every connection's way: a game and its seats, its moves, a
# seat by its token or its account, its chat.
GAME = select(*(GAMES.c[name] for name in GameFields._fields)).where(GAMES.c.id == bindparam("key"))
SEATS_OF_GAME = (
    select(SeatRow.seat, SeatRow.kind, SeatRow.bot, SeatRow.name, SeatRow.account_id).where(SeatRow.game_id == bindparam("key")).order_by(SeatRow.seat)
)
EVENTS_AFTER = (
    select(EVENTS.c.kind, EVENTS.c.data)
    .where(EVENTS.c.game_id == bindparam("key"), EVENTS.c.seq > bindparam("after"), EVENTS.c.kind != END)
    .order_by(EVENTS.c.seq)
)
SEAT_OF_TOKEN = select(SEATS.c.seat).where(SEATS.c.game_id == bindparam("key"), SEATS.c.token_hash == bindparam("hash"))
SEAT_OF_ACCOUNT = select(SEATS.c.seat).where(SEATS.c.game_id == bindparam("key"), SEATS.c.account_id == bindparam("account"))
LAST_CHAT = (
    select(CHAT.c.id, CHAT.c.seat, CHAT.c.name, CHAT.c.text, CHAT.c.account_id, CHAT.c.created)
    .where(CHAT.c.game_id == bindparam("key")).order_by(CHAT.c.id.desc()).limit(bindparam("last", type_=Integer))
)
MUTED = select(GAMES.c.spectators_muted).where(GAMES.c.id == bindparam("key"))
# One conditional update each: a game starts only while still waiting, a seat is taken only while still open.
START = GAMES.update().where(GAMES.c.id == bindparam("key"), GAMES.c.status == GameStatus.WAITING.value).values(
    status=GameStatus.PLAYING.value, first=bindparam("first_seat"), tags=bindparam("new_tags"), updated=bindparam("stamp"),
    to_move=bindparam("first_seat"),
)
CLAIM = SEATS.update().where(
    SEATS.c.game_id == bindparam("key"), SEATS.c.seat == bindparam("number"), SEATS.c.kind == SeatKind.OPEN.value
).values(kind=SeatKind.PERSON.value, name=bindparam("new_name"), token_hash=bindparam("hash"), account_id=bindparam("account"))
SET_VERSION = GAMES.update().where(GAMES.c.id == bindparam("key")).values(
    version=bindparam("new_version"), updated=bindparam("stamp"), to_move=bindparam("next_seat")
)
# PostgreSQL: a whole group commit as one statement, run outside a transaction (one statement
# is atomic): the events inserted, each game's new version (and its winner, if the batch ends
# it) set, and the notice of it sent to every server process at commit. One round trip instead
# of four (BEGIN, the insert, the updates, COMMIT), and under load each round trip is a wait
# for the interpreter lock as well as for the network. Its notice names every game the batch
# moved (up to NOTICE_GAMES a notice): a listener wakes once for the batch, not once for each
# game, and PostgreSQL queues one notice. Its parameters: the time, and the events
# and the games as JSON text, one array per row: the driver adapts one string each, where eight
# Python lists took it a pass over each list and a dumper for every item.
APPEND_AND_NOTIFY = text(f"""
WITH stored AS (
    INSERT INTO {EVENTS.name} (game_id, seq, kind, data, created)
    SELECT e->>0, CAST(e->>1 AS integer), e->>2, e->>3, :stamp
    FROM json_array_elements(CAST(:events AS json)) AS e
), moved AS (
    UPDATE {GAMES.name} AS g SET version = CAST(m->>1 AS integer), updated = :stamp, to_move = CAST(m->>2 AS integer),
        status = CASE WHEN m->>3 IS NULL THEN g.status ELSE '{GameStatus.OVER.value}' END,
        winner = COALESCE(CAST(m->>3 AS integer), g.winner)
    FROM json_array_elements(CAST(:games AS json)) AS m
    WHERE g.id = m->>0
    RETURNING g.id, g.version
)
SELECT pg_notify('{CHANNEL}', string_agg(m.id || ' ' || m.version, ' '))
FROM (SELECT id, version, (row_number() OVER ()) / {NOTICE_GAMES} AS part FROM moved) AS m
GROUP BY m.part
""")
SET_WINNER = GAMES.update().where(GAMES.c.id == bindparam("key")).values(status=GameStatus.OVER.value, winner=bindparam("new_winner"))
# A person leaves a game before it starts: their seat is open again, their token holds nothing,
# and it is nobody's account's (else that account could never take a seat of the game again).
FREE = SEATS.update().where(
    SEATS.c.game_id == bindparam("key"), SEATS.c.seat == bindparam("number"), SEATS.c.kind == SeatKind.PERSON.value,
    SEATS.c.game_id.in_(select(GAMES.c.id).where(GAMES.c.id == bindparam("key"), GAMES.c.status == GameStatus.WAITING.value)),
).values(kind=SeatKind.OPEN.value, name=None, token_hash=None, account_id=None)
TOUCH_UPDATED = GAMES.update().where(GAMES.c.id == bindparam("key")).values(updated=bindparam("stamp"))
