"""What a screen asks of the application, as Textual messages that bubble up to it.

The screens sit below the application: they post these instead of calling it, so no
screen imports the application that shows it.
"""

from __future__ import annotations

from textual.message import Message

from cantstop.core.variant import Variant
from cantstop.tui.seats import Seat


class NewGame(Message):
    """Start a game with these seats and rules (from the start screen, or "play again")."""

    def __init__(self, seats: list[Seat], variant: Variant, notices: list[str] | None = None) -> None:
        super().__init__()
        self.seats = seats
        self.variant = variant
        self.notices = notices
