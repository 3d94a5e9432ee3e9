"""A move as its event row stores it, and back."""

from __future__ import annotations

import json
from collections.abc import Iterable

from cantstop.core.record import Event, Roll
from cantstop.core.state import Decision
from cantstop.table import Kind, Move

STORED_CHARS = 64  # the `data` column's width
END = "end"  # the kind of the row that ends a game without a winner (no move: `Storage.end_game`)


def encode_move(move: Move) -> tuple[str, str]:
    """A move as its stored row's (kind, data): dice, a choice or a decision as before the
    table layer; an out-of-band move (a fallback, a forfeit) as its kind and "SEAT reason"."""
    if move.out_of_band:
        return move.kind.value, f"{move.seat} {move.reason}"[:STORED_CHARS]
    item = move.event
    if isinstance(item, Roll):
        return "dice", json.dumps(list(item))
    if isinstance(item, tuple):
        return "choice", json.dumps(list(item))
    return "decision", str(item)


def decode_move(kind: str, data: str) -> Move:
    if kind == "dice":
        return Move.rolled(tuple(json.loads(data)))
    if kind == "choice":
        return Move.of(tuple(json.loads(data)))
    if kind == "decision":
        return Move.of(Decision(data))
    seat, _, reason = data.partition(" ")
    return Move(Kind(kind), seat=int(seat), reason=reason)


def recorded(moves: Iterable[Move]) -> list[Event]:
    """The events of a game's record, from its stored moves: a fallback's note is none (its
    move follows it); a seat leaving is one (games among people play on without it)."""
    return [move.event for move in moves if move.kind is Kind.RESIGN or not move.out_of_band]
