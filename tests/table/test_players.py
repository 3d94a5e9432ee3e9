"""Bot players: made ready for a kind of game before their clock starts, then timed."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from cantstop.bots import Budget, get_bot
from cantstop.bots.base import rehearse
from cantstop.core.dice import SeededDice
from cantstop.core.state import Action, Phase, State, new_game
from cantstop.core.variant import Variant, preset
from cantstop.table import BotPlayer, Fault, SeatFailed


class Clock:
    """A clock that moves only when told: what a decision takes is what the test says."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def deciding(seed: int = 1) -> State:
    state = new_game("classic", 2)
    return state.roll(SeededDice(seed).roll(4, 6))


def player_of(play: object, prepare: object, clock: Clock) -> BotPlayer:
    info = replace(get_bot("random"), play=play, prepare=prepare)  # type: ignore[arg-type]
    return BotPlayer(info, tolerance=2.0, clock=clock)


def test_getting_ready_is_not_timed_and_happens_once_per_kind_of_game() -> None:
    clock = Clock()
    kinds: list[tuple[str, int]] = []

    def prepare(variant: Variant, players: int) -> None:
        kinds.append((variant.name, players))
        clock.now += 100.0  # a first run's compiling: far past any limit

    player = player_of(lambda state, rng, budget: state.options[0], prepare, clock)
    state = deciding()
    assert player.act(state, 1000) == state.options[0]  # no timeout: the clock started after it
    player.act(state, 1000)
    assert kinds == [("classic", 2)]
    player.new_game(preset("classic"), 3, 0, 7)  # another kind: ready again, before the game
    assert kinds == [("classic", 2), ("classic", 3)]


def test_a_decision_itself_is_timed_by_the_same_clock() -> None:
    clock = Clock()

    def slow(state: State, rng: random.Random, budget: Budget) -> Action:
        clock.now += 3.0
        return state.options[0]

    with pytest.raises(SeatFailed) as failed:
        player_of(slow, lambda variant, players: None, clock).act(deciding(), 1000)
    assert failed.value.fault is Fault.TIMEOUT and "took 3000 ms, over the limit of 2050 ms" in failed.value.reason


def test_a_bot_that_cannot_get_ready_fails_its_seat_saying_so() -> None:
    def prepare(variant: Variant, players: int) -> None:
        raise ImportError("numba is not installed")

    player = player_of(lambda state, rng, budget: state.options[0], prepare, Clock())
    with pytest.raises(SeatFailed) as failed:
        player.act(deciding(), 1000)
    assert failed.value.fault is Fault.CRASH
    assert failed.value.reason == "could not get ready for classic with 2 players: ImportError: numba is not installed"


def test_a_rehearsal_makes_a_choice_and_a_roll_or_stop_once_per_kind() -> None:
    phases: list[Phase] = []

    def play(state: State, rng: random.Random, budget: Budget) -> Action:
        phases.append(state.phase)
        return get_bot("rule28").play(state, rng, budget)

    prepare = rehearse(play)
    prepare(preset("classic"), 2)
    assert Phase.CHOOSE in phases and Phase.DECIDE in phases
    before = len(phases)
    prepare(preset("classic"), 2)
    assert len(phases) == before  # once per kind of game in a process
    prepare(preset("turtles"), 2)
    assert len(phases) > before
