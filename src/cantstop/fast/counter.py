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
    "nb_roll_number",
    "nb_stream_key",
    "nb_uniform",
    "nb_uniform_at",
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
def nb_stream_key(seed: np.uint64, stream: np.uint64, game: int) -> np.uint64:
    """The first three mixes of `word`, which one game's stream shares: one more mix per number."""
    return nb_mix(nb_mix(nb_mix(seed) ^ stream) ^ _U(game))


@nb.njit(cache=True, inline="always")
def nb_word(seed: np.uint64, stream: np.uint64, game: int, counter: int) -> np.uint64:
    """`word`, compiled; `seed` comes already masked to 64 bits."""
    return nb_mix(nb_stream_key(seed, stream, game) ^ _U(counter))


@nb.njit(cache=True, inline="always")
def nb_roll_number(key: np.uint64, roll: int, faces: int) -> int:
    """Which of the faces**4 ordered rolls `counter_dice` rolls, from the dice stream's key.

    The number's base-`faces` digits are the dice less one, first die first.
    """
    count = _U(faces * faces * faces * faces)
    return int(((nb_mix(key ^ _U(roll)) >> _U(32)) * count) >> _U(32))


@nb.njit(cache=True, inline="always")
def nb_dice(seed: np.uint64, game: int, roll: int, faces: int, out: np.ndarray) -> None:
    """`counter_dice` for four dice, written into `out`."""
    index = nb_roll_number(nb_stream_key(seed, _U(DICE_STREAM), game), roll, faces)
    for i in range(3, -1, -1):
        out[i] = index % faces + 1
        index //= faces


@nb.njit(cache=True, inline="always")
def nb_uniform_at(key: np.uint64, draw: int) -> float:
    """`counter_uniform`, from the draw stream's key (`nb_stream_key`)."""
    return float(nb_mix(key ^ _U(draw)) >> _U(11)) * 2.0**-53


@nb.njit(cache=True, inline="always")
def nb_uniform(seed: np.uint64, game: int, draw: int) -> float:
    """`counter_uniform`, compiled."""
    return nb_uniform_at(nb_stream_key(seed, _U(DRAW_STREAM), game), draw)
