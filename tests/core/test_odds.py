"""Exact odds: the figures RULES.md asks to show players, and next-roll odds of positions."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from cantstop import Phase, new_game, preset
from cantstop.core.odds import bust_after, chance_to_use, column_sets, next_roll, runners_state

from .helpers import brute_choices, position

CLASSIC = preset("classic")


@pytest.mark.parametrize(
    ("columns", "percent"),
    [((2,), 13.19), ((12,), 13.19), ((3,), 23.30), ((11,), 23.30), ((4,), 35.57), ((10,), 35.57),
     ((5,), 44.75), ((9,), 44.75), ((6,), 56.10), ((8,), 56.10), ((7,), 64.35)],
)
def test_chance_a_roll_can_make_a_sum(columns: tuple[int, ...], percent: float) -> None:
    assert round(100 * float(chance_to_use(CLASSIC, columns)), 2) == percent


def test_best_triple_6_7_8_is_91_98_percent() -> None:
    assert round(100 * float(chance_to_use(CLASSIC, (6, 7, 8))), 2) == 91.98
    assert column_sets(CLASSIC, 3)[0][0] == (6, 7, 8)


def test_worst_triples_2_3_12_and_2_11_12_are_43_83_percent() -> None:
    worst = column_sets(CLASSIC, 3)[-2:]
    assert {cols for cols, _ in worst} == {(2, 3, 12), (2, 11, 12)}
    assert all(round(100 * float(chance), 2) == 43.83 for _, chance in worst)


def test_chance_to_use_counts_rolls_by_brute_force() -> None:
    rolls = list(itertools.product(range(1, 7), repeat=4))
    hits = sum(1 for d in rolls if {d[0] + d[1], d[2] + d[3], d[0] + d[2], d[1] + d[3], d[0] + d[3], d[1] + d[2]} & {4, 9})
    assert chance_to_use(CLASSIC, (4, 9)) == Fraction(hits, 1296)


def test_turtles_wild_face_makes_every_sum_likelier() -> None:
    turtles = preset("turtles")
    for c in range(3, 13):
        assert chance_to_use(turtles, (c,)) > chance_to_use(CLASSIC, (c,))
    # a 2 needs two ones, and ones are the turtles: no gain there
    assert chance_to_use(turtles, (2,)) == chance_to_use(CLASSIC, (2,))


def test_unknown_columns_are_refused() -> None:
    with pytest.raises(ValueError, match=r"no column 13 in classic; columns are 2\.\.12"):
        chance_to_use(CLASSIC, (6, 13))


@pytest.mark.parametrize("spec", ["classic", "turtles", "classic-skip"])
def test_next_roll_odds_match_counting_every_roll(spec: str) -> None:
    state = position(spec, runners={3: 1, 7: 2}, pieces=[{}, {7: 3, 8: 1}], phase=Phase.DECIDE, steps=3)
    odds = next_roll(state)
    rolls = list(itertools.product(range(1, 7), repeat=4))
    outcomes = [brute_choices(state, d) for d in rolls]
    assert odds.usable == Fraction(sum(1 for o in outcomes if o), 1296)
    assert odds.bust == 1 - odds.usable
    assert odds.expected_steps == Fraction(sum(max((len(c) for c in o), default=0) for o in outcomes), 1296)
    for choice, chance in odds.choices.items():
        assert chance == Fraction(sum(1 for o in outcomes if choice in o), 1296)


def test_next_roll_with_runners_on_6_7_8_is_the_91_98_figure() -> None:
    state = runners_state(CLASSIC, (6, 7, 8))
    assert next_roll(state).usable == chance_to_use(CLASSIC, (6, 7, 8))


def test_opening_roll_never_busts() -> None:
    assert next_roll(new_game()).bust == 0


def test_odds_are_for_positions_about_to_roll() -> None:
    with pytest.raises(ValueError, match="about to roll"):
        next_roll(new_game().roll((1, 2, 3, 4)))


def test_bust_after_each_choice_counts_the_rolls_that_would_bust() -> None:
    # Runners on 7 and 8 already: 3+4 and 1+6 give 7+7, which keeps the third runner free,
    # far safer than putting it on 4.
    state = position("classic", runners={7: 1, 8: 1}, phase=Phase.ROLL, steps=2).roll((3, 4, 1, 6))
    odds = bust_after(state)
    assert set(odds) == set(state.options)
    rolls = list(itertools.product(range(1, 7), repeat=4))
    for option, bust in odds.items():
        after = state.play(option)
        assert bust == Fraction(sum(1 for d in rolls if not brute_choices(after, d)), 1296)
    assert odds[(7, 7)] < odds[(4,)]


def test_bust_after_is_for_positions_with_choices() -> None:
    with pytest.raises(ValueError, match="choose phase"):
        bust_after(new_game())
