"""`Move`: everything a seat or chance can do to a game, as one tagged value.

Kinds and their one text form (the JSON form in brackets):

- a roll: `roll` while a seat asks for one (`{"decision": "roll"}`), its dice once
  rolled, `1546` (`{"dice": [1, 5, 4, 6]}`);
- a choice: `6+10` (`{"choice": [6, 10]}`);
- stop: `stop` (`{"decision": "stop"}`);
- the out-of-band ones, which name their seat: `resign:A` (the seat leaves the game;
  in a game among people the others play on, as the record's `resign:A` event),
  `timeout:A` (the seat's clock ran out), `fallback:A` (the table played
  a move in the seat's stead; the move follows). JSON: `{"resign": 0}` and so on, with
  the reason, when there is one, under `"reason"`.

The engine kinds use the record's own tokens (`cantstop.core.record.event_text`), so a
record, the protocol, the CLI and the web read and write moves alike. The reason of an
out-of-band move is no part of its text form: records keep it as a `{comment}`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from cantstop.core.choices import Choice, parse_choice
from cantstop.core.dice import Dice
from cantstop.core.errors import CantStopError
from cantstop.core.notation import SEATS, seat_letter
from cantstop.core.record import (
    Event,
    Leave,
    Roll,
    event_from_json,
    event_json,
    event_text,
    parse_event,
)
from cantstop.core.state import ROLL, STOP, Action, Decision
from cantstop.core.variant import Variant


class Kind(StrEnum):
    ROLL = "roll"
    CHOICE = "choice"
    STOP = "stop"
    RESIGN = "resign"
    TIMEOUT = "timeout"
    FALLBACK = "fallback"


OUT_OF_BAND = (Kind.RESIGN, Kind.TIMEOUT, Kind.FALLBACK)
_TOKEN = re.compile(r"\d+(\+\d+)*")  # a choice, or (with a variant) dice
_WORDS = "a choice (6+10, 7, 7+7), roll, stop, dice such as 1546, or resign:A, timeout:A, fallback:A"


class MoveError(CantStopError):
    """Text or JSON that is no move; the message says what a move may be."""


@dataclass(frozen=True, slots=True)
class Move:
    """One move, in one text form and one JSON form that read back equal.

    Reading raises `MoveError` (a `CantStopError`) naming what a move may be; so does
    `action` for an out-of-band move, which is no action of the rules.

    >>> move = Move.parse("6+10")
    >>> move.kind, move.action, move.json()
    (<Kind.CHOICE: 'choice'>, (6, 10), {'choice': [6, 10]})
    >>> Move.from_json({"resign": 1, "reason": "left"}).text
    'resign:B'
    >>> Move.parse("jump")
    Traceback (most recent call last):
    ...
    cantstop.table.move.MoveError: bad move 'jump': write a choice (6+10, 7, 7+7), roll, stop, ...
    """

    kind: Kind
    dice: Dice = ()  # ROLL: the dice once rolled (a `Roll`); () while a seat asks for a roll
    columns: Choice = ()  # CHOICE: the columns advanced, sorted
    seat: int = -1  # out-of-band kinds: whose
    reason: str = ""  # out-of-band kinds: why, for people; not part of the text form

    # ------------------------------------------------------------ building
    @staticmethod
    def of(action: Action) -> Move:
        """The move of an engine action (a choice, ROLL or STOP); `MoveError` for anything else."""
        move = _ACTIONS.get(action)
        if move is None:
            if not isinstance(action, tuple):
                raise MoveError(f"{action!r} is no action: {_WORDS}")
            move = Move(Kind.CHOICE, columns=action)
            if len(_ACTIONS) < _CACHED:  # hostile input cannot grow the cache without end
                _ACTIONS[action] = move
        return move

    @staticmethod
    def of_event(event: Event) -> Move:
        if isinstance(event, Roll):
            return Move.rolled(tuple(event))
        if isinstance(event, Leave):
            return Move.resign(event.seat)
        return Move.of(event)

    @staticmethod
    def rolled(dice: Dice) -> Move:
        move = _ROLLS.get(dice)
        if move is None:
            move = Move(Kind.ROLL, dice=Roll(dice))  # the record's own event, made once
            if len(_ROLLS) < _CACHED:
                _ROLLS[dice] = move
        return move

    @staticmethod
    def resign(seat: int, reason: str = "") -> Move:
        return Move(Kind.RESIGN, seat=seat, reason=reason)

    @staticmethod
    def timeout(seat: int, reason: str = "") -> Move:
        return Move(Kind.TIMEOUT, seat=seat, reason=reason)

    @staticmethod
    def fallback(seat: int, reason: str = "") -> Move:
        return Move(Kind.FALLBACK, seat=seat, reason=reason)

    # ------------------------------------------------------------ reading
    @property
    def out_of_band(self) -> bool:
        return self.kind in OUT_OF_BAND

    @property
    def action(self) -> Action:
        """The engine action of a seat's move (a roll counts as ROLL)."""
        if self.kind is Kind.CHOICE:
            return self.columns
        if self.kind is Kind.STOP:
            return STOP
        if self.kind is Kind.ROLL:
            return ROLL
        raise MoveError(f"{self.text} is no action of the rules")

    @property
    def event(self) -> Event:
        """What the record keeps of the move: dice, a choice, a decision or a seat leaving."""
        if self.kind is Kind.ROLL:
            if not self.dice:
                return ROLL
            return self.dice if type(self.dice) is Roll else Roll(self.dice)
        if self.kind is Kind.RESIGN:
            return Leave(self.seat)
        return self.action

    # ------------------------------------------------------------ forms
    @property
    def text(self) -> str:
        if self.out_of_band:
            return f"{self.kind.value}:{seat_letter(self.seat)}"
        return event_text(self.event)

    def __str__(self) -> str:
        return self.text

    def json(self) -> dict[str, Any]:
        if self.out_of_band:
            data: dict[str, Any] = {self.kind.value: self.seat}
            if self.reason:
                data["reason"] = self.reason
            return data
        return event_json(self.event)

    @staticmethod
    def parse(text: str, variant: Variant | None = None) -> Move:
        """A move from its text form; dice are read only against a `variant`. Raises `MoveError`."""
        word = text.strip()
        kind, colon, seat = word.partition(":")
        if colon:
            if kind not in {k.value for k in OUT_OF_BAND} or seat.upper() not in SEATS or len(seat) != 1:
                raise MoveError(f"bad move {text!r}: write {_WORDS}")
            return Move(Kind(kind), seat=SEATS.index(seat.upper()))
        if word not in ("roll", "stop") and not _TOKEN.fullmatch(word):
            raise MoveError(f"bad move {text!r}: write {_WORDS}")
        try:
            if variant is not None:
                return Move.of_event(parse_event(word, variant))
            return Move.of(Decision(word) if word in ("roll", "stop") else parse_choice(word))
        except CantStopError as error:  # a choice, or with a variant dice, that cannot be read
            raise MoveError(f"bad move {text!r}: {error}") from None

    @staticmethod
    def from_json(data: object) -> Move:
        """A move from its JSON form (a dict as `json` makes). Raises `MoveError`."""
        try:
            if not isinstance(data, dict):
                raise TypeError(f"a move is an object, not {type(data).__name__}")
            for kind in OUT_OF_BAND:
                if kind.value in data:
                    seat = data[kind.value]
                    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(SEATS):
                        raise ValueError(f"the seat is 0..{len(SEATS) - 1}, not {seat!r}")
                    return Move(kind, seat=seat, reason=str(data.get("reason", "")))
            return Move.of_event(event_from_json(data))
        except (KeyError, TypeError, ValueError) as error:
            raise MoveError(
                f"bad move JSON {data!r} ({error}): write {{\"choice\": [6, 10]}}, {{\"decision\": \"roll\"}}, "
                f"{{\"dice\": [1, 5, 4, 6]}} or {{\"resign\": 0}}"
            ) from None


ROLL_MOVE = Move(Kind.ROLL)
STOP_MOVE = Move(Kind.STOP)
# Moves are immutable: one value per action and per roll serves every game (the hot path).
_CACHED = 20_000  # far more than every choice and roll of every variant (turtles: 6**4 rolls)
_ACTIONS: dict[Action, Move] = {ROLL: ROLL_MOVE, STOP: STOP_MOVE}
_ROLLS: dict[Dice, Move] = {}
