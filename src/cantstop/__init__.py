"""cantstop: Sid Sackson's Can't Stop as a library, a game and a research platform."""

from cantstop.core.choices import Choice, format_choice, parse_choice
from cantstop.core.dice import Dice, SecureDice, SeededDice, roll_off
from cantstop.core.errors import (
    BotUnfitError,
    CantStopError,
    ColumnError,
    IllegalActionError,
    InvalidDiceError,
    NotationError,
    PhaseError,
    RecordError,
    SetupError,
    UnknownBotError,
    VariantError,
)
from cantstop.core.state import ROLL, STOP, Action, Decision, Phase, State, new_game
from cantstop.core.variant import PRESETS, Pairing, Variant, preset

__version__ = "0.1.0"

__all__ = [
    "PRESETS",
    "ROLL",
    "STOP",
    "Action",
    "BotUnfitError",
    "CantStopError",
    "Choice",
    "ColumnError",
    "Decision",
    "Dice",
    "IllegalActionError",
    "InvalidDiceError",
    "NotationError",
    "Pairing",
    "Phase",
    "PhaseError",
    "RecordError",
    "SecureDice",
    "SeededDice",
    "SetupError",
    "State",
    "UnknownBotError",
    "Variant",
    "VariantError",
    "__version__",
    "format_choice",
    "new_game",
    "parse_choice",
    "preset",
    "roll_off",
]
