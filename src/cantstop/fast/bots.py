"""Compiled twins of the random, Rule-of-28 and Glenn–Aloi bots (`cantstop.bots`).

Each chooses exactly what its Python twin chooses in the same position: the heuristics
are integer scores with the same tie rule (the last of the engine's order wins); the
random bot turns one uniform draw per decision into the same pick. The fast layer may
import only core, so the weights are a copy of `cantstop.bots.heuristic`'s (as fields
of its `Weights`); a test holds the copy equal to the original.
"""

from __future__ import annotations

from functools import lru_cache

import numba as nb
import numpy as np

from cantstop.core.variant import Variant
from cantstop.fast import kernels
from cantstop.fast.counter import nb_uniform_at
from cantstop.fast.kernels import (
    CHOOSE,
    R_PHASE,
    R_PLAYER,
    R_RUNNERS,
    W_CHOICES,
    W_COUNT,
    pieces_at,
)
from cantstop.fast.tables import (
    H_COLUMNS,
    H_ROLL_ACTION,
    H_RUNNERS,
    H_STOP_ACTION,
    H_TO_WIN,
    O_ACTION_COLS,
    O_ACTION_LEN,
    O_HEIGHTS,
)

# A row of `heuristic_tables`: progress weights by column, move weights by column, then:
W_ODD, W_EVEN, W_HIGH, W_LOW, W_MARKER, W_THRESHOLD, W_MIDDLE = range(7)

_jit = nb.njit(cache=True, error_model="numpy")
_inline = nb.njit(cache=True, error_model="numpy", inline="always")


# (progress, move, odd, even, high, low, marker, threshold): `heuristic.Weights`, in order.
Weights = tuple[tuple[int, ...], tuple[int, ...], int, int, int, int, int, int]
RULE_OF_28: Weights = ((1, 2, 3, 4, 5, 6), (6, 5, 4, 3, 2, 1), 2, 2, 4, 4, 6, 28)
GLENN_ALOI: Weights = ((1, 2, 2, 3, 7, 7), (3, 4, 0, 2, 0, 7), 7, 1, 6, 5, 6, 29)


def _weights(weights: Weights, variant: Variant) -> list[int]:
    middle = variant.faces + 1
    progress, move, *terms = weights

    def by_column(table: tuple[int, ...]) -> list[int]:  # core: heuristic._weight
        return [table[min(abs(c - middle), len(table) - 1)] for c in variant.columns]

    return [*by_column(progress), *by_column(move), *terms, middle]


@lru_cache(maxsize=64)
def heuristic_tables(variant: Variant) -> np.ndarray:
    """int64[2, ...]: the Rule of 28's weights (row 0) and Glenn–Aloi's (row 1) for `variant`."""
    table = np.array([_weights(RULE_OF_28, variant), _weights(GLENN_ALOI, variant)], np.int64)
    table.flags.writeable = False
    return table


@_inline
def _shape(h: np.ndarray, nc: int, count: int, odd: int, lowest: int, highest: int) -> int:
    """The odd/even/high/low terms of a full set of runner columns (core: `_shape`)."""
    tail = 2 * nc
    middle = h[tail + W_MIDDLE]
    score = 0
    if odd == count:
        score += h[tail + W_ODD]
    if odd == 0:
        score -= h[tail + W_EVEN]
    if lowest >= middle:
        score += h[tail + W_HIGH]
    if highest <= middle:
        score += h[tail + W_LOW]
    return score


@_inline
def progress_score(h: np.ndarray, tab: np.ndarray, row: np.ndarray) -> int:
    """The stopping score of this turn's runners (core: `progress_score`)."""
    nc = tab[H_COLUMNS]
    own = pieces_at(tab, row[R_PLAYER])
    score = count = odd = 0
    lowest, highest = 99, -1
    for j in range(nc):
        r = row[R_RUNNERS + j]
        if r:
            score += (r - row[own + j] + 1) * h[j]
            count += 1
            odd += (j + 2) & 1
            lowest = min(lowest, j + 2)
            highest = max(highest, j + 2)
    if count and count >= tab[H_RUNNERS]:
        score += _shape(h, nc, count, odd, lowest, highest)
    return score


@_inline
def runner_shape(tab: np.ndarray, row: np.ndarray) -> tuple[int, int, int, int]:
    """(count, odd count, lowest, highest) of this turn's runner columns, by column number."""
    count = odd = 0
    lowest, highest = 99, -1
    for j in range(tab[H_COLUMNS]):
        if row[R_RUNNERS + j]:
            count += 1
            odd += (j + 2) & 1
            lowest = min(lowest, j + 2)
            highest = max(highest, j + 2)
    return count, odd, lowest, highest


@_inline
def move_score(
    h: np.ndarray, tab: np.ndarray, row: np.ndarray, action: int,
    shape: tuple[int, int, int, int],
) -> int:
    """The score of playing choice `action` (core: `move_score`); `shape` is `runner_shape`."""
    nc = tab[H_COLUMNS]
    count, odd, lowest, highest = shape
    score = 0
    previous = -1
    cols = tab[O_ACTION_COLS] + 3 * action
    for i in range(tab[tab[O_ACTION_LEN] + action]):
        j = tab[cols + i]
        w = h[nc + j]
        score += w
        if not row[R_RUNNERS + j] and j != previous:  # sorted: a column placed twice is adjacent
            score += w - h[2 * nc + W_MARKER]
            count += 1
            odd += (j + 2) & 1
            lowest = min(lowest, j + 2)
            highest = max(highest, j + 2)
        previous = j
    if count >= tab[H_RUNNERS]:
        score -= _shape(h, nc, count, odd, lowest, highest)
    return score


@_inline
def stop_wins(tab: np.ndarray, row: np.ndarray) -> bool:
    """Would stopping now claim the columns that win? (core: `heuristic.stop_wins`)"""
    nc = tab[H_COLUMNS]
    me = row[R_PLAYER]
    claims_at = R_RUNNERS + nc
    tops = claims = 0
    for j in range(nc):
        r = row[R_RUNNERS + j]
        if r and r == tab[tab[O_HEIGHTS] + j]:
            tops += 1
        claims += row[claims_at + j] == me
    return tops > 0 and claims + tops >= tab[H_TO_WIN]


@_inline
def heuristic_act(h: np.ndarray, tab: np.ndarray, row: np.ndarray, work: np.ndarray) -> int:
    """Core: `heuristic_play`. In CHOOSE, `work` must flag the legal choices."""
    if row[R_PHASE] == CHOOSE:
        w = 2 * tab[H_COLUMNS]
        best = -(1 << 40)
        pick = -1
        shape = runner_shape(tab, row)
        for k in range(work[w + W_COUNT]):  # ">=": the last of core's order wins ties
            a = work[w + W_CHOICES + k]
            score = move_score(h, tab, row, a, shape)
            if score >= best:
                best, pick = score, a
        return pick
    if not kernels.may_stop(tab, row):
        return int(tab[H_ROLL_ACTION])
    if stop_wins(tab, row):
        return int(tab[H_STOP_ACTION])
    if kernels.may_place(tab, work):
        return int(tab[H_ROLL_ACTION])
    if progress_score(h, tab, row) >= h[2 * tab[H_COLUMNS] + W_THRESHOLD]:
        return int(tab[H_STOP_ACTION])
    return int(tab[H_ROLL_ACTION])


@_inline
def random_act(
    tab: np.ndarray, row: np.ndarray, work: np.ndarray, draws: np.uint64, draw: int
) -> tuple[int, int]:
    """Core: `random_bot`, taking draw `draw` of the game's draw stream (`draws`, its key).

    Returns the action and the next draw's number.
    """
    if row[R_PHASE] == CHOOSE:
        w = 2 * tab[H_COLUMNS]
        pick = int(nb_uniform_at(draws, draw) * work[w + W_COUNT])
        return work[w + W_CHOICES + pick], draw + 1
    if kernels.may_stop(tab, row):
        if nb_uniform_at(draws, draw) < 0.5:
            return tab[H_STOP_ACTION], draw + 1
        return tab[H_ROLL_ACTION], draw + 1
    return tab[H_ROLL_ACTION], draw
