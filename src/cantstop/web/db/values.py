"""What storage hands out: immutable values, never rows (a row belongs to its session)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

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


@dataclass(frozen=True)
class Seat:
    seat: int
    kind: SeatKind
    bot: str | None
    name: str | None


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


class RematchExists(Exception):
    """The finished game has its rematch already (its id is the argument)."""

    def __init__(self, game_id: str) -> None:
        super().__init__(game_id)
        self.game_id = game_id
