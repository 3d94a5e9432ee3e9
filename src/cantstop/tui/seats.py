"""Who sits at the table: people by name, computer players by bot name or level.

A seat spec is a name ("Ann") or `bot:NAME` / `bot:LEVEL` ("bot:random", "bot:medium").
A level that has no bot yet falls back to the nearest weaker level that has one,
with a notice, so menus keep working while bots are still being written.
"""

from __future__ import annotations

from dataclasses import dataclass

from cantstop.bots import BotInfo, Level, get_bot
from cantstop.core.errors import SetupError, UnknownBotError
from cantstop.core.variant import Variant

LEVELS = tuple(Level)  # weakest first
BOT_PREFIX = "bot:"
DEFAULT_PLAYERS = "You,bot:medium,bot:medium"


@dataclass(frozen=True)
class Seat:
    name: str  # what the board and the record call this seat
    spec: str  # as typed: "Ann" or "bot:medium"; kept in the record to resume
    bot: BotInfo | None = None

    @property
    def is_person(self) -> bool:
        return self.bot is None


def resolve_bot(wanted: str) -> tuple[BotInfo, str | None]:
    """The bot for a name or level, and a notice when a weaker level stands in."""
    try:
        return get_bot(wanted), None
    except UnknownBotError:
        if wanted not in {level.value for level in LEVELS}:
            raise
    index = [level.value for level in LEVELS].index(wanted)
    for level in reversed(LEVELS[:index]):
        try:
            info = get_bot(level.value)
        except UnknownBotError:
            continue
        return info, f"no {wanted} bot yet: {info.display} ({level.value}) plays instead"
    raise UnknownBotError(f"no bot of level {wanted} or weaker is installed")


def parse_seats(text: str, max_seats: int = 4) -> tuple[list[Seat], list[str]]:
    """Seats from 'Ann,Bob,bot:expert', and any fallback notices.

    A `SetupError` says what is wrong with the list, an `UnknownBotError` which bots exist.
    """
    parts = [p.strip() for p in text.split(",")]
    if not text.strip() or any(not p for p in parts):
        raise SetupError(
            f"bad players {text!r}: list 1-{max_seats} seats separated by commas, "
            "people by name and computer players as bot:NAME or bot:LEVEL"
        )
    if len(parts) > max_seats:
        raise SetupError(f"{len(parts)} seats in {text!r}: at most {max_seats} can play")
    seats: list[Seat] = []
    notices: list[str] = []
    for part in parts:
        if part.lower().startswith(BOT_PREFIX):
            wanted = part[len(BOT_PREFIX):].strip().lower()
            info, notice = resolve_bot(wanted)
            if notice:
                notices.append(notice)
            seats.append(Seat(info.display, part, info))
        else:
            check_name(part)
            seats.append(Seat(part, part))
    names = [s.name for s in seats]
    seats = [  # two bots of the same kind get their seat letter to tell them apart
        Seat(f"{s.name} {'ABCD'[i]}", s.spec, s.bot) if names.count(s.name) > 1 else s
        for i, s in enumerate(seats)
    ]
    return seats, notices


def check_name(name: str) -> None:
    """A person's name must read back from a seat spec (',') and a record's Players tag (';')."""
    if "," in name or ";" in name or len(name) > 24 or not name.isprintable():
        raise SetupError(f"bad name {name!r}: at most 24 printable characters and no ',' or ';'")
    if name.lower().startswith(BOT_PREFIX):
        raise SetupError(f"bad name {name!r}: a person's name cannot start with {BOT_PREFIX}")


def seats_spec(seats: list[Seat]) -> str:
    return ",".join(s.spec for s in seats)


def check_seats(seats: list[Seat], variant: Variant) -> None:
    """Raise `SetupError` if the seats cannot play `variant`: too many or too few, or a bot
    that cannot play it (the optimal bot off a solved board, say)."""
    if why := variant.players_text(len(seats)):
        raise SetupError(why)
    for seat in seats:
        if seat.bot is not None:
            seat.bot.check(variant, len(seats))
