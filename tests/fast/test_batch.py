"""Batches: exact round trips, and bad input refused with the game and what is legal."""

from __future__ import annotations

import numpy as np
import pytest

from cantstop import IllegalActionError, InvalidDiceError, new_game, preset
from cantstop.core.actions import action_numbering
from cantstop.fast import from_arrays, legal_masks, new_batch, roll, step, to_arrays
from cantstop.fast.batch import bytes_per_game


def test_new_batch_holds_opening_positions() -> None:
    batch = new_batch(preset("classic"), 3, 4)
    assert from_arrays(batch) == [new_game("classic", 3)] * 4


@pytest.mark.parametrize("size", [0, -5])
def test_a_batch_needs_at_least_one_game(size: int) -> None:
    with pytest.raises(ValueError, match=f"at least 1, not {size}"):
        new_batch(preset("classic"), 2, size)


def test_a_batch_too_big_is_refused_before_allocating() -> None:
    size = 10**15
    with pytest.raises(MemoryError, match=r"need [\d,.]+ GiB \(\d+ bytes each\) but only"):
        new_batch(preset("classic"), 2, size)
    assert bytes_per_game(preset("classic"), 2) == 4 * (8 + 4 * 11)  # int32 row: 8 slots, 4 per column


def test_player_count_outside_the_variant_is_refused() -> None:
    with pytest.raises(ValueError, match=r"solitaire is for 1\.\.1 players, not 2"):
        new_batch(preset("solitaire"), 2, 1)


def test_mixed_states_are_refused() -> None:
    with pytest.raises(ValueError, match="state 1 is turtles with 2 players"):
        to_arrays([new_game("classic", 2), new_game("turtles", 2)])
    with pytest.raises(ValueError, match="at least one state"):
        to_arrays([])


def rolled() -> tuple[object, ...]:
    start = new_game("classic", 2)
    batch, busts = roll(to_arrays([start, start]), np.array([[2, 4, 5, 5], [1, 1, 1, 1]]))
    return batch, busts, start


def test_roll_and_step_play_what_core_plays() -> None:
    batch, busts, start = rolled()
    assert busts.tolist() == [False, False]
    numbering = action_numbering(start.variant)
    after = step(batch, np.array([numbering.index((6, 10)), numbering.index((2, 2))]))
    assert from_arrays(after) == [
        start.roll((2, 4, 5, 5)).play((6, 10)),
        start.roll((1, 1, 1, 1)).play((2, 2)),
    ]
    assert from_arrays(batch) == [start.roll((2, 4, 5, 5)), start.roll((1, 1, 1, 1))]  # untouched


def test_an_illegal_action_names_the_game_and_the_legal_ones_and_changes_nothing() -> None:
    batch, _, _ = rolled()
    before = from_arrays(batch)
    with pytest.raises(IllegalActionError, match=r"game 1: action 0 \(2\) is not legal in the CHOOSE phase; legal: 11 \(2\+2\)"):
        step(batch, np.array([53, 0]))
    with pytest.raises(IllegalActionError, match=r"game 0: action 79 is outside the numbering 0..78 .*legal: 53 \(6\+10\), 58 \(7\+9\)"):
        step(batch, np.array([79, 11]))
    with pytest.raises(IllegalActionError, match="2 integers, one per game"):
        step(batch, np.array([53]))
    assert from_arrays(batch) == before


def test_rolling_is_only_for_games_waiting_for_dice() -> None:
    batch, _, _ = rolled()
    with pytest.raises(IllegalActionError, match=r"game 0: cannot roll in the CHOOSE phase; legal: 53"):
        roll(batch, np.array([[1, 2, 3, 4]] * 2))
    start = to_arrays([new_game("classic", 2)])
    with pytest.raises(InvalidDiceError, match=r"game 0: bad dice \(1, 2, 3, 7\): each die is 1..6"):
        roll(start, np.array([[1, 2, 3, 7]]))


def test_masks_mark_roll_and_stop_in_decide() -> None:
    batch, _, start = rolled()
    numbering = action_numbering(start.variant)
    after = step(batch, np.array([53, 11]))
    masks = legal_masks(after)
    assert [np.flatnonzero(m).tolist() for m in masks] == [[len(numbering) - 2, len(numbering) - 1]] * 2
