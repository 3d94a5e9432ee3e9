"""The fixed action space: its contents, index round-trips, and masks equal to the engine's legal actions."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cantstop import ROLL, STOP, IllegalActionError, Phase, new_game
from cantstop.encoding.actions import action_index
from core.helpers import ALL_SPECS, PRESET_NAMES, play_random, players_for


def test_classic_has_every_single_and_pair_then_roll_and_stop() -> None:
    numbering = action_index("classic")
    singles = [(c,) for c in range(2, 13)]
    pairs = list(itertools.combinations_with_replacement(range(2, 13), 2))
    assert numbering.actions == (*singles, *pairs, ROLL, STOP)
    assert numbering.size == 79
    assert (numbering.roll, numbering.stop) == (77, 78)
    assert numbering.to_index((7, 7)) == singles.__len__() + pairs.index((7, 7))


def test_relay_captain_offers_what_one_captain_can_make() -> None:
    numbering = action_index("turtles-relay")
    choices = {a for a in numbering.actions if isinstance(a, tuple)}
    assert (7, 7, 7) in choices  # a captain 1 (a turtle may show anything) and three sixes
    assert (2, 2, 12) not in choices and (2, 12) not in choices  # 1+1 and 6+6 need two captains
    # Turtles are wild on all four dice, so every captain and every three other dice occur.
    makeable = {
        tuple(sorted(sub))
        for captain in range(1, 7)
        for others in itertools.product(range(1, 7), repeat=3)
        for size in (1, 2, 3)
        for sub in itertools.combinations([captain + o for o in others], size)
    }
    assert choices == makeable
    assert numbering.size == len(makeable) + 2


@pytest.mark.parametrize("spec", ALL_SPECS)
def test_indices_and_actions_round_trip(spec: str) -> None:
    numbering = action_index(spec)
    assert len(set(numbering.actions)) == numbering.size
    for i, action in enumerate(numbering.actions):
        assert numbering.to_index(action) == i
        assert numbering.to_action(i) == action
        assert numbering.to_action(np.int64(i)) == action
        assert numbering.to_action(np.int32(i)) == action


def test_a_spec_and_its_variant_share_one_action_index() -> None:
    state = new_game("turtles", 2)
    assert action_index("turtles") is action_index(state.variant)


@settings(max_examples=60, deadline=None)
@given(spec=st.sampled_from(ALL_SPECS), seed=st.integers(0, 10**6))
def test_mask_is_exactly_the_engines_legal_actions(spec: str, seed: int) -> None:
    numbering = action_index(spec)
    for state in play_random(spec, players_for(spec), seed):
        legal = state.legal_actions()
        mask = numbering.mask(state)
        assert mask.dtype == np.int8 and mask.shape == (numbering.size,)
        assert {numbering.actions[i] for i in np.flatnonzero(mask)} == set(legal)
        assert int(mask.sum()) == len(legal)
        assert numbering.legal(state) == tuple(np.flatnonzero(mask))
        for i in numbering.legal(state):
            assert numbering.decode(i, state) == numbering.actions[i]


@pytest.mark.parametrize("spec", ["classic", "turtles", "turtles-relay"])
def test_every_choice_a_random_game_meets_is_in_the_action_index(spec: str) -> None:
    numbering = action_index(spec)
    met = {
        a for seed in range(40) for s in play_random(spec, 2, seed) for a in s.legal_actions()
    }
    assert met <= set(numbering.actions)


def _choose_state(spec: str = "classic"):  # type: ignore[no-untyped-def]
    state = new_game(spec, 2).roll((1, 2, 3, 4))
    assert state.phase is Phase.CHOOSE
    return state


def test_an_illegal_index_names_the_legal_ones() -> None:
    numbering = action_index("classic")
    state = _choose_state()  # 1234: choices 3+7, 4+6, 5+5
    with pytest.raises(IllegalActionError) as error:
        numbering.decode(numbering.roll, state)
    message = str(error.value)
    assert "77 (roll) is not legal in the CHOOSE phase" in message
    for choice in state.options:
        assert f"{numbering.to_index(choice)} ({'+'.join(map(str, choice))})" in message


@pytest.mark.parametrize(
    ("bad", "expected"),
    [(79, "out of range: actions are 0..78"), (-1, "out of range"), (1.5, "one integer 0..78"),
     ("roll", "one integer 0..78")],
)
def test_bad_indices_are_refused_clearly(bad: object, expected: str) -> None:
    numbering = action_index("classic")
    state = _choose_state()
    with pytest.raises(IllegalActionError, match=expected) as error:
        numbering.decode(bad, state)
    assert "legal now: " in str(error.value)


def test_no_action_after_the_game_and_none_at_a_chance_node() -> None:
    numbering = action_index("classic")
    start = new_game("classic", 2)
    assert numbering.mask(start).sum() == 0
    with pytest.raises(IllegalActionError, match="legal now: none"):
        numbering.decode(0, start)
    with pytest.raises(IllegalActionError, match="no action of classic"):
        numbering.to_index((2, 3, 4))


@pytest.mark.parametrize("spec", PRESET_NAMES)
def test_over_state_has_an_empty_mask(spec: str) -> None:
    *_, last = play_random(spec, players_for(spec), 7)
    numbering = action_index(spec)
    assert last.phase is Phase.OVER and numbering.mask(last).sum() == 0
    with pytest.raises(IllegalActionError, match="game is over"):
        numbering.decode(numbering.roll, last)
