"""What a table refuses, each a `CantStopError` carrying what a front end needs to answer it.

Nothing is applied when one is raised. A stale move is the same error wherever it is
found: by the table (the move was made on an older version) or by whatever stores the
moves (another process stored that version first).
"""

from __future__ import annotations

from cantstop.core.errors import CantStopError, IllegalActionError
from cantstop.core.state import Action


class StaleMoveError(CantStopError):
    """A move made on a version of the game that is no longer current; nothing was applied.
    `current` is the game's version when it is known (a store that refused the move may not know it)."""

    def __init__(self, made_on: int, current: int | None = None) -> None:
        now = "another move was stored at that version first" if current is None else f"the game is at version {current}"
        super().__init__(f"the move was made on version {made_on} but {now}; nothing was applied")
        self.made_on, self.current = made_on, current


class GameOverError(IllegalActionError):
    """A move handed in after the game ended; `winner` is the seat that won, if one did."""

    def __init__(self, message: str, winner: int | None) -> None:
        super().__init__(message)
        self.winner = winner


class NotYourTurnError(IllegalActionError):
    """A move handed in for a seat that is not the one to move."""

    def __init__(self, message: str, seat: int, to_move: int) -> None:
        super().__init__(message)
        self.seat, self.to_move = seat, to_move


class IllegalMoveError(IllegalActionError):
    """A move the position does not allow; `legal` lists the moves it does (a roll at the start of a turn)."""

    def __init__(self, message: str, legal: tuple[Action, ...]) -> None:
        super().__init__(message)
        self.legal = legal
