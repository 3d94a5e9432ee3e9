"""Challenges in storage: each call is blocking (the service makes it off the event loop).

A challenge is made with both accounts' rows locked (PostgreSQL's FOR UPDATE; SQLite has
one writer at a time), so the count of an account's open challenges and the one open
challenge between two accounts hold however many pages challenge at once. Every answer is
a conditional update of an open row that has not expired: of two accepts racing (a double
click, two processes), one moves the row on and makes the game in the same transaction; the
other finds nothing open, and nothing is stored for it.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from sqlalchemy import and_, delete, func, or_, select, true, update
from sqlalchemy.engine import Connection
from sqlalchemy.orm import aliased

from cantstop.web.challenges.rows import CHALLENGES, GameChallengeRow
from cantstop.web.db.rows import GAMES
from cantstop.web.db.storage import Storage
from cantstop.web.db.tokens import new_token
from cantstop.web.db.values import GameStatus, SeatKind, Taker
from cantstop.web.errors import Conflict
from cantstop.web.identity.rows import AccountRow

ACCOUNTS = AccountRow.__table__
LASTS = timedelta(hours=24)  # a challenge not answered by then expires
KEPT = timedelta(days=30)  # a challenge answered (or expired) this long ago is deleted by the sweep


class ChallengeState(StrEnum):
    OPEN = "open"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    WITHDRAWN = "withdrawn"
    EXPIRED = "expired"


class SeatOrder(StrEnum):
    """The challenger's seat: A (the first), B, or one of the two drawn when it is accepted.
    Who moves first is the roll-off's, as in every game."""

    FIRST = "first"
    SECOND = "second"
    RANDOM = "random"


@dataclass(frozen=True)
class Challenge:
    id: str
    challenger_id: int
    challenger: str
    challenged_id: int
    challenged: str
    variant: str
    clock: int
    rated: bool
    seats: SeatOrder
    created: datetime
    expires: datetime
    state: ChallengeState
    answered: datetime | None
    game_id: str | None

    def state_at(self, at: datetime) -> ChallengeState:
        """Its state at `at`: an open challenge past its time is expired, stored so or not yet."""
        return ChallengeState.EXPIRED if self.state is ChallengeState.OPEN and self.expires <= at else self.state


def new_challenge_id() -> str:
    """12 URL-safe characters, as a game's id: not to be guessed."""
    return secrets.token_urlsafe(9)


def _open_at(at: datetime) -> Any:
    """The rows open at `at`."""
    return and_(CHALLENGES.c.state == ChallengeState.OPEN.value, CHALLENGES.c.expires > at)


def _between(first: int, second: int) -> Any:
    return or_(and_(CHALLENGES.c.challenger_id == first, CHALLENGES.c.challenged_id == second),
               and_(CHALLENGES.c.challenger_id == second, CHALLENGES.c.challenged_id == first))


def close_open(conn: Connection, account_id: int, at: datetime, to: Any = None, by: Any = None) -> int:
    """The account's open challenges close at `at`, in `conn`'s transaction: those it made
    (to whom `to` says) are withdrawn, those made to it (by whom `by` says) declined. How many
    it closed. A block closes the one between two accounts; a suspension, all of one's."""
    closed = 0
    for mine, where, state in ((CHALLENGES.c.challenger_id, true() if to is None else to, ChallengeState.WITHDRAWN),
                               (CHALLENGES.c.challenged_id, true() if by is None else by, ChallengeState.DECLINED)):
        closed += conn.execute(
            CHALLENGES.update().where(mine == account_id, where, CHALLENGES.c.state == ChallengeState.OPEN.value)
            .values(state=state.value, answered=at)
        ).rowcount
    return closed


class ChallengeStore:
    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.engine = storage.engine

    def _query(self) -> Any:
        """Challenges with both accounts' names, between accounts neither deleted nor closed."""
        by, to = aliased(AccountRow), aliased(AccountRow)
        return (select(GameChallengeRow, by.name, to.name)
                .join(by, by.id == GameChallengeRow.challenger_id).join(to, to.id == GameChallengeRow.challenged_id)
                .where(by.deleted.is_(None), by.closed.is_(None), to.deleted.is_(None), to.closed.is_(None)))

    @staticmethod
    def _challenge(row: GameChallengeRow, by: str | None, to: str | None) -> Challenge:
        return Challenge(row.id, row.challenger_id, by or "", row.challenged_id, to or "", row.variant, row.clock, bool(row.rated),
                         SeatOrder(row.seats), row.created, row.expires, ChallengeState(row.state), row.answered, row.game_id)

    def challenge(self, challenge_id: str) -> Challenge | None:
        """The challenge, if it exists between two accounts still open."""
        with self.storage.session() as s:
            found = s.execute(self._query().where(GameChallengeRow.id == challenge_id)).first()
            return None if found is None else self._challenge(*found)

    def mine(self, account_id: int, at: datetime, answered_since: datetime) -> list[Challenge]:
        """The account's challenges open at `at`, received and sent, and those it sent that
        were accepted, declined or expired since `answered_since`: the newest first."""
        row = GameChallengeRow
        still_open = and_(row.state == ChallengeState.OPEN.value, row.expires > at)
        answered = and_(row.challenger_id == account_id, row.state != ChallengeState.WITHDRAWN.value, or_(
            row.answered >= answered_since,
            and_(row.state == ChallengeState.OPEN.value, row.expires <= at, row.expires >= answered_since)))
        with self.storage.session() as s:
            rows = s.execute(self._query().where(or_(row.challenger_id == account_id, row.challenged_id == account_id),
                                                 or_(still_open, answered)).order_by(row.created.desc())).all()
            return [self._challenge(*r) for r in rows]

    def create(
        self, challenger: int, challenged: int, name: str, variant: str, clock: int, rated: bool, seats: SeatOrder, at: datetime,
        most: int,
    ) -> str:
        """A new open challenge, lasting LASTS from `at`; its id. Conflict `too_many` when the
        challenger has `most` open already, `challenged_already` when the two accounts have
        one open between them (`name` is the account challenged); nothing is stored then."""
        with self.engine.begin() as conn:
            # Both accounts locked, in one order: one challenge between them, and one
            # account's count, at a time.
            conn.execute(select(ACCOUNTS.c.id).where(ACCOUNTS.c.id.in_(sorted({challenger, challenged})))
                         .order_by(ACCOUNTS.c.id).with_for_update()).all()
            self._expire(conn, at, or_(CHALLENGES.c.challenger_id == challenger, _between(challenger, challenged)))
            count = conn.scalar(select(func.count()).select_from(CHALLENGES).where(
                CHALLENGES.c.challenger_id == challenger, CHALLENGES.c.state == ChallengeState.OPEN.value)) or 0
            if count >= most:
                raise Conflict("too_many", f"to: you have {count} open challenges, the most an account may have: withdraw one, or"
                               " wait for an answer")
            if conn.scalar(select(CHALLENGES.c.id).where(_between(challenger, challenged),
                                                         CHALLENGES.c.state == ChallengeState.OPEN.value).limit(1)) is not None:
                raise Conflict("challenged_already", f"to: there is an open challenge between you and {name} already: answer it"
                               " or withdraw it first")
            challenge_id = new_challenge_id()
            conn.execute(CHALLENGES.insert(), {
                "id": challenge_id, "challenger_id": challenger, "challenged_id": challenged, "variant": variant, "clock": clock,
                "rated": rated, "seats": seats.value, "created": at, "expires": at + LASTS, "state": ChallengeState.OPEN.value,
                "answered": None, "game_id": None,
            })
        return challenge_id

    def accept(self, challenge: Challenge, challenger_seat: int, at: datetime) -> str | None:
        """Accept the open challenge: in one transaction its row moves on (only if it is still
        open at `at`) and its game is made, both seats taken by the two accounts, the
        challenger's at `challenger_seat`. The game's id, to be started; None (nothing
        stored) if it was answered, withdrawn or expired first."""
        people = [(challenge.challenger_id, challenge.challenger), (challenge.challenged_id, challenge.challenged)]
        if challenger_seat == 1:
            people.reverse()
        with self.engine.begin() as conn:
            taken = conn.execute(
                CHALLENGES.update().where(CHALLENGES.c.id == challenge.id, _open_at(at))
                .values(state=ChallengeState.ACCEPTED.value, answered=at)
            ).rowcount
            if not taken:
                return None
            takers = {seat: Taker(name, new_token(), account) for seat, (account, name) in enumerate(people)}
            seats: list[tuple[SeatKind, str | None]] = [(SeatKind.OPEN, None), (SeatKind.OPEN, None)]
            game_id = Storage.insert_game(conn, challenge.variant, seats, takers, challenge.clock, challenge.rated)
            conn.execute(CHALLENGES.update().where(CHALLENGES.c.id == challenge.id).values(game_id=game_id))
        return game_id

    def close(self, challenge_id: str, account_id: int, state: ChallengeState, at: datetime) -> bool:
        """Decline (the account challenged) or withdraw (the challenger) a challenge open at
        `at`; False, nothing changed, if it was not open or not the account's to close so."""
        whose = CHALLENGES.c.challenged_id if state is ChallengeState.DECLINED else CHALLENGES.c.challenger_id
        with self.engine.begin() as conn:
            return bool(conn.execute(
                CHALLENGES.update().where(CHALLENGES.c.id == challenge_id, whose == account_id, _open_at(at))
                .values(state=state.value, answered=at)
            ).rowcount)

    def blocked(self, blocker: int, blocked: int, at: datetime) -> int:
        """A block between the two: the challenger's open challenge is withdrawn if the blocker
        made it, declined if the blocker was challenged. How many it closed."""
        with self.engine.begin() as conn:
            return close_open(conn, blocker, at, CHALLENGES.c.challenged_id == blocked, CHALLENGES.c.challenger_id == blocked)

    @staticmethod
    def _expire(conn: Connection, at: datetime, *where: Any) -> int:
        """Open challenges past their time are expired (as of their time)."""
        return int(conn.execute(
            update(GameChallengeRow).where(GameChallengeRow.state == ChallengeState.OPEN.value, GameChallengeRow.expires <= at, *where)
            .values(state=ChallengeState.EXPIRED.value, answered=GameChallengeRow.expires)
        ).rowcount)

    def sweep(self, at: datetime) -> tuple[int, list[str]]:
        """The sweeper's look: challenges past their time expire, those answered more than
        KEPT ago are deleted. How many expired, and the games of accepted challenges still
        waiting to start (a process stopped between making one and starting it)."""
        with self.engine.begin() as conn:
            expired = self._expire(conn, at)
            conn.execute(delete(GameChallengeRow).where(GameChallengeRow.answered < at - KEPT))
            waiting = conn.scalars(
                select(CHALLENGES.c.game_id).join(GAMES, GAMES.c.id == CHALLENGES.c.game_id)
                .where(CHALLENGES.c.state == ChallengeState.ACCEPTED.value, GAMES.c.status == GameStatus.WAITING.value)
            ).all()
        return expired, [game_id for game_id in waiting if game_id is not None]
