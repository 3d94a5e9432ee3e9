"""The simplest bots: they need no look-ahead."""

from __future__ import annotations

import random

from cantstop.bots.base import Budget, Level, register
from cantstop.core.state import ROLL, STOP, Action, Phase, State


def random_bot(state: State, rng: random.Random, budget: Budget, stop_chance: float = 0.5) -> Action:
    """Uniform over the choices; stops with probability `stop_chance` when it may.

    One `rng.random()` per decision (none when stopping is not allowed), so that the
    compiled random bot of `cantstop.fast`, fed the same draws, picks the same.
    """
    if state.phase is Phase.CHOOSE:
        options = state.options
        return options[int(rng.random() * len(options))]
    if STOP in state.legal_actions() and rng.random() < stop_chance:
        return STOP
    return ROLL


@register("random", Level.EASY, "Picks any legal move at random; stops half the time.", "Random bot")
def play_random(state: State, rng: random.Random, budget: Budget) -> Action:
    return random_bot(state, rng, budget)


CAUTIOUS_STEPS = 5  # steps per turn after which the cautious bot banks its progress


def cautious_bot(state: State, steps: int = CAUTIOUS_STEPS) -> Action:
    """Most steps first (runners already out preferred); stops after `steps` steps or at a top."""
    if state.phase is Phase.CHOOSE:
        runners = state.runners
        return max(
            state.options,
            key=lambda choice: (len(choice), sum(1 for c in set(choice) if runners[c])),
        )
    if STOP not in state.legal_actions():
        return ROLL
    heights = state.variant.heights
    at_top = any(r and r == heights[c - 2] for c, r in enumerate(state.runners) if c >= 2)
    return STOP if at_top or state.steps >= steps else ROLL


@register(
    "cautious",
    Level.EASY,
    "Moves as far as it can, banks after five steps or when a runner reaches a top.",
    "Cautious bot",
)
def play_cautious(state: State, rng: random.Random, budget: Budget) -> Action:
    return cautious_bot(state)
