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
    'solitaire+to_win=4': (
        (0.0000, 0.0482, 0.4690, 0.6198, 0.7627, 0.9154, 1.1023, 1.2885, 1.4368, 1.5850, 1.7536, 1.9298, 2.1204, 2.3064, 2.4578, 2.6012, 2.7675, 2.9257, 3.0905, 3.2375, 3.3578, 3.4707, 3.5935, 3.7113, 3.8369, 4.1245),
        (9.6454, 9.3412, 8.4617, 8.3918, 7.6803, 7.2335, 7.2022, 6.8903, 6.4859, 6.0972, 5.9922, 5.6787, 5.1787, 4.9295, 4.5580, 4.2006, 3.7006, 3.6097, 3.2602, 2.9201, 2.5549, 2.4075, 1.9796, 1.7335, 1.4404, 1.2100),
    ),
    'turtles+min_players=1+max_players=1': (
        (0.0000, 0.4296, 1.2599, 1.4446, 1.6707, 1.9197, 2.0596, 2.0870, 2.1445, 2.1925, 2.2362, 2.3060, 2.3536, 2.3891, 2.4985, 2.6182, 2.7420),
        (2.3242, 1.9966, 1.3907, 1.3244, 1.3244, 1.2478, 1.1093, 1.1093, 1.0826, 1.0671, 1.0671, 1.0585, 1.0430, 1.0430, 1.0327, 1.0112, 1.0112),
    ),
    'turtles-long+min_players=1+max_players=1': (
        (0.0000, 0.1167, 1.2410, 1.4667, 1.7527, 2.0150, 2.0755, 2.1243, 2.1837, 2.2243, 2.2881, 2.3536, 2.3827, 2.4746, 2.5457, 2.6425, 2.7348, 2.7607, 2.8075, 3.0163, 3.2563, 3.4815, 3.7833),
        (2.9316, 2.8680, 2.2544, 2.1946, 2.1144, 1.7807, 1.5422, 1.4285, 1.4285, 1.4285, 1.4285, 1.3933, 1.3933, 1.3933, 1.3751, 1.3751, 1.3751, 1.3583, 1.3283, 1.1594, 1.0886, 1.0572, 1.0218),
    ),
    'turtles+to_win=5+min_players=1+max_players=1': (
        (0.0000, 0.0185, 1.2576, 1.5770, 1.9491, 2.0734, 2.1321, 2.1925, 2.2631, 2.3409, 2.3832, 2.4918, 2.5723, 2.6905, 2.7607, 2.7882, 3.0180, 3.3402, 3.6282, 3.8483, 4.0421, 4.1164, 4.1979, 4.3032, 4.3927, 4.5538, 4.7779),
        (3.7023, 3.6300, 2.8339, 2.5804, 2.5102, 2.3128, 2.2640, 2.2640, 2.2640, 2.2640, 2.2640, 2.2640, 2.2640, 2.2640, 2.2640, 2.2640, 1.5976, 1.4196, 1.3420, 1.3420, 1.1685, 1.1555, 1.1123, 1.0875, 1.0821, 1.0637, 1.0346),
    ),
    'turtles-relay+min_players=1+max_players=1': (
        (0.0000, 1.2150, 1.9680, 2.0824, 2.1563, 2.2023, 2.2735, 2.3626, 2.5094, 2.6145, 2.7004),
        (1.8169, 1.4216, 1.0883, 1.0442, 1.0375, 1.0375, 1.0243, 1.0199, 1.0177, 1.0066, 1.0066),
    ),
    'turtles-relay+to_win=4+min_players=1+max_players=1': (
        (0.0000, 0.4684, 1.8867, 2.0896, 2.1767, 2.2296, 2.3281, 2.4359, 2.5264, 2.5443, 2.6260, 2.6991, 2.7282, 2.7607, 2.7617, 2.8943, 3.0000, 3.5475),
        (2.4638, 2.2390, 1.6000, 1.2175, 1.2175, 1.2175, 1.2175, 1.1902, 1.1902, 1.1756, 1.1630, 1.1630, 1.1630, 1.1630, 1.1287, 1.1091, 1.0624, 1.0309),
    ),
    'solitaire+to_win=5': (
        (0.0000, 0.4320, 0.6290, 0.8033, 1.0053, 1.2425, 1.4274, 1.5986, 1.8050, 2.0410, 2.2771, 2.4707, 2.6578, 2.8602, 3.0632, 3.2769, 3.4665, 3.6423, 3.8394, 4.0268, 4.2154, 4.3801, 4.5326, 4.6695, 4.8023, 5.0832),
        (11.1361, 10.0216, 9.7507, 9.1671, 8.8396, 8.4447, 8.2318, 7.7089, 7.4798, 6.9218, 6.5553, 6.1995, 5.8475, 5.5290, 5.0135, 4.7382, 4.3495, 3.8812, 3.5331, 3.2416, 2.8691, 2.3711, 2.1093, 1.8057, 1.5816, 1.2227),
    ),
    'turtles-relay+to_win=5+min_players=1+max_players=1': (
        (0.0000, 0.4006, 1.9296, 2.1074, 2.1907, 2.2778, 2.3917, 2.5021, 2.5443, 2.6132, 2.6987, 2.7314, 2.7607, 2.7727, 2.9715, 3.0000, 3.2119, 4.0653, 4.2078, 4.3337, 4.4742, 4.6340, 4.8335),
        (3.0403, 2.8382, 2.0921, 1.8707, 1.8707, 1.8707, 1.8707, 1.8707, 1.8707, 1.8707, 1.8707, 1.8707, 1.8707, 1.8707, 1.3803, 1.2974, 1.2934, 1.1039, 1.1013, 1.0829, 1.0645, 1.0487, 1.0145),
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
