"""A seat leaving the game (resigning): its pieces come off and the others play on."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cantstop import ROLL, STOP, IllegalActionError, Phase, SeededDice, new_game
from cantstop.core.notation import from_json, from_notation, to_json, to_notation
from cantstop.core.record import Leave, read_record, record_from_json, record_to_json, write_record
from cantstop.core.summary import summarize
from cantstop.table import Forfeited, Move, Policy, Table

from .helpers import position


def three_seats_mid_game() -> Table:
    """Three seats; A has claimed column 2 and holds 7, B holds 7 higher, C is in 12."""
    record = read_record(
        '[Variant "classic"]\n[Players "Ann; Bob; Cy"]\n[First "A"]\n\n'
        "1. A 1111 2+2 1111 2 1234 3+7 stop\n"  # A tops column 2 (three spaces), one up in 3 and 7
        "2. B 3434 7+7 stop\n"
        "3. C 6666 12+12 stop\n"
    )
    return Table(record, SeededDice(1))


def test_a_leaving_seat_takes_its_pieces_and_claims_off_the_board() -> None:
    game = three_seats_mid_game()
    before = game.state
    assert before.claimed[2] == 0 and before.pieces[0][7] == 1 and before.seat == 0
    after = before.leave(0)
    assert after.out == (0,)
    assert not any(after.pieces[0]) and after.claimed[2] == -1  # column 2 is open again
    assert after.pieces[1] == before.pieces[1] and after.pieces[2] == before.pieces[2]
    assert after.seat == 1 and after.phase is Phase.ROLL
    assert after.turn == before.turn  # A had not rolled yet: its turn was not taken


def test_a_turn_counts_only_once_its_dice_are_rolled() -> None:
    """A turn begins with a roll (rules.md): a seat leaving before its first roll took no
    turn, one leaving after it ends a turn that counts; the same when that ends the game."""
    assert new_game("classic", 2).leave(0).turn == 0  # resigned before anyone moved: won in 0 turns
    assert new_game("classic", 2).leave(1).turn == 0  # the other one resigned: the same
    rolled = new_game("classic", 2).roll((1, 5, 4, 6))
    assert rolled.turn_begun and not new_game("classic", 2).turn_begun
    assert rolled.leave(0).turn == rolled.leave(1).turn == 1  # A's turn was taken, whoever left
    again = rolled.play((6, 10)).play(ROLL)  # rolling again: still A's first turn, begun
    assert again.phase is Phase.ROLL and again.turn_begun and again.leave(1).turn == 1
    three = new_game("classic", 3)
    passed = three.leave(0)  # the mover leaves before rolling: B's turn is the first
    assert (passed.seat, passed.turn) == (1, 0)
    taken = three.roll((1, 5, 4, 6)).leave(0)  # after rolling: A's turn counts
    assert (taken.seat, taken.turn) == (1, 1)


def test_a_record_ends_the_line_of_a_turn_its_seat_left_before_rolling() -> None:
    game = three_seats_mid_game()
    game.play(Move.resign(0, "had to go"))  # A, to move in turn 4, leaves before rolling
    assert game.state.turn == 3 and game.state.seat == 1
    game.play(Move.rolled((3, 4, 3, 4)))
    text = write_record(game.record)
    assert text.endswith("\n4. A resign:A\n4. B 3434\n") and '[Turns "3"]' in text
    assert read_record(text).final() == game.state


def test_play_passes_over_a_seat_that_left() -> None:
    state = new_game("classic", 3).leave(1)  # B leaves while A is to roll: A plays on
    assert state.seat == 0 and state.turn == 0
    state = state.roll((1, 1, 1, 1)).play((2, 2)).play(STOP)
    assert state.seat == 2  # B is passed over
    state = state.roll((6, 6, 6, 6)).play((12, 12)).play(STOP)
    assert state.seat == 0


def test_the_last_seat_left_has_won() -> None:
    state = new_game("classic", 2).roll((1, 5, 4, 6)).play((6, 10))
    over = state.leave(1)  # B resigns during A's turn
    assert over.is_over and over.winner == 0 and over.runner_columns == ()
    four = new_game("classic", 4).leave(3).leave(0).leave(2)
    assert four.is_over and four.winner == 1 and four.out == (0, 2, 3)


def test_a_third_seat_leaving_in_choose_phase_recomputes_the_options() -> None:
    state = position("classic", pieces=[{}, {7: 13}, {}], num_players=3)
    rolled = state.roll((1, 1, 1, 6))  # 2+7 in every pairing; 7 is B's
    assert rolled.options == ((2,),)
    left = rolled.leave(1)
    assert left.phase is Phase.CHOOSE and set(left.options) == {(2, 7)}
    assert left.play((2, 7)).runners[7] == 1


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda: new_game("classic", 2).leave(2), "not in the game; seats playing: A, B"),
        (lambda: new_game("classic", 3).leave(1).leave(1), "not in the game; seats playing: A, C"),
        (lambda: new_game("classic", 2).leave(0).leave(1), "the game is over"),
        (lambda: new_game("classic", 2).leave(-1), "not in the game"),
        (lambda: new_game("solitaire", 1).leave(0), "seat A cannot leave: it is the only seat"),
    ],
)
def test_a_seat_that_cannot_leave_is_refused_by_name(make: object, words: str) -> None:
    with pytest.raises(IllegalActionError, match=words):
        make()  # type: ignore[operator]


def test_positions_with_a_seat_gone_round_trip() -> None:
    state = new_game("classic", 3).roll((1, 1, 1, 1)).play((2, 2)).leave(2)
    assert to_notation(state) == "classic 00000000000/00000000000/- 20000000000 A decide 2 0"
    assert from_notation(to_notation(state)) == state
    assert to_json(state)["out"] == [2]
    assert from_json(to_json(state)) == state
    over = state.leave(1)
    assert from_notation(to_notation(over)) == over


@pytest.mark.parametrize(
    "text",
    [
        "classic -/00000000000/00000000000 00000000000 A roll 0 1",  # the mover has left
        "classic -/00000000000 00000000000 B roll 0 1",  # one seat left, yet the game goes on
    ],
)
def test_impossible_positions_with_seats_gone_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="impossible position"):
        from_notation(text)


def test_a_record_keeps_a_seat_leaving_as_resign() -> None:
    game = three_seats_mid_game()
    game.play(Move.resign(1, "had to go"))
    assert game.record.events[-1] == Leave(1)
    text = write_record(game.record)
    assert text.endswith("\n4. A resign:B\n")  # in A's turn, which goes on
    again = read_record(text)
    assert again.final() == game.state and again.events == game.record.events
    assert record_from_json(record_to_json(game.record)).final() == game.state


def test_a_bad_resign_token_names_the_seats() -> None:
    with pytest.raises(ValueError, match="resign: and a seat letter"):
        read_record('[Players "A; B"]\n\n1. A resign:Z\n')


def test_among_people_a_resignation_lets_the_others_play_on() -> None:
    game = three_seats_mid_game()
    told = game.play(Move.resign(0, "resigned"))
    assert told == [Forfeited(0, None, "resigned", None)]
    assert not game.over and game.state.seat == 1 and game.forfeit is None
    told = game.play(Move.resign(2))
    assert told[0].winner == 1 and game.over and game.winner == 1


def test_in_a_match_a_resignation_still_ends_the_game_as_lost() -> None:
    record = three_seats_mid_game().record
    match = Table(record, SeededDice(1), policy=Policy.FORFEIT)
    match.play(Move.resign(0))
    assert match.over and match.forfeit is not None and match.state.out == ()


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.integers(2, 4), leave_at=st.lists(st.integers(0, 80), max_size=3))
def test_games_with_seats_leaving_replay_and_round_trip(seed: int, players: int, leave_at: list[int]) -> None:
    rng = random.Random(seed)
    game = Table.new("classic", [f"P{i}" for i in range(players)], SeededDice(seed))
    steps = 0
    while not game.over and steps < 400:
        state = game.state
        if steps in leave_at:
            playing = [p for p in range(players) if p not in state.out]
            game.play(Move.resign(rng.choice(playing)))
        elif state.phase is Phase.ROLL:
            game.play(Move.of(ROLL))
        elif state.phase is Phase.CHOOSE:
            game.play(Move.of(rng.choice(state.options)))
        else:
            game.play(Move.of(STOP if STOP in state.legal_actions() and rng.random() < 0.4 else ROLL))
        steps += 1
        state = game.state
        assert state.seat not in state.out
        assert all(not any(state.pieces[p]) for p in state.out)
        assert all(owner not in state.out for owner in state.claimed)
    text = write_record(game.record)
    assert read_record(text).final() == game.state
    assert from_notation(to_notation(game.state)) == game.state
    # The game's turn count is the turns its seats took: each began with a roll.
    began = sum(seat.turns for seat in summarize(game.record).seats)
    assert game.state.turn == began - (not game.over and game.state.turn_begun)
