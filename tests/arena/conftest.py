"""Tiny bots for the arena's tests, registered only while a test of tests/arena runs.

They must not stay in the registry: a test elsewhere that plays every registered
bot would meet a bot that hangs on purpose.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator

import pytest

from cantstop.bots import Budget, Level, base, register
from cantstop.bots.simple import random_bot
from cantstop.core.state import ROLL, Action, Phase, State


def cautious(state: State, rng: random.Random, budget: Budget) -> Action:
    return random_bot(state, rng, budget, stop_chance=0.9)


def crash(state: State, rng: random.Random, budget: Budget) -> Action:
    if state.turn >= 2:
        raise RuntimeError("deliberate failure")
    return random_bot(state, rng, budget)


HANG_SECONDS = 60.0  # far past any limit a test sets: the watchdog interrupts it long before


def hang(state: State, rng: random.Random, budget: Budget) -> Action:
    if state.turn >= 2:
        deadline = time.monotonic() + HANG_SECONDS
        while time.monotonic() < deadline:
            time.sleep(0.01)
        raise RuntimeError(f"the watchdog did not interrupt a bot hanging for {HANG_SECONDS:g} s")
    return random_bot(state, rng, budget)


def illegal(state: State, rng: random.Random, budget: Budget) -> Action:
    if state.phase is Phase.CHOOSE and state.turn >= 2:
        return (13,)
    return random_bot(state, rng, budget)


def never_stop(state: State, rng: random.Random, budget: Budget) -> Action:
    return state.options[0] if state.phase is Phase.CHOOSE else ROLL


TEST_BOTS: list[tuple[str, str, Callable[[State, random.Random, Budget], Action]]] = [
    ("test-cautious", "Random, but stops 90% of the time: weaker than random.", cautious),
    ("test-crash", "Raises once the game is two turns old.", crash),
    ("test-hang", "Never answers once the game is a few turns old.", hang),
    ("test-illegal", "Plays column 13, which does not exist, from turn 2 on.", illegal),
    ("test-never-stop", "Rolls until it busts: a game of two never ends.", never_stop),
]


@pytest.fixture(autouse=True)
def test_bots() -> Iterator[None]:
    for name, description, play in TEST_BOTS:
        register(name, Level.EASY, description, f"Test bot {name}")(play)
    yield
    for name, _, _ in TEST_BOTS:
        base._REGISTRY.pop(name, None)
