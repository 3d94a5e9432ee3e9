"""A game being played in the terminal: the engine's `Game`, the seats, and the record file.

The record is rewritten after every event (to a temporary file, then renamed over
the old one), so a quit, a crash or a closed terminal never loses a move.
"""

from __future__ import annotations

import os
import random
import tempfile
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import platformdirs

from cantstop.bots import Budget
from cantstop.core.dice import Dice, DiceSource, SeededDice
from cantstop.core.errors import RecordError
from cantstop.core.game import Game
from cantstop.core.notation import seat_letter
from cantstop.core.record import read_record, write_record
from cantstop.core.state import Action, Phase, State
from cantstop.core.variant import Variant
from cantstop.tui.seats import Seat, parse_seats, seats_spec

SEATS_TAG = "Seats"
BOT_BUDGET = Budget(seconds=1.0)


def default_records_dir() -> Path:
    return Path(platformdirs.user_data_dir("cantstop")) / "records"


def write_atomically(path: Path, text: str) -> None:
    """Replace `path` with `text` in one step: readers see the old file or the new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def new_record_path(records: Path, variant: Variant) -> Path:
    stamp = datetime.now().strftime("%Y-%m-%d_%H%M%S")
    name = "".join(ch if ch.isalnum() or ch in "-=" else "_" for ch in variant.name)
    path = records / f"{stamp}_{name}.txt"
    n = 2
    while path.exists():
        path = records / f"{stamp}_{name}_{n}.txt"
        n += 1
    return path


@dataclass
class Session:
    """One game with its seats; every change goes through here so that it is saved."""

    game: Game
    seats: list[Seat]
    path: Path
    rng: random.Random = field(default_factory=random.Random)

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
        tags = {SEATS_TAG: seats_spec(seats)}
        if seed is not None:
            tags["Seed"] = str(seed)
        game = Game.new(variant, [s.name for s in seats], dice, first, tags)
        session = cls(game, seats, new_record_path(records, variant), random.Random(seed))
        session.save()
        return session

    @classmethod
    def resume(cls, path: Path, dice: DiceSource | None = None) -> tuple[Session, list[str]]:
        """Continue the game in a record file; a `RecordError` (naming the line) if it is bad."""
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise RecordError(f"cannot read {path}: {error}") from None
        record = read_record(text)
        game = Game(record, dice if dice is not None else SeededDice())
        if game.state.is_over:
            raise RecordError(
                f"the game in {path} is over ({record.players[game.state.player]} won); "
                "use `cantstop replay FILE --tui` to step through it"
            )
        spec = record.tags.get(SEATS_TAG)
        notices: list[str] = []
        if spec is None:
            seats = [Seat(name, name) for name in record.players]
        else:
            try:
                seats, notices = parse_seats(spec)
            except ValueError as error:
                raise RecordError(f"bad {SEATS_TAG} tag {spec!r}: {error}") from None
            if len(seats) != len(record.players):
                raise RecordError(
                    f"the {SEATS_TAG} tag names {len(seats)} seats but Players names {len(record.players)}"
                )
            # The record's names stay: a bot that fell back keeps the seat it had.
            seats = [Seat(name, s.spec, s.bot) for name, s in zip(record.players, seats)]
        return cls(game, seats, path), notices

    # ------------------------------------------------------------------ state
    @property
    def state(self) -> State:
        return self.game.state

    @property
    def variant(self) -> Variant:
        return self.game.record.variant

    @property
    def seat(self) -> Seat:
        return self.seats[self.state.player]

    @property
    def people(self) -> int:
        return sum(1 for s in self.seats if s.is_person)

    @property
    def practice(self) -> bool:
        """Undo is fair only when no other person is at the table."""
        return self.people == 1

    # ------------------------------------------------------------------ moves
    def save(self) -> None:
        write_atomically(self.path, write_record(self.game.record))

    def roll(self) -> tuple[State, Dice]:
        """Roll (rolling again if deciding); returns the state before the dice and the dice."""
        before = self.state
        dice = self.game.roll()
        self.save()
        return before, dice

    def play(self, action: Action) -> State:
        self.game.play(action)
        self.save()
        return self.state

    def undo(self) -> State:
        self.game.undo()
        self.save()
        return self.state

    def bot_action(self) -> tuple[Action, str | None]:
        """The bot's move, or, if the bot fails or cheats, the first legal move and why."""
        bot = self.seat.bot
        assert bot is not None
        state = self.state
        legal = state.legal_actions()
        try:
            action = bot.play(state, self.rng, BOT_BUDGET)
        except Exception as error:  # a bot's bug must not end a person's game
            return legal[0], f"{bot.name} failed ({type(error).__name__}: {error}); it plays {legal[0]}"
        if action not in legal:
            return legal[0], f"{bot.name} chose {action!r}, which is not legal; it plays {legal[0]}"
        return action, None


def columns_text(state: State, seat: int, separator: str = ", ") -> str:
    won = state.columns_won(seat)
    return separator.join(map(str, won)) if won else "none"


def die_labels(variant: Variant, dice: Dice) -> list[str]:
    """Each die as the screen shows it: a wild (turtle) face as T, so log and dice agree."""
    return ["T" if i < variant.wild_dice and d == variant.wild_face else str(d) for i, d in enumerate(dice)]


def dice_words(variant: Variant, dice: Dice) -> str:
    """'4 3 T 6'."""
    return " ".join(die_labels(variant, dice))


def roll_sums(variant: Variant, dice: Dice) -> list[tuple[int, ...]]:
    """The sums each way of pairing the dice makes (wild faces expanded)."""
    tables = variant.tables
    return list(tables.groups[tables.index[dice]])


def why_unusable(state: State, column: int) -> str:
    """Why a column can take no step for the player to move (the state before a bust)."""
    v = state.variant
    owner = state.claimed[column]
    if owner >= 0:
        return f"{column} is claimed by {seat_letter(owner)}"
    if state.runners[column] and state.runners[column] >= v.height(column):
        return f"the runner in {column} is at the top"
    if not state.runners[column] and state.runners_left == 0:
        return f"{column} has no runner and all {v.runners} are out"
    if v.step_limit is not None and state.steps >= v.step_limit:
        return f"the {v.step_limit}-step limit is reached"
    if state.room(column) == 0:
        return f"{column} has no free space left"
    return f"{column} cannot be played"


MAX_LISTED_SUMS = 12


def explain_bust(before: State, dice: Dice) -> str:
    """'Rolled 2 2 4 6: sums 4+8, 6+6 — 4 is claimed by B; ...' for a bust from `before`."""
    v = before.variant
    groups = roll_sums(v, dice)
    columns = sorted({c for g in groups for c in g})
    if len(groups) <= MAX_LISTED_SUMS:
        sums = "sums " + ", ".join("+".join(map(str, g)) for g in groups)
    else:  # turtle dice pair up dozens of ways: the list would not fit the message
        sums = f"{len(groups)} ways to pair them, with sums {', '.join(map(str, columns))}"
    reasons = "; ".join(why_unusable(before, c) for c in columns)
    return f"Rolled {dice_words(v, dice)}: {sums}. Nothing fits: {reasons}."


def is_bust(before: State, after: State) -> bool:
    return after.turn != before.turn and before.phase is not Phase.CHOOSE
