"""Counter-based randomness: every number is a pure function of (seed, stream, game, counter).

A game's k-th roll and its bots' k-th uniform draw are computed from their address, not
drawn from a generator's sequence, so a game's dice never depend on how many games run
beside it, in which order, or on how many threads. The compiled twins of these functions
live in `cantstop.fast.counter` (`nb_` prefixed); the reinforcement-learning environments
and the equality tests between core and fast use these pure-Python ones.

The mix is SplitMix64's finaliser, applied once per part of the address.
"""

from __future__ import annotations

import random

from cantstop.core.dice import Dice

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
# Streams keep a game's numbers for different purposes apart.
DICE_STREAM = 0xD1CE  # the dice
DRAW_STREAM = 0xB075  # the bots' uniform draws
SEAT_STREAM = 0x5EA7  # which seat an environment's agent takes, when it is drawn


def mix(z: int) -> int:
    """SplitMix64's step and finaliser on a 64-bit word."""
    z = (z + GOLDEN) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def word(seed: int, stream: int, game: int, counter: int) -> int:
    """The 64 random bits at one address."""
    return mix(mix(mix(mix(seed & MASK) ^ stream) ^ (game & MASK)) ^ (counter & MASK))


def counter_below(seed: int, stream: int, game: int, counter: int, count: int) -> int:
    """A number 0..count-1 (count < 2**32) from the top 32 bits at one address."""
    return ((word(seed, stream, game, counter) >> 32) * count) >> 32


def counter_dice(seed: int, game: int, roll: int, faces: int, n: int = 4) -> Dice:
    """Roll number `roll` of `game`: one of the faces**n ordered rolls, uniformly."""
    index = counter_below(seed, DICE_STREAM, game, roll, faces**n)
    digits = []
    for _ in range(n):
        index, face = divmod(index, faces)
        digits.append(face + 1)
    return tuple(reversed(digits))


def counter_uniform(seed: int, game: int, draw: int) -> float:
    """Draw number `draw` of `game`'s bots: a float in [0, 1) with 53 random bits."""
    return (word(seed, DRAW_STREAM, game, draw) >> 11) * 2.0**-53


class CounterDice:
    """A `DiceSource` rolling `game`'s dice in order: the twin of the compiled games."""

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

    Only `random()` follows the counter (and so `choice`, `randrange` and `shuffle`,
    which Python builds on it for a subclass that overrides `random` alone); the Python
    random bot draws with `random()` alone.
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
