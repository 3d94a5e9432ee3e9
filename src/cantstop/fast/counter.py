"""Counter-based randomness: every number is a pure function of (seed, game, counter).

A game's k-th roll and its bot's k-th uniform draw are computed from their address, not
drawn from a generator's sequence, so a game's dice never depend on the batch size, the
thread count or what other games did. Each function here has a compiled twin of the same
name prefixed `nb_`; the pure-Python ones feed core games in the equality tests.

The mix is SplitMix64's finaliser, applied once per part of the address.
"""

from __future__ import annotations

import random

import numba as nb
import numpy as np

from cantstop.core.dice import Dice

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
DICE_STREAM = 0xD1CE  # separates the dice of a game from its bots' draws
DRAW_STREAM = 0xB075


def mix(z: int) -> int:
    """SplitMix64's step and finaliser on a 64-bit word."""
    z = (z + GOLDEN) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def word(seed: int, stream: int, game: int, counter: int) -> int:
    """The 64 random bits at one address."""
    return mix(mix(mix(mix(seed & MASK) ^ stream) ^ (game & MASK)) ^ (counter & MASK))


def counter_dice(seed: int, game: int, roll: int, faces: int, n: int = 4) -> Dice:
    """Roll number `roll` of `game`: one of the faces**n ordered rolls, uniformly."""
    count = faces**n
    index = ((word(seed, DICE_STREAM, game, roll) >> 32) * count) >> 32
    digits = []
    for _ in range(n):
        index, face = divmod(index, faces)
        digits.append(face + 1)
    return tuple(reversed(digits))


def counter_uniform(seed: int, game: int, draw: int) -> float:
    """Draw number `draw` of `game`'s bots: a float in [0, 1) with 53 random bits."""
    return (word(seed, DRAW_STREAM, game, draw) >> 11) * 2.0**-53


class CounterDice:
    """A core `DiceSource` rolling `game`'s dice in order: the twin of the compiled games."""

    def __init__(self, seed: int, game: int) -> None:
        self.seed = seed
        self.game = game
        self.rolls = 0

    def roll(self, n: int, faces: int) -> Dice:
        dice = counter_dice(self.seed, self.game, self.rolls, faces, n)
        self.rolls += 1
        return dice


class CounterRandom(random.Random):
    """A `random.Random` whose `random()` gives `game`'s bot draws in order.

    Only `random()` follows the counter; the Python random bot draws with it alone.
    """

    def __init__(self, seed: int, game: int) -> None:
        super().__init__(0)
        self.key = (seed, game)
        self.draws = 0

    def random(self) -> float:
        seed, game = self.key
        value = counter_uniform(seed, game, self.draws)
        self.draws += 1
        return value


# ------------------------------------------------------------------ compiled twins
_U = np.uint64


@nb.njit(cache=True, inline="always")
def nb_mix(z: np.uint64) -> np.uint64:
    """`mix`, compiled (uint64 arithmetic wraps as the Python twin's mask does)."""
    z = z + _U(GOLDEN)
    z = (z ^ (z >> _U(30))) * _U(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> _U(27))) * _U(0x94D049BB133111EB)
    return z ^ (z >> _U(31))


@nb.njit(cache=True)
def nb_word(seed: np.uint64, stream: np.uint64, game: int, counter: int) -> np.uint64:
    """`word`, compiled; `seed` comes already masked to 64 bits."""
    return nb_mix(nb_mix(nb_mix(nb_mix(seed) ^ stream) ^ _U(game)) ^ _U(counter))


@nb.njit(cache=True)
def nb_dice(seed: np.uint64, game: int, roll: int, faces: int, out: np.ndarray) -> None:
    """`counter_dice` for four dice, written into `out`."""
    count = _U(faces * faces * faces * faces)
    index = ((nb_word(seed, _U(DICE_STREAM), game, roll) >> _U(32)) * count) >> _U(32)
    f = _U(faces)
    for i in range(3, -1, -1):
        out[i] = np.int8(index % f) + 1
        index //= f


@nb.njit(cache=True)
def nb_uniform(seed: np.uint64, game: int, draw: int) -> float:
    """`counter_uniform`, compiled."""
    return float(nb_word(seed, _U(DRAW_STREAM), game, draw) >> _U(11)) * 2.0**-53
