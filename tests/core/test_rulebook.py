"""Every example of the rulebooks in ../shared/seeds, one test each, named after it."""

from __future__ import annotations

import pytest

from cantstop import STOP, Phase, SeededDice, new_game, preset, roll_off
from cantstop.core.odds import chance_to_use

from .helpers import position


class ScriptedDice:
    """Dice that come out in a given order (for roll-offs)."""

    def __init__(self, *rolls: tuple[int, ...]) -> None:
        self.rolls = list(rolls)

    def roll(self, n: int, faces: int) -> tuple[int, ...]:
        dice = self.rolls.pop(0)
        assert len(dice) == n and all(1 <= d <= faces for d in dice)
        return dice


# ------------------------------------------------------- Parker Brothers 1980 (and 1999 help)
def test_roll_1_5_4_6_makes_6_and_10_or_5_and_11_or_9_and_7() -> None:
    assert new_game().choices((1, 5, 4, 6)) == ((5, 11), (6, 10), (7, 9))


def test_choosing_6_and_10_places_markers_on_the_bottom_of_6_and_10() -> None:
    state = new_game().roll((1, 5, 4, 6)).play((6, 10))
    assert state.runner_columns == (6, 10)
    assert state.runners[6] == state.runners[10] == 1


def test_runners_on_6_and_10_roll_2_4_3_5() -> None:
    state = position(runners={6: 1, 10: 1})
    assert state.choices((2, 4, 3, 5)) == ((5,), (6, 8), (7, 7), (9,))


def test_runners_on_6_and_10_roll_2_4_3_5_choose_6_and_8_moves_6_and_places_third_on_8() -> None:
    state = position(runners={6: 1, 10: 1}).roll((2, 4, 3, 5)).play((6, 8))
    assert (state.runners[6], state.runners[8], state.runners[10]) == (2, 1, 1)
    assert state.runners_left == 0


def test_runners_on_6_and_10_roll_2_4_3_5_choose_5_and_9_places_either_and_ignores_the_other() -> None:
    rolled = position(runners={6: 1, 10: 1}).roll((2, 4, 3, 5))
    assert (5, 9) not in rolled.options
    for column, other in ((5, 9), (9, 5)):
        after = rolled.play((column,))
        assert after.runners[column] == 1 and after.runners[other] == 0


def test_runners_on_6_and_10_roll_2_4_3_5_choose_7_and_7_puts_third_marker_two_spaces_up() -> None:
    state = position(runners={6: 1, 10: 1}).roll((2, 4, 3, 5)).play((7, 7))
    assert state.runners[7] == 2


def test_runners_on_3_and_6_roll_2_4_5_5_gives_exactly_6_10_or_7_or_9() -> None:
    assert position(runners={3: 1, 6: 1}).choices((2, 4, 5, 5)) == ((6, 10), (7,), (9,))


def test_placing_onto_the_space_directly_above_your_own_square() -> None:
    state = position(pieces=[{7: 5}]).roll((3, 4, 1, 1)).play((2, 7))
    assert state.runners[7] == 6 and state.runners[2] == 1


def test_placing_a_marker_onto_a_space_an_opponent_occupies() -> None:
    state = position(pieces=[{}, {6: 1, 8: 1}]).roll((3, 3, 4, 4)).play((6, 8))
    assert state.runners[6] == 1 and state.runners[8] == 1


def test_marker_at_top_of_6_with_three_markers_placed_roll_2_4_5_5_blows_it_and_wins_nothing() -> None:
    state = position(runners={3: 2, 6: 11, 8: 3}, pieces=[{3: 1}], steps=9)
    after = state.roll((2, 4, 5, 5))
    assert after.phase is Phase.ROLL and after.seat == 1 and after.turn == 1
    assert after.claimed[6] == -1
    assert after.pieces == state.pieces and not any(after.runners)


def test_columns_6_8_10_won_roll_2_4_4_6_blows_it_even_with_markers_to_place() -> None:
    state = position(pieces=[{6: 11}, {8: 11, 10: 7}])
    assert state.runners_left == 3
    assert state.choices((2, 4, 4, 6)) == ()
    assert state.roll((2, 4, 4, 6)).seat == 1


def test_winning_a_column_removes_opponents_squares_from_it() -> None:
    state = position(runners={12: 3}, pieces=[{}, {12: 2, 7: 4}], steps=3)
    after = state.roll((1, 1, 1, 1)).play((2, 2)).play(STOP)
    assert after.claimed[12] == 0 and after.pieces[0][12] == 3
    assert after.pieces[1][12] == 0 and after.pieces[1][7] == 4


def test_no_marker_in_a_column_someone_won_even_your_own() -> None:
    state = position(pieces=[{2: 3}])
    assert state.choices((1, 1, 3, 4)) == ((4, 5), (7,))  # 1+1 would be column 2


def test_strategy_hint_the_likeliest_sums_are_6_7_8_not_6_8_10() -> None:
    classic = preset("classic")
    assert chance_to_use(classic, (7,)) > chance_to_use(classic, (6,)) > chance_to_use(classic, (10,))
    assert chance_to_use(classic, (6, 7, 8)) > chance_to_use(classic, (6, 8, 10))


def test_who_starts_highest_two_dice_total() -> None:
    rolloff = roll_off(preset("classic"), 3, ScriptedDice((1, 2), (6, 5), (3, 3)))
    assert rolloff.first == 1 and len(rolloff.rounds) == 1


# ------------------------------------------------------------------- the modern text
def test_roll_3_4_2_6_makes_7_and_8_or_5_and_10_or_9_and_6() -> None:
    assert new_game().choices((3, 4, 2, 6)) == ((5, 10), (6, 9), (7, 8))


def test_roll_2_4_4_6_can_make_two_moves_in_column_8() -> None:
    state = new_game().roll((2, 4, 4, 6))
    assert (8, 8) in state.options
    assert state.play((8, 8)).runners[8] == 2


def test_reroll_ties_only_the_tied_players_roll_again() -> None:
    dice = ScriptedDice((6, 6), (2, 3), (6, 6), (4, 4), (5, 5), (1, 1))
    rolloff = roll_off(preset("classic"), 4, dice)
    assert rolloff.rounds[0] == ((0, 12), (1, 5), (2, 12), (3, 8))
    assert rolloff.rounds[1] == ((0, 10), (2, 2))
    assert rolloff.first == 0 and not dice.rolls


# ----------------------------------------------------------------- Can't Stop the Turtles
def test_turtles_roll_2_3_4_6_makes_5_and_10_or_7_and_8_or_6_and_9() -> None:
    assert new_game("turtles").choices((2, 3, 4, 6)) == ((5, 10), (6, 9), (7, 8))


def test_turtles_8_race_needs_six_chips_2_and_12_need_two() -> None:
    turtles = preset("turtles")
    assert (turtles.height(8), turtles.height(7), turtles.height(2), turtles.height(12)) == (6, 7, 2, 2)


def test_turtles_the_turtle_is_wild_you_decide_which_number_it_is() -> None:
    turtles = new_game("turtles")
    plain = new_game("turtles+wild_face=none+wild_dice=0")
    union = {c for face in range(1, 7) for c in plain.choices((face, 2, 3, 4))}
    assert set(turtles.choices((1, 2, 3, 4))) == union
    assert (7, 7) in union  # the turtle as 5: 5+2 and 3+4


def test_turtles_three_race_limit_then_flip_your_shell() -> None:
    state = position("turtles", runners={2: 1, 3: 1, 12: 1}, steps=3)
    after = state.roll((5, 5, 5, 5))
    assert after.phase is Phase.ROLL and after.seat == 1  # flipped: no 10 race entered


def test_turtles_roll_to_start_counts_the_turtle_as_6() -> None:
    rolloff = roll_off(preset("turtles"), 2, ScriptedDice((6, 5), (1, 6)))
    assert rolloff.rounds[0] == ((0, 11), (1, 12)) and rolloff.first == 1


def test_turtles_chip_supply_18_chips_limit_the_steps_of_a_turn() -> None:
    state = position("turtles", runners={6: 6, 7: 5, 8: 6}, steps=17)
    assert state.choices((3, 4, 3, 4)) == ((7,),)  # 7+7 would take 19 chips
    last = state.roll((3, 4, 3, 4)).play((7,))
    assert last.steps == 18 and last.runners[7] == 6
    assert all(not last.choices(d) for d in last.variant.catalog.outcomes)


def test_relay_race_roll_1_2_4_6_captain_6_makes_7_8_10() -> None:
    plain_relay = new_game("turtles-relay+wild_face=none+wild_dice=0")
    assert plain_relay.choices((1, 2, 4, 6)) == ((3, 5, 7), (3, 6, 8), (5, 6, 10), (7, 8, 10))
    assert (7, 8, 10) in new_game("turtles-relay").choices((1, 2, 4, 6))


def test_relay_race_every_usable_sum_is_played() -> None:
    state = new_game("turtles-relay+wild_face=none+wild_dice=0").roll((1, 2, 4, 6)).play((7, 8, 10))
    assert state.runner_columns == (7, 8, 10)


def test_seeded_dice_replay_the_same_rolls() -> None:
    a, b = SeededDice(5), SeededDice(5)
    assert [a.roll(4, 6) for _ in range(20)] == [b.roll(4, 6) for _ in range(20)]


@pytest.mark.parametrize("name", ["classic-long", "turtles-long"])
def test_longer_game_four_columns_to_win(name: str) -> None:
    top = preset(name).height
    three = {3: top(3), 4: top(4), 5: top(5)}
    state = position(name, runners={2: top(2) - 1}, pieces=[three], steps=1).roll((1, 1, 1, 1))
    state = state.play((2,))
    claim_fourth = state.play(STOP)
    assert claim_fourth.is_over and claim_fourth.winner == 0
    only_three = position(name, runners={2: top(2) - 1}, pieces=[{3: top(3), 4: top(4)}], steps=1)
    after = only_three.roll((1, 1, 1, 1)).play((2,)).play(STOP)
    assert not after.is_over and after.columns_won(0) == (2, 3, 4)
