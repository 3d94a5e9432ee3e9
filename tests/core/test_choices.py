"""Choices: the engine's generator against a brute-force oracle, and the choice text forms."""

from __future__ import annotations

import itertools

import pytest

from cantstop import new_game
from cantstop.core.choices import format_choice, parse_choice

from .helpers import ALL_SPECS, brute_choices, position, sample_positions


@pytest.mark.parametrize("spec", ALL_SPECS)
def test_choices_equal_brute_force_over_every_roll(spec: str) -> None:
    """For positions met in random play, every ordered roll gives the oracle's choices."""
    positions = sample_positions(spec, 10, seed=len(spec))
    variant = positions[0].variant
    rolls = list(itertools.product(range(1, variant.faces + 1), repeat=4))
    w = variant.wild_dice
    for state in positions:
        # The oracle depends on the dice as two multisets (wild-carrying dice, plain dice):
        # remember its answers so the 1296 ordered rolls cost ~126 oracle calls.
        oracle: dict[tuple[tuple[int, ...], ...], set[tuple[int, ...]]] = {}
        for dice in rolls:
            key = (tuple(sorted(dice[:w])), tuple(sorted(dice[w:])))
            if key not in oracle:
                oracle[key] = brute_choices(state, dice)
            got = state.choices(dice)
            assert list(got) == sorted(set(got)), "choices come sorted, without duplicates"
            assert set(got) == oracle[key], (state, dice)


@pytest.mark.parametrize("spec", ["classic", "classic-skip", "classic+pairing=captain", "classic+step_limit=3"])
def test_choices_equal_brute_force_in_crafted_corners(spec: str) -> None:
    """Runners one below and at tops, one runner left, a near-exhausted step limit."""
    corners = [
        position(spec, runners={7: 12, 3: 5}),
        position(spec, runners={6: 10, 8: 11, 2: 2}),
        position(spec, runners={12: 2}, pieces=[{7: 11}, {7: 12, 8: 5}]),
        position(spec, runners={5: 8, 9: 1}, pieces=[{}, {5: 7}]),
    ]
    faces = corners[0].variant.faces
    for state in corners:
        for dice in itertools.product(range(1, faces + 1), repeat=4):
            assert set(state.choices(dice)) == brute_choices(state, dice), (state, dice)


def test_choices_of_equivalent_rolls_are_equal() -> None:
    state = new_game()
    for dice in itertools.permutations((1, 5, 4, 6)):
        assert state.choices(dice) == ((5, 11), (6, 10), (7, 9))


def test_outcome_choices_match_choices_of_the_canonical_roll() -> None:
    state = position("turtles", runners={7: 3})
    catalog = state.variant.catalog
    for i, dice in enumerate(catalog.outcomes):
        assert state.outcome_choices(i) == state.choices(dice)


@pytest.mark.parametrize(
    ("text", "choice"),
    [("6+10", (6, 10)), ("10,6", (6, 10)), ("7", (7,)), ("7 7", (7, 7)), ("7+7", (7, 7))],
)
def test_parse_choice(text: str, choice: tuple[int, ...]) -> None:
    assert parse_choice(text) == choice
    assert parse_choice(format_choice(choice)) == choice


@pytest.mark.parametrize("text", ["", "+", "six", "6+x"])
def test_parse_choice_rejects_bad_text(text: str) -> None:
    with pytest.raises(ValueError, match="bad choice"):
        parse_choice(text)
