"""What the two environments share: dice seeded from the environment's generator,
chance nodes resolved inside, and the rewards."""

from __future__ import annotations

import numpy as np

from cantstop.core.dice import SeededDice
from cantstop.core.state import Phase, State


def seeded_dice(np_random: np.random.Generator) -> SeededDice:
    """Dice drawn from the environment's generator, so that `reset(seed=s)` fixes every roll."""
    return SeededDice(int(np_random.integers(2**63)))


def roll_through(state: State, dice: SeededDice) -> State:
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
