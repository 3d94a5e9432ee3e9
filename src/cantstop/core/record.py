"""Game records: header tags, then every turn with every roll's dice and choice.

    [Variant "classic"]
    [Players "Ann; Bob"]
    [First "A"]
    [Result "B"]

    1. A 1546 6+10 2435 6+8 stop
    2. B 3344 bust

A turn line is its number, the seat, then for each roll the dice and the choice
made; a roll that follows a choice means the player rolled again. The turn ends
with `stop`, with `bust` after dice that fit nowhere, or (last line only) not at
all while the game is in progress. `resign:B` is seat B leaving the game, wherever it
happens (its own turn ends there; with one seat left, the game). `{...}` is a comment. The dice are kept, not
just the seed, so a replay never depends on a random generator.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from cantstop.core.choices import Choice, format_choice, parse_choice
from cantstop.core.dice import Dice
from cantstop.core.errors import CantStopError, NotationError, RecordError, SetupError, VariantError
from cantstop.core.notation import SEATS, format_dice, parse_dice, seat_letter
from cantstop.core.state import ROLL, Decision, Phase, State, opening, turn_ended
from cantstop.core.variant import Variant, preset, variant_spec


@dataclass(frozen=True, slots=True)
class Leave:
    """A seat leaving the game (it resigned, or was made to) as an event of the history."""

    seat: int


# One step of a game's history: dice put on the table, an action of the player, a seat leaving.
Event = Dice | Choice | Decision | Leave
_TAG = re.compile(r'^\[(\w+)\s+"((?:[^"\\]|\\.)*)"\]\s*$')
_COMMENT = re.compile(r"\{[^}]*\}")


def is_dice(event: Event) -> bool:
    """Dice and choices are both tuples; dice are marked by the `Roll` wrapper."""
    return isinstance(event, Roll)


class Roll(tuple[int, ...]):
    """Dice as an event of the history (a tuple, tagged so it is not taken for a choice)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Roll({format_dice(self)})"


@dataclass
class Record:
    """A whole game: who played what, and every event from the first roll."""

    variant: Variant
    players: list[str]
    first: int = 0
    events: list[Event] = field(default_factory=list)
    tags: dict[str, str] = field(default_factory=dict)  # Event, Date, Seed, ... free text

    def start(self) -> State:
        return opening(self.variant, len(self.players), self.first)

    def states(self) -> Iterator[State]:
        """Every state from the start, one per event, checking each event as it goes."""
        state = self.start()
        yield state
        for number, event in enumerate(self.events, 1):
            try:
                state = apply_event(state, event)
            except CantStopError as error:
                raise RecordError(f"event {number} ({describe_event(event)}): {error}") from None
            yield state

    def final(self) -> State:
        *_, last = self.states()
        return last

    def after_turn(self, turns: int) -> State:
        """The position once `turns` turns are finished (the last position if fewer)."""
        last = self.start()
        for state in self.states():
            last = state
            if state.turn >= turns and state.phase in (Phase.ROLL, Phase.OVER):
                break
        return last

    @property
    def result(self) -> str:
        state = self.final()
        return seat_letter(state.seat) if state.is_over else "*"


def apply_event(state: State, event: Event) -> State:
    if isinstance(event, Leave):
        return state.leave(event.seat)
    if isinstance(event, Roll):
        if state.phase is Phase.DECIDE:
            state = state.play(ROLL)
        return state.roll(tuple(event))
    return state.play(event)


def describe_event(event: Event) -> str:
    if isinstance(event, Roll):
        return "dice " + format_dice(event)
    if isinstance(event, tuple):
        return "choice " + format_choice(event)
    if isinstance(event, Leave):
        return f"seat {seat_letter(event.seat)} leaving"
    return str(event)


# The one text and JSON form of each event; `cantstop.table.Move` builds on these.
def event_text(event: Event) -> str:
    """'1546' for dice, '6+10' for a choice, 'roll' or 'stop' for a decision, 'resign:B'."""
    if isinstance(event, Roll):
        return format_dice(event)
    if isinstance(event, tuple):
        return format_choice(event)
    if isinstance(event, Leave):
        return f"resign:{seat_letter(event.seat)}"
    return event.value


def parse_event(token: str, variant: Variant) -> Event:
    """The event `event_text` wrote; a CantStopError says what a token may be."""
    if token.isdigit() and len(token) == variant.dice:
        return Roll(parse_dice(token, variant))
    if token in ("roll", "stop"):
        return Decision(token)
    if token.startswith("resign:"):
        letter = token.removeprefix("resign:")
        if len(letter) != 1 or letter not in SEATS:
            raise NotationError(f"bad seat in {token!r}: write resign: and a seat letter, A-D")
        return Leave(SEATS.index(letter))
    return parse_choice(token)


def event_json(event: Event) -> dict[str, Any]:
    if isinstance(event, Roll):
        return {"dice": list(event)}
    if isinstance(event, tuple):
        return {"choice": list(event)}
    if isinstance(event, Leave):
        return {"resign": event.seat}
    return {"decision": event.value}


def event_from_json(item: dict[str, Any]) -> Event:
    """`event_json`'s form back; KeyError, TypeError or ValueError for anything else."""
    if "dice" in item:
        return Roll(tuple(int(d) for d in item["dice"]))
    if "choice" in item:
        return tuple(sorted(int(c) for c in item["choice"]))
    if "resign" in item:
        seat = item["resign"]
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise TypeError(f"resign names a seat number, not {seat!r}")
        return Leave(seat)
    return Decision(item["decision"])


# ---------------------------------------------------------------- text format
def _quote(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _unquote(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def write_record(record: Record, notes: Mapping[int, str] | None = None) -> str:
    """The record as text; `read_record` gives it back equal. `notes` (event index -> text)
    are written as comments before those events, e.g. who made a move in a seat's stead;
    reading skips them."""
    body, final = record_body(record, notes or {})  # one replay gives both the moves and the result
    result = seat_letter(final.seat) if final.is_over else "*"
    if body and not body.endswith("\n"):  # a turn in progress
        body += "\n"
    return header_text(record, result, final.turn) + body


def header_text(record: Record, result: str = "*", turns: int | None = None) -> str:
    """The tag lines and the blank line after them; `Result` last but for `Turns`."""
    tags = {
        "Variant": variant_spec(record.variant),
        "Players": "; ".join(record.players),
        "First": seat_letter(record.first),
        **{k: v for k, v in record.tags.items() if k not in ("Variant", "Players", "First", "Result", "Turns")},
        "Result": result,
    }
    if turns is not None:
        tags["Turns"] = str(turns)
    return "".join(f'[{k} "{_quote(v)}"]\n' for k, v in tags.items()) + "\n"


def record_body(record: Record, notes: Mapping[int, str] | None = None) -> tuple[str, State]:
    """The moves as text, one line per turn (the last one open while a turn goes on), and the final state."""
    states = record.states()  # checks every event, naming the first that does not replay
    state = next(states)
    parts: list[str] = []
    for number, (event, after) in enumerate(zip(record.events, states)):
        new_line = not parts or parts[-1].endswith("\n")
        parts.append(event_layout(event, state, after, new_line, (notes or {}).get(number)))
        state = after
    return "".join(parts), state


def event_layout(event: Event, before: State, after: State, new_line: bool, note: str | None = None) -> str:
    """The text one event adds to the moves: a new line starts with the turn's number and
    seat, a note is a `{comment}` before the event, dice that bust are followed by 'bust',
    and the end of a turn ends its line."""
    text = f"{before.turn + 1}. {seat_letter(before.seat)}" if new_line else ""
    # One line, and no brace that would end the comment early.
    note = " ".join((note or "").replace("{", "(").replace("}", ")").split())
    if note:
        text += " {" + note + "}"
    if event is not ROLL:  # a roll again is implied by the dice that follow
        text += " " + event_text(event)
    if turn_ended(before, after):
        text += " bust\n" if isinstance(event, Roll) and after.turn != before.turn else "\n"
    return text


def read_record(text: str) -> Record:
    """Parse a record; a `RecordError` names the line and what was expected there."""
    tags: dict[str, str] = {}
    tag_lines: dict[str, int] = {}  # so that an error about a tag names its line
    body: list[tuple[int, str]] = []
    for number, raw in enumerate(text.splitlines(), 1):
        # A whole tag line is read before comments are cut: '{' in a value (a name) is no comment.
        match = _TAG.match(raw.strip())
        line = raw.strip() if match else _COMMENT.sub(" ", raw).strip()
        if not line:
            continue
        if line.startswith("["):
            if body:
                raise RecordError("header tags must come before the moves", number)
            match = match or _TAG.match(line)
            if not match:
                raise RecordError(f'bad tag {line!r}: write [Name "value"]', number)
            tags[match.group(1)] = _unquote(match.group(2))
            tag_lines[match.group(1)] = number
        else:
            body.append((number, line))
    try:
        variant = preset(tags.get("Variant", "classic"))
    except VariantError as error:
        raise RecordError(str(error), tag_lines.get("Variant")) from None
    players = [p.strip() for p in tags.get("Players", "").split(";") if p.strip()]
    if not players:
        raise RecordError('the Players tag is missing: write [Players "Ann; Bob"]')
    first_tag = tags.get("First", "A")
    if first_tag not in SEATS[: len(players)]:
        raise RecordError(
            f"First {first_tag!r} is not a seat of {SEATS[: len(players)]}", tag_lines.get("First")
        )
    try:
        record = Record(variant, players, SEATS.index(first_tag))
        state = record.start()
    except SetupError as error:
        raise RecordError(str(error), tag_lines.get("Players")) from None
    record.tags = {k: v for k, v in tags.items() if k not in ("Variant", "Players", "First", "Result", "Turns")}
    for position, (number, line) in enumerate(body):
        state = _read_turn(record, state, number, line, last=position == len(body) - 1)
    result = tags.get("Result")
    actual = seat_letter(state.seat) if state.is_over else "*"
    if result is not None and result != actual:
        raise RecordError(
            f"the Result tag says {result!r} but the moves give {actual!r}", tag_lines["Result"]
        )
    return record


def _read_turn(record: Record, state: State, number: int, line: str, last: bool) -> State:
    tokens = line.split()
    if len(tokens) < 3 or not re.fullmatch(r"\d+\.", tokens[0]):
        raise RecordError(
            f"a turn line is its number, seat and moves, e.g. '3. A 1546 6+10 stop', not {line!r}",
            number,
        )
    if state.is_over:
        raise RecordError("moves after the end of the game", number)
    if int(tokens[0][:-1]) != state.turn + 1:
        raise RecordError(f"expected turn {state.turn + 1}, found {tokens[0]}", number)
    if tokens[1] != seat_letter(state.seat):
        raise RecordError(
            f"turn {state.turn + 1} is seat {seat_letter(state.seat)}'s, not {tokens[1]!r}", number
        )
    start = state
    busted = False
    for token in tokens[2:]:
        if busted:
            if token != "bust":
                raise RecordError(f"the dice before {token!r} bust: write 'bust' there", number)
            busted = False
            continue
        if turn_ended(start, state):
            raise RecordError(f"{token!r} after the end of the turn", number)
        if token == "bust":
            raise RecordError("'bust' must follow dice that fit nowhere", number)
        if token == "roll":  # records keep the dice, never the decision to roll
            raise RecordError("write the dice of the roll, e.g. 1546, not 'roll'", number)
        try:
            event = parse_event(token, record.variant)
        except CantStopError as error:
            if isinstance(error, NotationError):  # bad dice: the message says what dice are
                raise RecordError(str(error), number) from None
            raise RecordError(f"{error}; expected dice, a choice, 'stop' or 'bust'", number) from None
        try:
            state = apply_event(state, event)
        except CantStopError as error:
            raise RecordError(f"{token!r}: {error}", number) from None
        record.events.append(event)
        busted = isinstance(event, Roll) and state.turn != start.turn
    if busted:
        raise RecordError(f"dice {tokens[-1]} bust: end the turn with 'bust'", number)
    if not turn_ended(start, state) and not last:
        raise RecordError("the turn does not end with 'stop' or 'bust' before the next line", number)
    return state


# ---------------------------------------------------------------- JSON format
def record_to_json(record: Record) -> dict[str, Any]:
    return {
        "variant": variant_spec(record.variant),
        "players": record.players,
        "first": record.first,
        "tags": record.tags,
        "events": [event_json(e) for e in record.events],
    }


def record_from_json(data: dict[str, Any] | str) -> Record:
    """Read `record_to_json`'s form, replaying it to check every event."""
    try:
        obj = json.loads(data) if isinstance(data, str) else data
        record = Record(preset(obj["variant"]), [str(p) for p in obj["players"]], int(obj.get("first", 0)), [], dict(obj.get("tags", {})))
        record.events.extend(event_from_json(item) for item in obj["events"])
    except (KeyError, TypeError, ValueError, json.JSONDecodeError) as error:
        raise RecordError(
            f"bad record JSON ({type(error).__name__}: {error}); expected keys: variant, players, first, tags, events"
        ) from None
    record.final()  # raises a RecordError naming the first event that does not replay
    return record
