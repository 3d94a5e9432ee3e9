"""The roll map: every roll in one group, the chances sum to one, rolling is their expectation."""

from __future__ import annotations

import random

import pytest
from analysis_games import SMALL
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cantstop.analysis import AnalysisError, Units
from cantstop.analysis.rollmap import roll_map
from cantstop.core.state import ROLL, STOP, Phase, State, new_game


def wander(spec: str, players: int, seed: int, steps: int) -> State:
    """A position reached by random play, about to roll or deciding whether to."""
    rng = random.Random(seed)
    state = new_game(spec, players)
    for _ in range(steps):
        if state.phase is Phase.ROLL:
            state = state.roll(tuple(rng.randint(1, state.variant.faces) for _ in range(4)))
        elif state.phase is Phase.CHOOSE:
            state = state.play(rng.choice(state.options))
        elif state.phase is Phase.DECIDE:
            state = state.play(STOP if rng.random() < 0.3 else ROLL)
        else:
            break
    while state.phase is Phase.CHOOSE:
        state = state.play(state.options[0])
    return state


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), steps=st.integers(0, 30))
def test_the_groups_cover_every_roll_once_and_rolling_is_their_expectation(seed: int, steps: int) -> None:
    state = wander(SMALL, 2, seed, steps)
    if state.is_over:
        return
    found = roll_map(state)
    assert sum(g.rolls for g in found.groups) == state.variant.faces**4
    assert sum(g.chance for g in found.groups) == pytest.approx(1.0)
    assert found.roll == pytest.approx(sum(g.chance * g.value for g in found.groups), abs=1e-9)
    catalog = state.variant.catalog
    busts = sum(w for i, w in enumerate(catalog.weights) if not state.outcome_choices(i))
    assert found.bust == pytest.approx(busts / catalog.total)
    assert all(0.0 <= g.value <= 100.0 for g in found.groups)
    assert all(g.best in g.choices for g in found.groups if g.choices)
    if state.phase is Phase.DECIDE and state.may_stop():
        assert found.stop is not None
    else:
        assert found.stop is None


def test_a_classic_turn_start_map_has_no_stop_and_its_bust_chance_is_nil() -> None:
    found = roll_map(new_game("classic", 2))
    assert found.units is Units.CHANCE
    assert found.stop is None and found.bust == 0.0
    assert 40.0 < found.roll < 60.0  # the first mover's chance, near an even game


def test_a_map_is_refused_once_the_dice_are_rolled() -> None:
    with pytest.raises(AnalysisError, match="already rolled"):
        roll_map(new_game("classic", 2).roll((2, 4, 5, 5)))


def test_the_advice_is_to_roll_on_after_a_small_start_and_to_stop_with_a_column_won() -> None:
    start = new_game("classic", 2).roll((1, 1, 1, 1)).play((2, 2))  # two steps up column 2
    early = roll_map(start)
    assert early.advice == "roll on" and early.roll > early.stop  # type: ignore[operator]
    won = start.play(ROLL).roll((1, 1, 2, 2)).play((2, 4)).play(ROLL).roll((6, 6, 6, 6)).play((12, 12))
    assert won.runners[2] == won.variant.height(2)  # column 2's runner at its top: stopping claims it
    late = roll_map(won)
    assert late.advice == "stop" and late.stop > late.roll  # type: ignore[operator]
    assert late.to_json()["advice"] == "stop"
    assert roll_map(new_game("classic", 2)).advice is None  # a turn's start: no stopping yet
