"""Tournaments in storage: each call is blocking (the service makes it off the event loop).

A round's pairing is stored in one transaction with its games and its players' places, and
it begins with the round's row, whose key is (tournament, round): a second process pairing
the same round fails on that key and stores nothing, so a round is paired once. Each step
of a tournament's life is a conditional update (open to playing, round N to N+1, a result
written once), so processes racing through the same step do it once between them.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import Select, and_, func, select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from cantstop.web.db.rows import GAMES, now
from cantstop.web.db.storage import Storage
from cantstop.web.db.tokens import new_token
from cantstop.web.db.values import TOURNAMENT_TAG, GameStatus, SeatKind, Taker
from cantstop.web.errors import Conflict
from cantstop.web.identity.accounts import Accounts
from cantstop.web.identity.rows import AccountRow
from cantstop.web.tournaments.rows import ENTRIES, PLACES, ROUNDS, TOURNAMENTS

ACCOUNTS = AccountRow.__table__


class TournamentStatus(StrEnum):
    OPEN = "open"  # taking entries until its start
    PLAYING = "playing"
    OVER = "over"  # every round played
    CANCELLED = "cancelled"  # fewer than two players had entered at its start


@dataclass(frozen=True)
class Tournament:
    id: str
    name: str
    variant: str
    seats: int
    clock: int
    rated: bool
    rounds: int
    capacity: int
    starts: datetime
    status: TournamentStatus
    round: int
    creator_id: int
    creator: str | None  # the creator account's name (None once deleted)
    created: datetime
    ended: datetime | None
    entered: int  # players entered (withdrawn ones too)


@dataclass(frozen=True)
class Entry:
    account_id: int
    name: str | None  # None for a deleted account
    joined: datetime
    seed: int | None
    withdrawn: datetime | None
    why: str | None

    @property
    def playing(self) -> bool:
        """Still in the tournament: not withdrawn, its account not deleted."""
        return self.withdrawn is None and self.name is not None


@dataclass(frozen=True)
class Place:
    """One player's seat in one round (see `rows.PlaceRow`), with its game's status."""

    round: int
    account_id: int
    board: int | None
    game_id: str | None
    seat: int | None
    place: int | None
    players: int | None
    won: bool
    forfeited: bool
    game_status: GameStatus | None


@dataclass(frozen=True)
class NewTable:
    """A table of a round to store: its players (account id and name) in seat order."""

    board: int
    players: tuple[tuple[int, str], ...]


@dataclass(frozen=True)
class SeatResult:
    account_id: int
    place: int
    players: int
    won: bool
    forfeited: bool


def _tournament(r: Any) -> Tournament:
    """A row of TOURNAMENTS with its creator's name and its count of entries."""
    return Tournament(
        r.id, r.name, r.variant, r.seats, r.clock, bool(r.rated), r.rounds, r.capacity, r.starts,
        TournamentStatus(r.status), r.round, r.creator_id, r.creator, r.created, r.ended, int(r.entered or 0),
    )


class TournamentStore:
    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.engine = storage.engine
        self.accounts = Accounts(storage)

    @staticmethod
    def _select() -> Select[Any]:
        entered = select(func.count()).where(ENTRIES.c.tournament_id == TOURNAMENTS.c.id).scalar_subquery()
        return (
            select(TOURNAMENTS, ACCOUNTS.c.name.label("creator"), entered.label("entered"))
            .join(ACCOUNTS, ACCOUNTS.c.id == TOURNAMENTS.c.creator_id)
        )

    # ------------------------------------------------------------- reading
    def tournament(self, tournament_id: str) -> Tournament | None:
        with self.engine.connect() as conn:
            row = conn.execute(self._select().where(TOURNAMENTS.c.id == tournament_id)).first()
        return None if row is None else _tournament(row)

    def listed(self, statuses: Sequence[TournamentStatus], limit: int) -> list[Tournament]:
        """Tournaments of these statuses: the next to start first, then the latest started."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                self._select().where(TOURNAMENTS.c.status.in_([s.value for s in statuses]))
                .order_by(TOURNAMENTS.c.starts.desc()).limit(limit)
            ).all()
        return [_tournament(row) for row in rows]

    def entered_by(self, account_id: int, limit: int) -> list[Tournament]:
        """The tournaments the account entered, the latest start first."""
        with self.engine.connect() as conn:
            mine = select(ENTRIES.c.tournament_id).where(ENTRIES.c.account_id == account_id)
            rows = conn.execute(self._select().where(TOURNAMENTS.c.id.in_(mine)).order_by(TOURNAMENTS.c.starts.desc()).limit(limit)).all()
        return [_tournament(row) for row in rows]

    def entries(self, tournament_id: str) -> list[Entry]:
        """Everyone who entered, in the order they entered."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(ENTRIES, ACCOUNTS.c.name).join(ACCOUNTS, ACCOUNTS.c.id == ENTRIES.c.account_id)
                .where(ENTRIES.c.tournament_id == tournament_id).order_by(ENTRIES.c.joined, ENTRIES.c.account_id)
            ).all()
        return [Entry(r.account_id, r.name, r.joined, r.seed, r.withdrawn, r.why) for r in rows]

    def places(self, tournament_id: str) -> list[Place]:
        """Every seat of every round so far, with its game's status, by round and table."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(PLACES, GAMES.c.status.label("game_status")).outerjoin(GAMES, GAMES.c.id == PLACES.c.game_id)
                .where(PLACES.c.tournament_id == tournament_id).order_by(PLACES.c.round, PLACES.c.board, PLACES.c.seat)
            ).all()
        return [
            Place(r.round, r.account_id, r.board, r.game_id, r.seat, r.place, r.players, bool(r.won), bool(r.forfeited),
                  None if r.game_status is None else GameStatus(r.game_status))
            for r in rows
        ]

    def due(self, by: datetime, limit: int = 100) -> list[tuple[str, datetime, TournamentStatus]]:
        """Tournaments with something to do: open ones starting by `by`, and those in play."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(TOURNAMENTS.c.id, TOURNAMENTS.c.starts, TOURNAMENTS.c.status).where(
                    (TOURNAMENTS.c.status == TournamentStatus.PLAYING.value)
                    | and_(TOURNAMENTS.c.status == TournamentStatus.OPEN.value, TOURNAMENTS.c.starts <= by)
                ).order_by(TOURNAMENTS.c.starts).limit(limit)
            ).all()
        return [(r.id, r.starts, TournamentStatus(r.status)) for r in rows]

    # ------------------------------------------------------------- changing
    def create(
        self, name: str, variant: str, seats: int, clock: int, rated: bool, rounds: int, capacity: int, starts: datetime,
        creator_id: int,
    ) -> str:
        tournament_id = secrets.token_urlsafe(9)
        with self.engine.begin() as conn:
            conn.execute(TOURNAMENTS.insert(), {
                "id": tournament_id, "name": name, "variant": variant, "seats": seats, "clock": clock, "rated": rated,
                "rounds": rounds, "capacity": capacity, "starts": starts, "status": TournamentStatus.OPEN.value, "round": 0,
                "creator_id": creator_id, "created": now(),
            })
        return tournament_id

    def enter(self, tournament_id: str, account_id: int, at: datetime) -> None:
        """Enter the account. Refused (Conflict, nothing stored) once the tournament has begun,
        when it is full, or for an account entered already."""
        with self.engine.begin() as conn:
            row = conn.execute(select(TOURNAMENTS).where(TOURNAMENTS.c.id == tournament_id).with_for_update()).one()
            _still_open(row, at)
            count = conn.scalar(select(func.count()).where(ENTRIES.c.tournament_id == tournament_id)) or 0
            if count >= row.capacity:
                raise Conflict("full", f"the tournament is full: its {row.capacity} places are taken")
            try:
                with conn.begin_nested():
                    conn.execute(ENTRIES.insert(), {"tournament_id": tournament_id, "account_id": account_id, "joined": at})
            except IntegrityError:
                raise Conflict("entered", "you have entered this tournament already") from None

    def leave(self, tournament_id: str, account_id: int, at: datetime) -> bool:
        """Before the start, the entry goes; after it, the player withdraws (no later round
        pairs them). False if the account had not entered, or had withdrawn already."""
        with self.engine.begin() as conn:
            row = conn.execute(select(TOURNAMENTS).where(TOURNAMENTS.c.id == tournament_id).with_for_update()).one()
            mine = and_(ENTRIES.c.tournament_id == tournament_id, ENTRIES.c.account_id == account_id)
            if row.status == TournamentStatus.OPEN.value:
                return bool(conn.execute(ENTRIES.delete().where(mine)).rowcount)
            return self._withdraw(conn, tournament_id, [account_id], "withdrew", at) > 0

    @staticmethod
    def _withdraw(conn: Connection, tournament_id: str, accounts: Iterable[int], why: str, at: datetime) -> int:
        listed = list(accounts)
        if not listed:
            return 0
        return int(conn.execute(
            ENTRIES.update().where(ENTRIES.c.tournament_id == tournament_id, ENTRIES.c.account_id.in_(listed), ENTRIES.c.withdrawn.is_(None))
            .values(withdrawn=at, why=why)
        ).rowcount)

    def withdraw(self, tournament_id: str, accounts: Iterable[int], why: str, at: datetime) -> int:
        with self.engine.begin() as conn:
            return self._withdraw(conn, tournament_id, accounts, why, at)

    def begin(self, tournament_id: str, seeds: Sequence[int], at: datetime) -> bool:
        """Open to playing, the players seeded in `seeds` order; False if it began (or was
        cancelled) meanwhile."""
        with self.engine.begin() as conn:
            begun = conn.execute(
                TOURNAMENTS.update().where(TOURNAMENTS.c.id == tournament_id, TOURNAMENTS.c.status == TournamentStatus.OPEN.value)
                .values(status=TournamentStatus.PLAYING.value, starts=at)
            ).rowcount
            if not begun:
                return False
            for seed, account_id in enumerate(seeds, 1):
                conn.execute(ENTRIES.update().where(ENTRIES.c.tournament_id == tournament_id, ENTRIES.c.account_id == account_id)
                             .values(seed=seed))
        return True

    def close(self, tournament_id: str, status: TournamentStatus, at: datetime) -> bool:
        """Over (or cancelled), once: False if it was closed already."""
        with self.engine.begin() as conn:
            return bool(conn.execute(
                TOURNAMENTS.update().where(
                    TOURNAMENTS.c.id == tournament_id,
                    TOURNAMENTS.c.status.in_([TournamentStatus.OPEN.value, TournamentStatus.PLAYING.value]),
                ).values(status=status.value, ended=at)
            ).rowcount)

    def pair(
        self, tournament: Tournament, number: int, tables: Sequence[NewTable], byes: Sequence[int], at: datetime,
    ) -> list[str] | None:
        """Store round `number`: its row first (a round is paired once: None, nothing stored,
        if another process paired it), then a game for each table, its seats taken by its
        players' accounts, and each player's place (a bye scores its win at once). Returns
        the games' ids, to be started."""
        seats: list[tuple[SeatKind, str | None]] = [(SeatKind.OPEN, None)]
        tags = {"Event": tournament.name, "Round": str(number), TOURNAMENT_TAG: tournament.id}
        made: list[str] = []
        try:
            with self.engine.begin() as conn:
                conn.execute(ROUNDS.insert(), {"tournament_id": tournament.id, "round": number, "paired": at})
                moved = conn.execute(
                    TOURNAMENTS.update().where(TOURNAMENTS.c.id == tournament.id, TOURNAMENTS.c.round == number - 1,
                                               TOURNAMENTS.c.status == TournamentStatus.PLAYING.value).values(round=number)
                ).rowcount
                if not moved:
                    raise _Moved
                places = []
                for table in tables:
                    people = {seat: Taker(name, new_token(), account) for seat, (account, name) in enumerate(table.players)}
                    game_id = Storage.insert_game(
                        conn, tournament.variant, seats * len(table.players), people, tournament.clock, tournament.rated, tags,
                    )
                    made.append(game_id)
                    places += [{"tournament_id": tournament.id, "round": number, "account_id": account, "board": table.board,
                                "game_id": game_id, "seat": seat, "place": None, "players": len(table.players),
                                "won": False, "forfeited": False}
                               for seat, (account, _) in enumerate(table.players)]
                places += [{"tournament_id": tournament.id, "round": number, "account_id": account, "board": None, "game_id": None,
                            "seat": None, "place": 1, "players": 1, "won": False, "forfeited": False} for account in byes]
                if places:
                    conn.execute(PLACES.insert(), places)
        except (IntegrityError, _Moved):
            return None
        return made

    def record(self, tournament_id: str, number: int, game_id: str, results: Sequence[SeatResult]) -> bool:
        """A table's results, once: False if they were written already."""
        with self.engine.begin() as conn:
            written = 0
            for r in results:
                written += conn.execute(
                    PLACES.update().where(
                        PLACES.c.tournament_id == tournament_id, PLACES.c.round == number, PLACES.c.account_id == r.account_id,
                        PLACES.c.game_id == game_id, PLACES.c.place.is_(None),
                    ).values(place=r.place, players=r.players, won=r.won, forfeited=r.forfeited)
                ).rowcount
        return written > 0

    def account_named(self, name: str) -> int | None:
        """The live account called `name` (as people type it), if there is one."""
        found = self.accounts.find(name)
        return None if found is None else found[0].id

    def tournament_of(self, game_id: str) -> str | None:
        with self.engine.connect() as conn:
            return conn.scalar(select(PLACES.c.tournament_id).where(PLACES.c.game_id == game_id).limit(1))


class _Moved(Exception):
    """The tournament is past this round already (or no longer playing): nothing is stored."""


def _still_open(row: Any, at: datetime) -> None:
    status = row.status
    if status != TournamentStatus.OPEN.value or row.starts <= at:
        said = {TournamentStatus.PLAYING.value: "has started", TournamentStatus.OVER.value: "is over",
                TournamentStatus.CANCELLED.value: "was cancelled"}.get(status, "has started")
        raise Conflict("not_open", f"the tournament {said}: entry is open only until its start")
