"""The rulings of RULES.md, one test each, and the State's contract (immutable, precise errors)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cantstop import (
    ROLL,
    STOP,
    IllegalActionError,
    InvalidDiceError,
    Phase,
    SetupError,
    State,
    new_game,
    preset,
)

from .helpers import ALL_SPECS, play_random, players_for, position


# ------------------------------------------------------------------ rulings (RULES.md §1)
def test_a_turn_begins_with_a_roll_no_stop_before_rolling() -> None:
    state = new_game()
    assert state.phase is Phase.ROLL and state.legal_actions() == ()
    with pytest.raises(IllegalActionError, match="dice must be rolled first"):
        state.play(STOP)


def test_both_sums_must_be_played_when_both_can() -> None:
    assert new_game().choices((3, 3, 4, 4)) == ((6, 8), (7, 7))  # never (6,) or (8,) alone
    choices = position(runners={6: 1, 10: 1}).choices((1, 5, 4, 6))
    assert (6, 10) in choices and (6,) not in choices and (10,) not in choices


def test_one_runner_left_and_two_new_columns_the_player_picks_either() -> None:
    choices = position(runners={3: 1, 11: 1}).choices((1, 4, 4, 5))
    assert (5,) in choices and (9,) in choices and (5, 9) not in choices


def test_a_pairing_playing_one_sum_is_allowed_when_another_would_play_two() -> None:
    choices = position(runners={3: 1, 6: 1}).choices((2, 4, 5, 5))
    assert (6, 10) in choices and (7,) in choices


def test_double_with_one_runner_left_places_and_moves_twice() -> None:
    state = position(runners={3: 1, 6: 1}).roll((3, 4, 3, 4))
    assert (7, 7) in state.options
    assert state.play((7, 7)).runners[7] == 2


def test_runner_one_below_the_top_of_7_with_7_and_7_takes_one_step() -> None:
    state = position(runners={7: 12})
    assert state.choices((3, 4, 3, 4)) == ((6, 8), (7,))
    assert state.roll((3, 4, 3, 4)).play((7,)).runners[7] == 13


def test_a_runner_at_the_top_makes_its_sum_unusable() -> None:
    state = position(runners={7: 13, 3: 1, 4: 1}, steps=15)
    assert state.choices((3, 4, 3, 4)) == ()


def test_claimed_column_is_closed_to_the_claimer_too() -> None:
    state = position(pieces=[{7: 13}])
    assert state.claimed[7] == 0
    assert all(7 not in choice for dice in state.variant.catalog.outcomes for choice in state.choices(dice))


def test_a_new_runner_needs_a_column_with_room_as_well_as_a_runner_left() -> None:
    tops = {2: 3, 3: 5, 4: 7, 5: 9, 6: 11, 8: 11, 9: 9, 10: 7}  # claimed by the rival
    state = position(runners={11: 2, 12: 1}, pieces=[{}, tops], steps=2)
    assert state.runners_left == 1 and state.may_place()  # column 7 is still open
    state = position(runners={7: 13, 11: 2, 12: 1}, pieces=[{}, tops], steps=3)
    assert not state.may_place()  # no runner left
    state = position(runners={7: 1, 12: 1}, pieces=[{11: 5}, tops], steps=2)
    assert state.runners_left == 1 and not state.may_place()  # 11 is the mover's, the rest the rival's


def test_bust_removes_runners_keeps_pieces_and_passes_the_turn() -> None:
    state = position(runners={2: 1, 3: 1, 12: 1}, pieces=[{7: 4}, {8: 2}], steps=3)
    after = state.roll((5, 5, 5, 5))
    assert after.phase is Phase.ROLL and after.seat == 1 and after.turn == state.turn + 1
    assert after.pieces == state.pieces and not any(after.runners) and after.steps == 0


def test_stop_moves_pieces_up_to_the_runners() -> None:
    state = position(runners={7: 5, 8: 2}, pieces=[{7: 3}], phase=Phase.DECIDE, steps=4)
    after = state.play(STOP)
    assert after.pieces[0][7] == 5 and after.pieces[0][8] == 2 and after.seat == 1


def test_three_runners_at_tops_do_not_force_a_stop_and_the_next_roll_busts() -> None:
    state = position(runners={2: 3, 3: 5, 12: 3}, phase=Phase.DECIDE, steps=11)
    assert state.legal_actions() == (ROLL, STOP)
    rolled = state.play(ROLL)
    for dice in state.variant.catalog.outcomes:
        assert rolled.choices(dice) == ()
    assert rolled.roll((6, 6, 6, 6)).seat == 1


def test_a_claim_wipes_every_rivals_piece_in_the_column_and_only_there() -> None:
    state = position(
        runners={7: 13, 8: 4}, pieces=[{7: 2}, {7: 12, 8: 3}, {7: 1, 6: 2}], phase=Phase.DECIDE, steps=12, num_players=3
    )
    after = state.play(STOP)
    assert after.claimed[7] == 0 and after.claimed.count(-1) == len(after.claimed) - 1
    assert [row[7] for row in after.pieces] == [13, 0, 0]
    assert after.pieces[1][8] == 3 and after.pieces[2][6] == 2 and after.pieces[0][8] == 4


def test_a_runner_at_the_top_claims_nothing_until_the_stop() -> None:
    state = position(runners={2: 3}, phase=Phase.DECIDE, steps=3)
    assert state.claimed[2] == -1
    assert state.play(STOP).claimed[2] == 0


def test_the_game_is_won_at_once_at_the_end_of_the_stop() -> None:
    state = position(runners={2: 3, 12: 3}, pieces=[{7: 13}], phase=Phase.DECIDE, steps=6)
    after = state.play(STOP)
    assert after.is_over and after.winner == 0 and after.phase is Phase.OVER
    assert after.legal_actions() == () and after.turn == state.turn + 1
    with pytest.raises(IllegalActionError, match="game is over"):
        after.play(ROLL)
    with pytest.raises(IllegalActionError):
        after.roll((1, 2, 3, 4))


def test_solitaire_score_is_the_number_of_turns_busts_included() -> None:
    state = new_game("solitaire", 1)
    state = state.roll((1, 1, 1, 1)).play((2, 2)).play(ROLL).roll((1, 1, 1, 1)).play((2,))
    state = state.play(STOP)  # claims 2 in turn 1
    assert state.turn == 1 and state.seat == 0
    state = state.roll((1, 1, 1, 1))  # only 2s: claimed, so this turn busts
    assert state.turn == 2 and state.phase is Phase.ROLL
    state = state.roll((6, 6, 6, 6)).play((12, 12)).play(ROLL).roll((6, 6, 6, 6)).play((12,)).play(STOP)
    state = state.roll((5, 6, 5, 6)).play((11, 11)).play(ROLL).roll((5, 6, 5, 6)).play((11, 11))
    state = state.play(ROLL).roll((5, 6, 5, 6)).play((11,)).play(STOP)
    assert state.is_over and state.turn == 4  # the solitaire score


def test_solitaire_is_for_one_player_only() -> None:
    with pytest.raises(ValueError, match=r"1\.\.1 players"):
        new_game("solitaire", 2)


# ------------------------------------------------------------------ options (RULES.md §2)
def test_skip_a_runner_hops_over_rivals_pieces() -> None:
    state = position("classic-skip", pieces=[{}, {6: 1, 8: 2}]).roll((3, 3, 4, 4)).play((6, 8))
    assert state.runners[6] == 2 and state.runners[8] == 1
    state = position("classic-skip", runners={8: 1}, pieces=[{}, {8: 2}]).roll((4, 4, 2, 6))
    assert state.options == ((6, 10), (8, 8))
    assert state.play((8, 8)).runners[8] == 4


def test_skip_a_double_that_would_pass_the_top_is_only_one_step() -> None:
    state = position("classic-skip", runners={3: 3}, pieces=[{}, {3: 4}])
    assert state.room(3) == 1
    assert state.choices((1, 2, 1, 2)) == ((2, 4), (3,))
    plain = position("classic", runners={3: 3}, pieces=[{}, {3: 4}])
    assert plain.choices((1, 2, 1, 2)) == ((2, 4), (3, 3))


def test_no_stop_on_occupied_forbids_stopping_on_a_rivals_piece() -> None:
    state = position("classic-no-stop-on-occupied", runners={7: 4}, pieces=[{}, {7: 4}], phase=Phase.DECIDE)
    assert state.legal_actions() == (ROLL,)
    with pytest.raises(IllegalActionError, match="another player's piece"):
        state.play(STOP)
    free = position("classic-no-stop-on-occupied", runners={7: 5}, pieces=[{}, {7: 4}], phase=Phase.DECIDE)
    assert free.legal_actions() == (ROLL, STOP)
    plain = position("classic", runners={7: 4}, pieces=[{}, {7: 4}], phase=Phase.DECIDE)
    assert plain.legal_actions() == (ROLL, STOP)


def test_custom_heights_runners_and_faces() -> None:
    v = preset("classic+faces=4+heights=2.3.4.5.4.3.2+runners=2+to_win=1")
    state = new_game(v, 2)
    assert list(v.columns) == [2, 3, 4, 5, 6, 7, 8] and v.catalog.total == 256
    assert state.choices((1, 2, 3, 4)) == ((3, 7), (4, 6), (5, 5))
    state = state.roll((1, 1, 1, 1)).play((2, 2)).play(STOP)
    assert state.is_over and state.winner == 0  # column 2 has two spaces; one column wins
    two = position("classic+runners=2", runners={6: 1, 8: 1})
    assert two.choices((1, 2, 3, 4)) == ((6,),)  # both runners out: of 3+7, 4+6, 5+5 only 6
    with pytest.raises(InvalidDiceError):
        new_game(v, 2).roll((5, 1, 1, 1))


def test_step_limit_caps_the_steps_of_a_turn() -> None:
    state = position("classic+step_limit=2", runners={7: 1}, steps=1)
    assert state.choices((3, 4, 3, 4)) == ((6,), (7,), (8,))


# ------------------------------------------------------------------ the State's contract
def test_dice_must_be_a_roll_of_the_variant() -> None:
    state = new_game()
    for bad in [(1, 2, 3), (0, 1, 2, 3), (1, 2, 3, 7), "1234", None, [1, 2, 3, 4]]:
        with pytest.raises(InvalidDiceError, match=r"four dice, each 1\.\.6"):
            state.roll(bad)  # type: ignore[arg-type]


def test_roll_and_stop_may_be_given_as_plain_strings() -> None:
    deciding = new_game().roll((1, 5, 4, 6)).play((6, 10))
    assert deciding.play("roll") == deciding.play(ROLL)  # type: ignore[arg-type]
    assert deciding.play("stop") == deciding.play(STOP)  # type: ignore[arg-type]
    with pytest.raises(IllegalActionError, match="legal actions: roll, stop"):
        deciding.play("pass")  # type: ignore[arg-type]
    blocked = position("classic-no-stop-on-occupied", runners={7: 4}, pieces=[{}, {7: 4}], phase=Phase.DECIDE)
    with pytest.raises(IllegalActionError, match="another player's piece"):
        blocked.play("stop")  # type: ignore[arg-type]


def test_illegal_actions_name_what_is_legal() -> None:
    rolled = new_game().roll((1, 5, 4, 6))
    with pytest.raises(IllegalActionError, match=r"6\+8 is not legal here; legal actions: 5\+11, 6\+10, 7\+9"):
        rolled.play((6, 8))
    with pytest.raises(IllegalActionError, match="cannot roll now"):
        rolled.roll((1, 2, 3, 4))


def test_new_game_checks_players_and_first_seat() -> None:
    # SetupError: a CantStopError (and so a ValueError), the kind every caller already catches.
    with pytest.raises(SetupError, match=r"1\.\.4 players, not 5"):
        new_game("classic", 5)
    with pytest.raises(SetupError, match=r"first seat must be 0\.\.1"):
        new_game("classic", 2, 2)
    assert new_game("classic", 3, 2).seat == 2


@settings(max_examples=25, deadline=None)
@given(spec=st.sampled_from(ALL_SPECS), seed=st.integers(0, 10**6))
def test_random_games_keep_every_invariant(spec: str, seed: int) -> None:
    """Over a whole random game: tops, runner counts, claims, immutability, hashing, errors."""
    previous: State | None = None
    for state in play_random(spec, players_for(spec), seed, stop_chance=0.3):
        check_invariants(state)
        if previous is not None:
            assert previous == snapshot_of(previous)
        previous = state
        check_illegal_actions_leave_state_equal(state)
    assert previous is not None and previous.is_over


def snapshot_of(state: State) -> State:
    """A deep copy made through the tuple form: equal to the original if nothing mutated it."""
    return State(*state)


def check_invariants(state: State) -> None:
    v = state.variant
    hash(state)
    assert state == State(*state) and {state: 1}[State(*state)] == 1
    used = [c for c in v.columns if state.runners[c]]
    assert len(used) <= v.runners
    # The derived fields agree with the definitions they shortcut.
    assert state.runner_columns == tuple(used)
    assert state.runners_left == v.runners - len(used)
    assert state.may_place() == (
        len(used) < v.runners and any(not state.runners[c] and state.room(c) > 0 for c in v.columns)
    )
    for c in v.columns:
        top = v.height(c)
        assert 0 <= state.runners[c] <= top
        assert all(0 <= row[c] <= top for row in state.pieces)
        owner = state.claimed[c]
        if owner >= 0:
            assert state.pieces[owner][c] == top
            assert state.runners[c] == 0
            assert all(row[c] == 0 for p, row in enumerate(state.pieces) if p != owner)
        else:
            assert all(row[c] < top for row in state.pieces)
        if state.runners[c]:
            assert state.runners[c] > state.pieces[state.seat][c]
    if v.step_limit is not None:
        assert state.steps <= v.step_limit
    if state.phase is Phase.CHOOSE:
        assert state.options and state.options == state.choices(state.dice)  # type: ignore[arg-type]
    if state.is_over:
        assert len(state.columns_won(state.seat)) >= v.to_win and not used
    else:
        assert all(len(state.columns_won(p)) < v.to_win for p in range(state.num_players))


def check_illegal_actions_leave_state_equal(state: State) -> None:
    before = snapshot_of(state)
    legal = state.legal_actions()
    for action in [ROLL, STOP, (7,), (2, 12), (99,), "jump"]:
        if action in legal:
            continue
        with pytest.raises(IllegalActionError):
            state.play(action)  # type: ignore[arg-type]
        assert state == before
    if state.phase is not Phase.ROLL:
        with pytest.raises(IllegalActionError):
            state.roll((1, 2, 3, 4))
        assert state == before
