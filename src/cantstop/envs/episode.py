"""What the environments share: the episode's dice, chance resolved inside, the rewards.

The dice of an episode are addressed, not drawn from a stateful generator: roll k
(0, 1, ...) of an episode with key K is ordered roll number
`(splitmix64(K + (k + 1) * GOLDEN) >> 32) * faces**4 >> 32` of `faces**4` (the rolls
in `itertools.product` order, first die most significant). Each step is plain 64-bit
integer arithmetic, so a batched (compiled) twin can reproduce an episode exactly
from the same key; `reset(seed=s)` draws K from the environment's generator.
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np

from cantstop.core.dice import Dice
from cantstop.core.state import Phase, State

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15  # splitmix64's increment


def splitmix64(x: int) -> int:
    """The splitmix64 finaliser of a 64-bit value: a well-mixed 64-bit output."""
    x &= MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


@cache
def ordered_rolls(n: int, faces: int) -> tuple[Dice, ...]:
    """Every ordered roll of `n` dice, in `itertools.product` order: roll numbers index it."""
    return tuple(itertools.product(range(1, faces + 1), repeat=n))


class EpisodeDice:
    """The dice of one episode, roll k from (key, k) alone; see the module docstring."""

    def __init__(self, key: int) -> None:
        if not 0 <= key < 2**64:
            raise ValueError(f"a dice key is a 64-bit unsigned integer, not {key}")
        self.key = key
        self.rolled = 0  # rolls made so far: the next roll's number

    def index(self, k: int, count: int) -> int:
        """Which of `count` ordered rolls roll number `k` is."""
        mixed = splitmix64(self.key + (k + 1) * GOLDEN)
        return ((mixed >> 32) * count) >> 32

    def roll(self, n: int, faces: int) -> Dice:
        rolls = ordered_rolls(n, faces)
        dice = rolls[self.index(self.rolled, len(rolls))]
        self.rolled += 1
        return dice


def episode_dice(np_random: np.random.Generator) -> EpisodeDice:
    """The dice of a new episode, keyed from the environment's generator (so seeds fix them)."""
    return EpisodeDice(int(np_random.integers(2**63)))


def roll_through(state: State, dice: EpisodeDice) -> State:
    """Roll until someone has a decision to make (busts pass the turn on) or the game ends."""
    faces = state.variant.faces
    while state.phase is Phase.ROLL:
        state = state.roll(dice.roll(4, faces))
    return state


def reward(before: State, after: State, seat: int) -> float:
    """What `seat` earns from `before` to `after`.

    Alone (solitaire), -1 per finished turn, so that an episode's return is minus the
    turns the game took; against others, +1 for a win and -1 for a loss when the game
    ends, 0 elsewhere.
    """
    if after.players == 1:
        return float(before.turn - after.turn)
    if after.phase is Phase.OVER:
        return 1.0 if after.winner == seat else -1.0
    return 0.0
