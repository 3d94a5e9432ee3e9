"""How a decision's loss reads: its grade, and a player's accuracy over a game.

A loss is the value given up against the best option: points of chance to win (0 to
100), or alone turns. The thresholds come from measured distributions of the bots'
losses (`benchmarks/analysis_calibration.py`; docs/analysis.md has the tables): a
mistake is a loss the `expert` bot makes in about one decision in a hundred, a blunder
one it almost never makes.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from cantstop.analysis.judges import Units


class Grade(StrEnum):
    BEST = "best"
    GOOD = "good"
    INACCURACY = "inaccuracy"
    MISTAKE = "mistake"
    BLUNDER = "blunder"
    FORCED = "forced"  # one option only: nothing to judge


# Upper bounds (exclusive) of good, inaccuracy and mistake; a loss at or above the last is a blunder.
THRESHOLDS: dict[Units, tuple[float, float, float]] = {
    Units.CHANCE: (1.0, 3.0, 8.0),  # points of chance to win
    Units.TURNS: (0.05, 0.15, 0.4),  # expected turns
}
# A loss below this is the best option's own (a tie, or rounding in the last digits).
SAME = {Units.CHANCE: 1e-7, Units.TURNS: 1e-9}
ORDER = (Grade.BEST, Grade.GOOD, Grade.INACCURACY, Grade.MISTAKE, Grade.BLUNDER)


def grade(loss: float, units: Units) -> Grade:
    """The grade of a decision that lost `loss` (points of chance, or turns) against the best."""
    if loss <= SAME[units]:
        return Grade.BEST
    for bound, name in zip(THRESHOLDS[units], ORDER[1:-1], strict=True):
        if loss < bound:
            return name
    return Grade.BLUNDER


def accuracy(decisions: Iterable[tuple[float, float]]) -> float | None:
    """A player's accuracy from its decisions' (loss, stakes): 100 × (1 − Σ loss / Σ stakes).

    A decision's stakes are its best option's value less its worst's: what the decision
    could have lost at most. So 100 is perfect play, 0 the worst option every time, and a
    decision whose options are all worth the same counts for nothing. None when no
    decision had anything at stake.
    """
    lost = stakes = 0.0
    for loss, at_stake in decisions:
        lost += loss
        stakes += at_stake
    if stakes <= 0.0:
        return None
    return 100.0 * max(0.0, 1.0 - lost / stakes)
