"""What a finished game comes to, seat by seat: turns, rolls, busts, columns, best turn.

Read from a record's events alone, so the end-of-game summary, a profile's statistics and
a replay all count the same way. A turn's size is the spaces its runners gained when it
was kept (a bust keeps nothing); the game's biggest turn is the largest of them, the
earliest on a tie.
"""

from __future__ import annotations

from dataclasses import dataclass

from cantstop.core.record import Record, Roll
from cantstop.core.state import STOP, Phase, State


@dataclass(frozen=True)
class SeatSummary:
    turns: int  # turns the seat began
    rolls: int
    busts: int
    columns: tuple[int, ...]  # the columns it holds at the end
    best: int  # spaces gained in its biggest kept turn (0 when it kept none)


@dataclass(frozen=True)
class BigTurn:
    seat: int
    turn: int  # the game's turn number, from 1, as the record's text numbers it
    spaces: int


@dataclass(frozen=True)
class GameSummary:
    seats: tuple[SeatSummary, ...]
    turns: int  # turns finished, the last one included when the game is over
    winner: int | None  # by the rules; a resignation or forfeit is the caller's to add
    biggest: BigTurn | None


def turns_taken(state: State) -> int:
    """Turns taken up to `state`: those finished, and the one in progress once it has rolled
    (as each seat's `turns` counts them), so a game that ended mid-turn counts that turn."""
    return state.turn + state.turn_begun


def kept_spaces(state: State) -> int:
    """Spaces the runners have gained this turn, as a stop now would keep them."""
    own = state.pieces[state.seat]
    return sum(state.runners[c] - own[c] for c in state.runner_columns)


def summarize(record: Record) -> GameSummary:
    """Count the record's game; a `RecordError` names the first event that does not replay."""
    seats = len(record.players)
    turns, rolls, busts, best = [0] * seats, [0] * seats, [0] * seats, [0] * seats
    biggest: BigTurn | None = None
    states = record.states()
    state = next(states)
    for event, after in zip(record.events, states):
        seat = state.seat
        if isinstance(event, Roll):
            rolls[seat] += 1
            if state.phase is Phase.ROLL:
                turns[seat] += 1
            if after.turn != state.turn:
                busts[seat] += 1
        elif event is STOP:
            spaces = kept_spaces(state)
            best[seat] = max(best[seat], spaces)
            if biggest is None or spaces > biggest.spaces:
                biggest = BigTurn(seat, state.turn + 1, spaces)
        state = after
    return GameSummary(
        seats=tuple(
            SeatSummary(turns[s], rolls[s], busts[s], state.columns_won(s), best[s]) for s in range(seats)
        ),
        turns=state.turn,
        winner=state.winner,
        biggest=biggest,
    )
