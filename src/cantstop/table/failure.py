"""When a seat fails: the faults, and the table's one policy for them.

A player that cannot give a move raises `SeatFailed`; a move that is not legal, or
a clock that runs out, fails the seat just the same. What follows is decided in one
place, `Table.fail`, by the table's `Policy`:

- `FORFEIT` (the arena, where results count): the seat loses the game at once;
- `FALLBACK` (a game among people, where a broken bot must not end it): the table
  plays `fallback_action` in the seat's stead and the game goes on;
- `RAISE` (the environments, where a stand-in would make the episode another
  opponent's without a word): the failure is raised to the caller, nothing applied.

Under the first two the record says so (a `resign:A` or `fallback:A` move with its reason).
"""

from __future__ import annotations

from enum import StrEnum

from cantstop.core.state import STOP, Action, State


class Fault(StrEnum):
    CRASH = "crash"  # the bot raised, or its program died
    TIMEOUT = "timeout"  # it took longer than its budget allows, or hung
    ILLEGAL = "illegal"  # it returned an action that is not legal here
    PROTOCOL = "protocol"  # an outside bot said something the protocol does not allow


class Policy(StrEnum):
    FORFEIT = "forfeit"
    FALLBACK = "fallback"
    RAISE = "raise"


class SeatFailed(Exception):
    """Raised by a player that cannot go on; the table's policy decides what follows."""

    def __init__(self, fault: Fault, reason: str) -> None:
        super().__init__(f"{fault}: {reason}")
        self.fault = fault
        self.reason = reason


def fallback_action(state: State) -> Action:
    """What the table plays for a failed seat: the first choice, or stop when stopping is legal.

    Stopping banks the turn's progress; a fallback should never gamble for a seat.
    """
    legal = state.legal_actions()
    return STOP if STOP in legal else legal[0]
