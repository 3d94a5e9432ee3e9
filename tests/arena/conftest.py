"""Tiny bots for the arena's tests, registered under names no real bot uses."""

from __future__ import annotations

import random
import time

from cantstop.bots import Budget, Level, register
from cantstop.bots.simple import random_bot
from cantstop.core.state import ROLL, Action, Phase, State


@register("test-cautious", Level.EASY, "Random, but stops 90% of the time: weaker than random.")
def cautious(state: State, rng: random.Random, budget: Budget) -> Action:
    return random_bot(state, rng, budget, stop_chance=0.9)


@register("test-crash", Level.EASY, "Raises on its third decision of a game.")
def crash(state: State, rng: random.Random, budget: Budget) -> Action:
    if state.turn >= 2:
        raise RuntimeError("deliberate failure")
    return random_bot(state, rng, budget)


@register("test-hang", Level.EASY, "Never answers once the game is a few turns old.")
def hang(state: State, rng: random.Random, budget: Budget) -> Action:
    if state.turn >= 2:
        while True:
            time.sleep(0.01)
    return random_bot(state, rng, budget)


@register("test-illegal", Level.EASY, "Plays column 13, which does not exist, from turn 2 on.")
def illegal(state: State, rng: random.Random, budget: Budget) -> Action:
    if state.phase is Phase.CHOOSE and state.turn >= 2:
        return (13,)
    return random_bot(state, rng, budget)


@register("test-never-stop", Level.EASY, "Rolls until it busts: a game of two never ends.")
def never_stop(state: State, rng: random.Random, budget: Budget) -> Action:
    return state.options[0] if state.phase is Phase.CHOOSE else ROLL
