"""Precise exceptions: each says what was wrong and what would have been allowed."""

from __future__ import annotations


class CantStopError(ValueError):
    """Base class of every error the engine raises about user input."""


class IllegalActionError(CantStopError):
    """An action that the position does not allow; the state is left untouched."""


class SetupError(CantStopError):
    """A game that cannot start: a player count or first seat the variant does not allow."""


class InvalidDiceError(CantStopError):
    """A roll that is not four dice of the variant's faces."""


class NotationError(CantStopError):
    """A position string or JSON object that cannot be read."""


class RecordError(CantStopError):
    """A game record that cannot be read or does not replay; names the line."""

    def __init__(self, message: str, line: int | None = None) -> None:
        self.line = line
        super().__init__(f"line {line}: {message}" if line is not None else message)
