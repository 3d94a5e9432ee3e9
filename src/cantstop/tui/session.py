"""A game being played in the terminal: its table, the seats, and the record file.

Every move is appended to the record file as it is made (see
`cantstop.table.record_file`), so a quit, a crash or a closed terminal never loses one.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import platformdirs

from cantstop.bots.compiling import watch_compiling
from cantstop.core.dice import DiceSource, SeededDice
from cantstop.core.errors import RecordError, SetupError, UnknownBotError
from cantstop.core.record import read_record
from cantstop.core.state import State
from cantstop.core.variant import Variant
from cantstop.table import BotPlayer, Happening, Move, Player, SeatFailed, Table
from cantstop.table.record_file import RecordFile
from cantstop.tui.seats import Seat, check_seats, parse_seats, seats_spec

SEATS_TAG = "Seats"
BOT_BUDGET_MS = 1000


def default_records_dir() -> Path:
    return Path(platformdirs.user_data_dir("cantstop")) / "records"


def new_record_path(records: Path, variant: Variant) -> Path:
    stamp = datetime.now().strftime("%Y-%m-%d_%H%M%S")
    name = "".join(ch if ch.isalnum() or ch in "-=" else "_" for ch in variant.name)
    path = records / f"{stamp}_{name}.txt"
    n = 2
    while path.exists():
        path = records / f"{stamp}_{name}_{n}.txt"
        n += 1
    return path


def seat_players(seats: list[Seat], rng: random.Random) -> list[Player | None]:
    """Bots play for themselves (sharing the game's random source); people are handed in."""
    return [None if seat.bot is None else BotPlayer(seat.bot, rng=rng) for seat in seats]


@dataclass
class Session:
    """One game with its seats, played through its table, which writes the record file."""

    table: Table
    seats: list[Seat]
    path: Path

    @classmethod
    def start(
        cls,
        seats: list[Seat],
        variant: Variant,
        records: Path,
        dice: DiceSource,
        first: int | None = None,
        seed: int | None = None,
    ) -> Session:
        check_seats(seats, variant)  # a bot that cannot play this game is refused before it starts
        tags = {SEATS_TAG: seats_spec(seats)}
        if seed is not None:
            tags["Seed"] = str(seed)
        players = seat_players(seats, random.Random(seed))
        table = Table.new(variant, [s.name for s in seats], dice, first, tags, players)
        path = new_record_path(records, variant)
        table.sink = RecordFile(path, table.record)
        return cls(table, seats, path)

    @classmethod
    def resume(cls, path: Path, dice: DiceSource | None = None) -> tuple[Session, list[str]]:
        """Continue the game in a record file; a `RecordError` (naming the line) if it is bad."""
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise RecordError(f"cannot read {path}: {error}") from None
        record = read_record(text)
        final = record.final()
        if final.is_over:
            raise RecordError(
                f"the game in {path} is over ({record.players[final.seat]} won); "
                "use `cantstop replay FILE --tui` to step through it"
            )
        spec = record.tags.get(SEATS_TAG)
        notices: list[str] = []
        if spec is None:
            seats = [Seat(name, name) for name in record.players]
        else:
            try:
                seats, notices = parse_seats(spec)
            except (SetupError, UnknownBotError) as error:
                raise RecordError(f"bad {SEATS_TAG} tag {spec!r}: {error}") from None
            if len(seats) != len(record.players):
                raise RecordError(
                    f"the {SEATS_TAG} tag names {len(seats)} seats but Players names {len(record.players)}"
                )
            # The record's names stay: a bot that fell back keeps the seat it had.
            seats = [Seat(name, s.spec, s.bot) for name, s in zip(record.players, seats)]
        players = seat_players(seats, random.Random())
        table = Table(record, dice if dice is not None else SeededDice(), players)
        table.sink = RecordFile(path, record)  # written once in full, then appended to
        return cls(table, seats, path), notices

    # ------------------------------------------------------------------ state
    @property
    def state(self) -> State:
        return self.table.state

    @property
    def variant(self) -> Variant:
        return self.table.variant

    @property
    def seat(self) -> Seat:
        return self.seats[self.state.seat]

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    @property
    def people(self) -> int:
        return sum(1 for s in self.seats if s.is_person)

    @property
    def practice(self) -> bool:
        """Undo is fair only when no other person is at the table."""
        return self.people == 1

    # ------------------------------------------------------------------ moves
    def play(self, move: Move) -> list[Happening]:
        return self.table.play(move)

    def undo(self) -> State:
        return self.table.undo()

    def prepare_bots(self, on_compile: Callable[[str], None]) -> None:
        """Make each bot seat ready for this game before it moves (a thread may run this):
        what its first decision would compile or load. `on_compile(display)` is called each
        time numba starts compiling for the bot of that display name."""
        for seat, player in zip(self.seats, self.table.players, strict=True):
            if seat.bot is None or not seat.bot.prepares or not isinstance(player, BotPlayer):
                continue
            display = seat.bot.display

            def heard(name: str, who: str = display) -> None:
                on_compile(who)

            # A bot that cannot get ready fails its first move the same way; the table's policy
            # takes over there and the log says so.
            with watch_compiling(heard), contextlib.suppress(SeatFailed):
                player.ready(self.variant, len(self.seats))

    def bot_move(self) -> Move | SeatFailed:
        """The bot's answer, thought out (a thread may run this); nothing is applied yet."""
        return self.table.ask()

    def answer(self, answer: Move | SeatFailed, version: int | None) -> list[Happening]:
        """Apply a bot's answer found on `version`; a failure goes through the table's policy."""
        return self.table.answer(answer, version)


def columns_text(state: State, seat: int, separator: str = ", ") -> str:
    won = state.columns_won(seat)
    return separator.join(map(str, won)) if won else "none"
