"""The statements of every game's life, written once as plain SQL (SQLAlchemy Core) with
bound parameters: the hot reads and writes, where the ORM's bookkeeping cost more CPU
than the database did."""

from __future__ import annotations

from sqlalchemy import bindparam, select, text

from cantstop.web.db.notify import CHANNEL
from cantstop.web.db.rows import EVENTS, GAMES, SEATS, SeatRow
from cantstop.web.db.values import GameStatus, SeatKind

GAME = select(GAMES).where(GAMES.c.id == bindparam("key"))
SEATS_OF_GAME = (
    select(SeatRow.seat, SeatRow.kind, SeatRow.bot, SeatRow.name, SeatRow.account_id).where(SeatRow.game_id == bindparam("key")).order_by(SeatRow.seat)
)
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
# for the interpreter lock as well as for the network. Its parameters: one array per column.
APPEND_AND_NOTIFY = text(f"""
WITH stored AS (
    INSERT INTO {EVENTS.name} (game_id, seq, kind, data, created)
    SELECT e.game_id, e.seq, e.kind, e.data, :stamp
    FROM unnest(CAST(:event_game AS varchar[]), CAST(:event_seq AS integer[]), CAST(:event_kind AS varchar[]),
                CAST(:event_data AS varchar[])) AS e(game_id, seq, kind, data)
), moved AS (
    UPDATE {GAMES.name} AS g SET version = m.version, updated = :stamp, to_move = m.to_move,
        status = CASE WHEN m.winner IS NULL THEN g.status ELSE '{GameStatus.OVER.value}' END,
        winner = COALESCE(m.winner, g.winner)
    FROM unnest(CAST(:game AS varchar[]), CAST(:version AS integer[]), CAST(:to_move AS integer[]),
                CAST(:winner AS integer[])) AS m(id, version, to_move, winner)
    WHERE g.id = m.id
    RETURNING g.id, g.version
)
SELECT pg_notify('{CHANNEL}', moved.id || ' ' || moved.version) FROM moved
""")
SET_WINNER = GAMES.update().where(GAMES.c.id == bindparam("key")).values(status=GameStatus.OVER.value, winner=bindparam("new_winner"))
# A person leaves a game before it starts: their seat is open again, their token holds nothing,
# and it is nobody's account's (else that account could never take a seat of the game again).
FREE = SEATS.update().where(
    SEATS.c.game_id == bindparam("key"), SEATS.c.seat == bindparam("number"), SEATS.c.kind == SeatKind.PERSON.value,
    SEATS.c.game_id.in_(select(GAMES.c.id).where(GAMES.c.id == bindparam("key"), GAMES.c.status == GameStatus.WAITING.value)),
).values(kind=SeatKind.OPEN.value, name=None, token_hash=None, account_id=None)
TOUCH_UPDATED = GAMES.update().where(GAMES.c.id == bindparam("key")).values(updated=bindparam("stamp"))
