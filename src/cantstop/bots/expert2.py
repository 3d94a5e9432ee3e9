"""The expert II bot: exact turns against fitted anchor values (solitaire), the expert against rivals.

Alone, a turn is a finite decision problem once the positions a stop can reach have
values: the solver's kernel (`cantstop.solve`) optimises it exactly, every roll and
every choice, with a bust worth the turn's own fixed point x = 1 + W(x). Where the
board is not solved, those values come from a fit: the expert's measure of progress
(each column's fraction climbed to the power ALPHA, the `to_win` best in full, the
rest by SPARE) mapped to expected turns by a monotone curve fitted to games
(`examples/fit_expert2.py`, which prints `KNOTS`). One Newton solve per turn start
(up to 70,224 in-turn states on the full board) serves every decision of the turn.

The curve is fitted per board (the solver's variant key); on a board without one,
and in games with rivals (the turn optimisation knows no opponents), it plays as
the expert does.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import TYPE_CHECKING

from cantstop.bots.base import Budget, Level, Need, needs_fast, register, rehearse
from cantstop.bots.expert import ALPHA, SPARE, play_expert
from cantstop.core.state import Action, State
from cantstop.core.variant import Variant

if TYPE_CHECKING:
    from cantstop.solve.bundles import Estimate
    from cantstop.solve.policy import Policy

# Progress measure -> expected turns still needed, per board (see the module docstring).
KNOTS: dict[str, tuple[tuple[float, ...], tuple[float, ...]]] = {
    'solitaire': (
        (0.0000, 0.3443, 0.5450, 0.6433, 0.7545, 0.8706, 1.0061, 1.1575, 1.2959, 1.4056, 1.5249, 1.6456, 1.7726, 1.9103, 2.0580, 2.1899, 2.2918, 2.3758, 2.4689, 2.5739, 2.6742, 2.7642, 2.8824, 3.1459),
        (7.8689, 6.8912, 6.8912, 6.4599, 5.8511, 5.7061, 5.3798, 5.1929, 5.1929, 4.6635, 4.4034, 4.1090, 3.7945, 3.7945, 3.2811, 3.2314, 2.7629, 2.4952, 2.3308, 2.0860, 1.8375, 1.6482, 1.4818, 1.2696),
    ),
}


def estimate(heights: tuple[int, ...], to_win: int, knots: tuple[tuple[float, ...], ...]) -> Estimate:
    """The kernel's estimate of a board's anchors with this curve (see `kernels.estimated`)."""
    import numpy as np

    from cantstop.solve.bundles import Estimate

    worth = np.ones((len(heights), max(heights) + 1))
    for i, h in enumerate(heights):
        worth[i, : h + 1] = [(space / h) ** ALPHA for space in range(h + 1)]
    return Estimate(worth, np.array(knots, dtype=np.float64), SPARE, to_win)


@lru_cache(maxsize=16)
def fitted_policy(variant: Variant) -> Policy | None:
    """The turn optimiser of a one-player variant with a fitted curve, else None."""
    from cantstop.solve.board import board_of
    from cantstop.solve.errors import SolveError
    from cantstop.solve.policy import Policy

    try:
        board = board_of(variant)
    except SolveError:
        return None
    knots = KNOTS.get(board.key)
    if knots is None:
        return None
    return Policy.estimated(board, estimate(board.heights, board.to_win, knots))


def fits_expert2(variant: Variant, num_players: int) -> str | None:
    """Every game; alone on a fitted board it needs the solver's kernels (the `fast` extra)."""
    if num_players != 1:
        return None
    try:
        policy = fitted_policy(variant)
    except ImportError as error:
        return needs_fast("cantstop.solve.kernels") or str(error)
    # The policy loads without numba; its first turn would not.
    return None if policy is None else needs_fast("cantstop.solve.kernels")


@register(
    "expert2",
    Level.EXPERT,
    "Alone: exact turns against fitted position values; against rivals, the expert.",
    "Expert II bot",
    fits_expert2,
    prepare=rehearse,
    needs=(Need.FAST,),
)
def play_expert2(state: State, rng: random.Random, budget: Budget) -> Action:
    policy = fitted_policy(state.variant) if state.num_players == 1 else None
    if policy is None:
        return play_expert(state, rng, budget)
    return policy.action(state)
