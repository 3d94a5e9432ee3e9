"""The simplest bots: they need no look-ahead."""

from __future__ import annotations

import random

from cantstop.bots.base import Budget, Level, register
from cantstop.core.state import ROLL, STOP, Action, Phase, State


def random_bot(state: State, rng: random.Random, budget: Budget, stop_chance: float = 0.5) -> Action:
    """Uniform over the choices; stops with probability `stop_chance` when it may."""
    if state.phase is Phase.CHOOSE:
        return rng.choice(state.options)
    if STOP in state.legal_actions() and rng.random() < stop_chance:
        return STOP
    return ROLL


@register("random", Level.EASY, "Picks any legal move at random; stops half the time.")
def play_random(state: State, rng: random.Random, budget: Budget) -> Action:
    return random_bot(state, rng, budget)
