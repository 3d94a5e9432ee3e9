"""Precise exceptions: each says what was wrong and what would have been allowed.

Every error about user input is a `CantStopError` (itself a `ValueError`), so a front
end can catch the whole family at once, or one refusal by its own class.

>>> from cantstop import new_game
>>> try:
...     new_game("chess")
... except CantStopError as error:
...     print(type(error).__name__, error)
VariantError unknown variant 'chess'; known variants: classic, solitaire, ...
"""

from __future__ import annotations


class CantStopError(ValueError):
    """Base class of every error the engine raises about user input."""


class IllegalActionError(CantStopError):
    """An action that the position does not allow; the state is left untouched."""


class SetupError(CantStopError):
    """A game or match that cannot start: a player count or first seat the variant does not
    allow, a seat list or match setting that cannot be read."""


class InvalidDiceError(CantStopError):
    """A roll that is not four dice of the variant's faces."""


class NotationError(CantStopError):
    """A position, choice or dice text, or a position's JSON object, that cannot be read."""


class RecordError(CantStopError):
    """A game record that cannot be read or does not replay; names the line."""

    def __init__(self, message: str, line: int | None = None) -> None:
        self.line = line
        super().__init__(f"line {line}: {message}" if line is not None else message)


class VariantError(CantStopError):
    """A variant spec or set of rules that makes no game: names every fault and what exists."""


class PhaseError(CantStopError):
    """A question the position cannot answer in its phase, e.g. roll odds while choosing."""


class ColumnError(CantStopError):
    """A column number the variant does not have; names the columns it has."""


class UnknownBotError(CantStopError):
    """A bot name or level that no installed bot answers to; lists the bots and levels."""


class BotUnfitError(SetupError):
    """A bot that cannot play this game (variant or player count), with why and what to do."""
