"""The analysis made ready: its value model loaded and its kernels compiled (or read back
from numba's disk cache) by a roll map and the two kinds of decision of a classic game, so
that the first real request does not pay for them."""

from __future__ import annotations

from cantstop.analysis.options import decision_options
from cantstop.analysis.rollmap import roll_map
from cantstop.core.notation import from_notation
from cantstop.core.state import new_game

# A choice and a roll-or-stop, read as positions (only the table moves a game).
POSITIONS = (
    "classic 00000000000/00000000000 00000000000 A choose:2346 0 0",
    "classic 00000000000/00000000000 00010000100 A decide 2 0",
)


def warm_up() -> None:
    """Value a roll map and each position of `POSITIONS`.

    Raises what the analysis raises there (`AnalysisError` without the fast extra)."""
    roll_map(new_game("classic", 2))
    for position in POSITIONS:
        decision_options(from_notation(position))
