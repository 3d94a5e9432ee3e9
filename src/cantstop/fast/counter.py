"""The compiled twins of `cantstop.core.counter` (counter-based randomness), `nb_` prefixed.

The pure-Python functions live in core (standard library only, so that environments
without this extra share them) and are re-exported here; each `nb_` function computes
exactly what its twin there computes.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from cantstop.core.counter import (
    DICE_STREAM,
    DRAW_STREAM,
    GOLDEN,
    MASK,
    CounterDice,
    CounterRandom,
    counter_dice,
    counter_uniform,
    mix,
    word,
)

__all__ = [
    "DICE_STREAM",
    "DRAW_STREAM",
    "GOLDEN",
    "MASK",
    "CounterDice",
    "CounterRandom",
    "counter_dice",
    "counter_uniform",
    "mix",
    "nb_dice",
    "nb_mix",
    "nb_uniform",
    "nb_word",
    "word",
]


# ------------------------------------------------------------------ compiled twins
_U = np.uint64


@nb.njit(cache=True, inline="always")
def nb_mix(z: np.uint64) -> np.uint64:
    """`mix`, compiled (uint64 arithmetic wraps as the Python twin's mask does)."""
    z = z + _U(GOLDEN)
    z = (z ^ (z >> _U(30))) * _U(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> _U(27))) * _U(0x94D049BB133111EB)
    return z ^ (z >> _U(31))


@nb.njit(cache=True, inline="always")
def nb_word(seed: np.uint64, stream: np.uint64, game: int, counter: int) -> np.uint64:
    """`word`, compiled; `seed` comes already masked to 64 bits."""
    return nb_mix(nb_mix(nb_mix(nb_mix(seed) ^ stream) ^ _U(game)) ^ _U(counter))


@nb.njit(cache=True, inline="always")
def nb_dice(seed: np.uint64, game: int, roll: int, faces: int, out: np.ndarray) -> None:
    """`counter_dice` for four dice, written into `out`."""
    count = _U(faces * faces * faces * faces)
    index = ((nb_word(seed, _U(DICE_STREAM), game, roll) >> _U(32)) * count) >> _U(32)
    f = _U(faces)
    for i in range(3, -1, -1):
        out[i] = np.int8(index % f) + 1
        index //= f


@nb.njit(cache=True, inline="always")
def nb_uniform(seed: np.uint64, game: int, draw: int) -> float:
    """`counter_uniform`, compiled."""
    return float(nb_word(seed, _U(DRAW_STREAM), game, draw) >> _U(11)) * 2.0**-53
