"""Quick pairing's requests in storage: each call is blocking (the service makes it off the
event loop).

A table is claimed in one transaction: its requests are locked in the order of their ids
(PostgreSQL's FOR UPDATE SKIP LOCKED: a request another process is claiming is passed over,
not waited for), its game is made with their seats taken, and each request moves from
waiting to paired by a conditional update. If any of them is no longer waiting (claimed,
cancelled or expired meanwhile) the whole transaction is rolled back and nothing is stored,
so however many processes pair the same queue, a request is paired once.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from cantstop.web.db.notify import NOTIFY, TOPIC, notice
from cantstop.web.db.rows import SEATS
from cantstop.web.db.storage import Storage
from cantstop.web.db.tokens import hash_token, new_token
from cantstop.web.db.values import SeatKind, Taker
from cantstop.web.errors import Conflict
from cantstop.web.pairing.rows import REQUESTS
from cantstop.web.social.rows import BlockRow

PAIRING_TOPIC = f"{TOPIC}pairing"  # the notice every process hears when requests are paired (their ids follow)
BLOCKS = BlockRow.__table__


class RequestState(StrEnum):
    WAITING = "waiting"
    PAIRED = "paired"
    CANCELLED = "cancelled"  # by its holder, or to play a bot instead
    EXPIRED = "expired"  # its holder stopped looking


@dataclass(frozen=True)
class Stored:
    id: str
    token_hash: str
    account_id: int | None
    name: str
    variant: str
    players: int
    clock: int
    rated: bool
    rating: int
    asked: datetime
    seen: datetime
    state: RequestState
    game_id: str | None
    seat: int | None


def _stored(r: Any) -> Stored:
    return Stored(r.id, r.token_hash, r.account_id, r.name, r.variant, r.players, r.clock, bool(r.rated), r.rating, r.asked,
                  r.seen, RequestState(r.state), r.game_id, r.seat)


class _Taken(Exception):
    """A request of the table is no longer waiting: the claim is rolled back."""


class PairingStore:
    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.engine = storage.engine

    # ------------------------------------------------------------- reading
    def mine(self, account_id: int | None, token: str | None) -> Stored | None:
        """The latest request of the account, else the one the token holds."""
        with self.engine.connect() as conn:
            row = None
            if account_id is not None:
                row = conn.execute(select(REQUESTS).where(REQUESTS.c.account_id == account_id)
                                   .order_by(REQUESTS.c.asked.desc(), REQUESTS.c.id).limit(1)).first()
            if row is None and token:
                row = conn.execute(select(REQUESTS).where(REQUESTS.c.token_hash == hash_token(token))).first()
        return None if row is None else _stored(row)

    def waiting(self, limit: int) -> list[Stored]:
        """The requests waiting, the oldest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(REQUESTS).where(REQUESTS.c.state == RequestState.WAITING.value)
                                .order_by(REQUESTS.c.asked, REQUESTS.c.id).limit(limit)).all()
        return [_stored(r) for r in rows]

    def blocks_among(self, accounts: Iterable[int]) -> set[tuple[int, int]]:
        """The (blocker, blocked) pairs between these accounts."""
        listed = sorted(set(accounts))
        if len(listed) < 2:
            return set()
        with self.engine.connect() as conn:
            rows = conn.execute(select(BLOCKS.c.blocker_id, BLOCKS.c.blocked_id)
                                .where(BLOCKS.c.blocker_id.in_(listed), BLOCKS.c.blocked_id.in_(listed))).all()
        return {(a, b) for a, b in rows}

    # ------------------------------------------------------------- changing
    def ask(self, token: str, account_id: int | None, name: str, variant: str, players: int, clock: int, rated: bool,
            rating: int, at: datetime) -> str:
        """A new waiting request; Conflict `asking_already` (nothing stored) for an account
        that has one waiting."""
        request_id = secrets.token_urlsafe(9)
        try:
            with self.engine.begin() as conn:
                conn.execute(REQUESTS.insert(), {
                    "id": request_id, "token_hash": hash_token(token), "account_id": account_id, "waiting_account": account_id,
                    "name": name, "variant": variant, "players": players, "clock": clock, "rated": rated, "rating": rating,
                    "asked": at, "seen": at, "state": RequestState.WAITING.value,
                })
        except IntegrityError:
            raise Conflict("asking_already", "you are waiting to be paired already: cancel that request first") from None
        return request_id

    def saw(self, request_id: str, at: datetime) -> None:
        """Its holder looked at the waiting request: it does not expire yet."""
        with self.engine.begin() as conn:
            conn.execute(REQUESTS.update().where(REQUESTS.c.id == request_id, REQUESTS.c.state == RequestState.WAITING.value)
                         .values(seen=at))

    def end(self, request_ids: Sequence[str], state: RequestState, at: datetime) -> list[str]:
        """Those of the requests still waiting end as `state` (cancelled, expired); their ids."""
        if not request_ids:
            return []
        waiting = (REQUESTS.c.id.in_(list(request_ids)), REQUESTS.c.state == RequestState.WAITING.value)
        with self.engine.begin() as conn:
            # Waits for a row held elsewhere, as `claim` does: a cancel meeting a look's lock is still a cancel.
            ended = list(conn.scalars(select(REQUESTS.c.id).where(*waiting).order_by(REQUESTS.c.id).with_for_update()))
            if ended:
                conn.execute(REQUESTS.update().where(REQUESTS.c.id.in_(ended), REQUESTS.c.state == RequestState.WAITING.value)
                             .values(state=state.value, ended=at, waiting_account=None))
        return ended

    def unseen_since(self, before: datetime, limit: int = 1000) -> list[str]:
        """Waiting requests nobody has looked at since `before`."""
        with self.engine.connect() as conn:
            return list(conn.scalars(select(REQUESTS.c.id).where(REQUESTS.c.state == RequestState.WAITING.value,
                                                                REQUESTS.c.seen < before).limit(limit)))

    def claim(self, table: Sequence[Stored], names: Sequence[str], tags: Mapping[str, str], at: datetime) -> str | None:
        """Pair the table's requests into one new game, seat by seat in their order, under
        `names`; the game's id, or None (nothing stored) if any of them is no longer waiting.
        Each seat's token hash is its request's, so a guest's request secret holds its seat."""
        first = table[0]
        ids = sorted(r.id for r in table)
        try:
            with self.engine.begin() as conn:
                # Waits for a row another transaction holds (a holder's look marking it seen, or
                # another process's claim, after which it is no longer waiting): skipping it would
                # take a look for a claim lost. In id order, as `end` locks, so no two wait on each other.
                locked = conn.scalars(select(REQUESTS.c.id).where(REQUESTS.c.id.in_(ids), REQUESTS.c.state == RequestState.WAITING.value)
                                      .order_by(REQUESTS.c.id).with_for_update()).all()
                if len(locked) != len(ids):
                    raise _Taken
                people = {seat: Taker(name, new_token(), r.account_id) for seat, (r, name) in enumerate(zip(table, names, strict=True))}
                seats: list[tuple[SeatKind, str | None]] = [(SeatKind.OPEN, None)] * len(table)
                game_id = Storage.insert_game(conn, first.variant, seats, people, first.clock, first.rated, tags)
                for seat, r in enumerate(table):
                    moved = conn.execute(REQUESTS.update().where(REQUESTS.c.id == r.id, REQUESTS.c.state == RequestState.WAITING.value)
                                         .values(state=RequestState.PAIRED.value, ended=at, waiting_account=None, game_id=game_id,
                                                 seat=seat)).rowcount
                    if moved != 1:
                        raise _Taken
                    conn.execute(SEATS.update().where(SEATS.c.game_id == game_id, SEATS.c.seat == seat).values(token_hash=r.token_hash))
                if self.storage.shared:
                    conn.execute(NOTIFY, notice(PAIRING_TOPIC, " ".join(ids)))
        except _Taken:
            return None
        return game_id
