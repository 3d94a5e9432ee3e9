"""The one place a game is driven: `Move`, `Table`, the players, and what happens.

Modules: `move` (the tagged move and its one text and JSON form), `table` (the driver),
`errors` (what a table refuses: stale, out-of-turn, after the end, illegal),
`players` (the interface of a seat that moves by itself, and built-in bots as players),
`failure` (faults and the one policy for a failing seat), `happenings` (typed events)
and `wording` (their sentences), `record_file` (a record on disk, one move at a time).
Layers above (terminal game, arena, protocol, CLI, web, environments) drive `Table`;
none of them applies a move to a state itself.
"""

from cantstop.table.errors import GameOverError, IllegalMoveError, NotYourTurnError, StaleMoveError
from cantstop.table.failure import Fault, Policy, SeatFailed, fallback_action
from cantstop.table.happenings import (
    Busted,
    Chose,
    Claimed,
    FellBack,
    Forfeited,
    Happening,
    Rolled,
    Stopped,
    Won,
    what_happened,
)
from cantstop.table.move import Kind, Move, MoveError
from cantstop.table.players import BotPlayer, Player
from cantstop.table.table import Collected, Deal, Sink, Table, advance, source_deal

__all__ = [
    "BotPlayer",
    "Busted",
    "Chose",
    "Claimed",
    "Collected",
    "Deal",
    "Fault",
    "FellBack",
    "Forfeited",
    "GameOverError",
    "Happening",
    "IllegalMoveError",
    "Kind",
    "Move",
    "MoveError",
    "NotYourTurnError",
    "Player",
    "Policy",
    "Rolled",
    "SeatFailed",
    "Sink",
    "StaleMoveError",
    "Stopped",
    "Table",
    "Won",
    "advance",
    "fallback_action",
    "source_deal",
    "what_happened",
]
