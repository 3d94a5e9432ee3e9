"""What storage hands out: immutable values, never rows (a row belongs to its session)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, NamedTuple

from cantstop.core.record import Event, Record
from cantstop.core.variant import preset
from cantstop.table import Move


class GameStatus(StrEnum):
    WAITING = "waiting"  # for people to take its open seats
    PLAYING = "playing"
    OVER = "over"  # won (by the rules, or as the last seat left)
    ABANDONED = "abandoned"  # ended without a winner: nobody came back, or solitaire given up; unrated


ENDED = (GameStatus.OVER, GameStatus.ABANDONED)  # the statuses of games that are finished
LIVE = (GameStatus.WAITING, GameStatus.PLAYING)


class SeatKind(StrEnum):
    OPEN = "open"  # nobody has taken it yet
    PERSON = "person"
    BOT = "bot"


class RatingKind(StrEnum):
    PERSON = "person"  # an account's
    BOT = "bot"  # a bot's, by 'bot:NAME'
    LEGACY = "legacy"  # a name typed before accounts existed, unclaimed until attached to an account


@dataclass(frozen=True)
class Seat:
    seat: int
    kind: SeatKind
    bot: str | None
    name: str | None
    account_id: int | None = None  # a signed-in person's seat: theirs on any device


class Taker(NamedTuple):
    """Who takes an open seat: the name they play under, the seat's new secret token, and
    their account if they are signed in."""

    name: str
    token: str
    account_id: int | None = None


@dataclass(frozen=True)
class StoredGame:
    id: str
    variant: str
    first: int | None
    tags: dict[str, str]
    status: GameStatus
    winner: int | None
    version: int
    created: datetime
    seats: tuple[Seat, ...]
    rematch: str | None = None
    clock: int = 0  # seconds a person has for each move; 0: no clock
    updated: datetime | None = None  # when play started or the last move was stored (UTC)
    rated: bool = False  # rated (signed-in people, a rated variant) or friendly
    to_move: int | None = None  # the seat whose move it is, while playing
    seen: datetime | None = None  # when a player last had the game open, as last written (UTC)

    @property
    def ended(self) -> str | None:
        """Why a game ended without a winner (the record's `Ended` tag), if it did."""
        return self.tags.get("Ended") if self.status is GameStatus.ABANDONED else None

    def record(self, events: list[Event]) -> Record:
        assert self.first is not None, "a waiting game has no record yet"
        return Record(
            preset(self.variant), [s.name or f"Seat {s.seat + 1}" for s in self.seats], self.first, events, dict(self.tags)
        )


@dataclass(frozen=True)
class ChatLine:
    """A chat message: the game, who said it (a seat, or None for a spectator, and the name
    shown), the text, the speaker's account if signed in (a player's or a spectator's); its
    number and time (UTC) once stored."""

    game_id: str
    seat: int | None
    name: str
    text: str
    account_id: int | None = None
    id: int | None = None
    at: datetime | None = None

    def frame(self) -> dict[str, Any]:
        """The message as clients are sent it."""
        at = None if self.at is None else self.at.replace(tzinfo=UTC).isoformat(timespec="seconds")
        return {"type": "chat", "id": self.id, "seat": self.seat, "name": self.name, "text": self.text, "at": at}

    def relayed(self) -> dict[str, Any]:
        """The message as processes relay it to each other: its frame and its author's account
        (which clients are not sent; those that block it are not sent the message)."""
        return {**self.frame(), "author": self.account_id}


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
    """A rating entry: whose (`kind`, and the account or the name), for games of how many
    players, what it is, from how many games, against how many distinct trusted opponents."""

    kind: RatingKind
    name: str  # as shown: the account's name, 'bot:NAME', or the legacy name
    mu: float
    sigma: float
    games: int
    wins: int
    account_id: int | None = None
    id: int | None = None  # None until stored
    players: int = 2
    opponents: int = 0  # distinct trusted opponents met in counted games (`players.scale`)


@dataclass(frozen=True)
class RatingPoint(Skill):
    """A rating as it stood after one rated game, the weight that game counted with, and
    whether the rating was still provisional then."""

    game_id: str | None
    at: datetime
    mu: float
    sigma: float
    weight: float = 1.0
    provisional: bool = False


@dataclass(frozen=True)
class Append:
    """Moves to store: the game, its version after the first of them, the moves (several when
    the table's failure policy answered a timeout), the winner if they end the game, and
    the seat to move after them (None once over). The moves of one Append are stored
    together or not at all."""

    game_id: str
    seq: int
    moves: tuple[Move, ...]
    winner: int | None = None
    to_move: int | None = None

    @property
    def last(self) -> int:
        return self.seq + len(self.moves) - 1


class RematchExists(Exception):
    """The finished game has its rematch already (its id is the argument)."""

    def __init__(self, game_id: str) -> None:
        super().__init__(game_id)
        self.game_id = game_id
