"""What happened at the table, as typed values every front end renders in its own medium.

`Table` emits them as it applies moves; `what_happened(before, move, after)` derives them
from any two positions a move joins, so a replay tells a recorded game exactly as the
table told it live. Their words are in `cantstop.table.wording`, and nowhere else.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from cantstop.core.choices import Choice
from cantstop.core.dice import Dice
from cantstop.core.record import Record
from cantstop.core.state import Action, Phase, State
from cantstop.table.failure import Fault
from cantstop.table.move import Kind, Move


@dataclass(frozen=True)
class Rolled:
    seat: int
    dice: Dice
    options: tuple[Choice, ...]  # the choices the roll offers


@dataclass(frozen=True)
class Busted:
    seat: int
    dice: Dice
    before: State  # the position the roll met: what made every sum unusable


@dataclass(frozen=True)
class Chose:
    seat: int
    choice: Choice


@dataclass(frozen=True)
class Stopped:
    seat: int
    moved: tuple[tuple[int, int], ...]  # (column, space) of each runner banked


@dataclass(frozen=True)
class Claimed:
    seat: int
    column: int
    wiped: tuple[int, ...]  # seats whose pieces in the column were removed


@dataclass(frozen=True)
class Won:
    seat: int
    turns: int
    alone: bool  # solitaire: the score is the turns taken


@dataclass(frozen=True)
class FellBack:
    seat: int
    fault: Fault
    reason: str
    action: Action  # what the table played in the seat's stead


@dataclass(frozen=True)
class Forfeited:
    seat: int
    fault: Fault | None  # None: the seat resigned of its own will
    reason: str
    winner: int | None  # the one seat left, if one is


Happening = Rolled | Busted | Chose | Stopped | Claimed | Won | FellBack | Forfeited


def what_happened(before: State, move: Move, after: State) -> list[Happening]:
    """What an engine move (dice, a choice, stop) did from `before` to `after`."""
    seat = before.seat
    found: list[Happening] = []
    if move.kind is Kind.ROLL:
        if not move.dice:  # a roll again decided: the dice that follow tell the story
            return found
        if after.phase is Phase.CHOOSE:
            found.append(Rolled(seat, move.dice, after.options))
        else:
            found.append(Busted(seat, move.dice, before))
        return found
    if move.kind is Kind.CHOICE:
        return [Chose(seat, move.columns)]
    if move.kind is Kind.STOP:
        found.append(Stopped(seat, tuple((c, before.runners[c]) for c in before.runner_columns)))
        for c in before.variant.columns:
            if after.claimed[c] >= 0 > before.claimed[c]:
                wiped = tuple(p for p, row in enumerate(before.pieces) if p != seat and row[c])
                found.append(Claimed(seat, c, wiped))
        if after.is_over:
            found.append(Won(after.seat, after.turn, after.num_players == 1))
    return found


def told(record: Record) -> Iterator[tuple[State, list[Happening], State]]:
    """A recorded game retold: for each event, the state before, what happened, the state after."""
    states = record.states()
    before = next(states)
    for event, after in zip(record.events, states):
        yield before, what_happened(before, Move.of_event(event), after), after
        before = after
