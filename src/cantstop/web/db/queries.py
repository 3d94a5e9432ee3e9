"""The statements of every game's life, written once as plain SQL (SQLAlchemy Core) with
bound parameters: the hot reads and writes, where the ORM's bookkeeping cost more CPU
than the database did."""

from __future__ import annotations

from sqlalchemy import bindparam, func, select

from cantstop.web.db.rows import GAMES, SEATS, SeatRow
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
# PostgreSQL: a commit's new version and the notice of it to every server process in one
# statement (an UPDATE in a WITH runs whether or not the query reads it), a round trip
# fewer than two. Its parameters: SET_VERSION's, and `notify.notice`'s.
SET_VERSION_AND_NOTIFY = select(func.pg_notify(bindparam("channel"), bindparam("payload"))).select_from(
    SET_VERSION.returning(GAMES.c.id).cte("moved")
)
SET_WINNER = GAMES.update().where(GAMES.c.id == bindparam("key")).values(status=GameStatus.OVER.value, winner=bindparam("new_winner"))
# A person leaves a game before it starts: their seat is open again, their token holds nothing.
FREE = SEATS.update().where(
    SEATS.c.game_id == bindparam("key"), SEATS.c.seat == bindparam("number"), SEATS.c.kind == SeatKind.PERSON.value,
    SEATS.c.game_id.in_(select(GAMES.c.id).where(GAMES.c.id == bindparam("key"), GAMES.c.status == GameStatus.WAITING.value)),
).values(kind=SeatKind.OPEN.value, name=None, token_hash=None)
TOUCH_UPDATED = GAMES.update().where(GAMES.c.id == bindparam("key")).values(updated=bindparam("stamp"))
