"""The error family: each refusal raises its own CantStopError subclass, naming what is allowed."""

from __future__ import annotations

import pytest

import cantstop
from cantstop.core.choices import parse_choice
from cantstop.core.errors import (
    BotUnfitError,
    CantStopError,
    ColumnError,
    NotationError,
    PhaseError,
    SetupError,
    UnknownBotError,
    VariantError,
)
from cantstop.core.odds import bust_after, chance_to_use, next_roll
from cantstop.core.state import new_game
from cantstop.core.variant import Variant, preset


def test_an_unknown_variant_is_a_variant_error_listing_the_presets() -> None:
    with pytest.raises(VariantError, match=r"unknown variant 'chess'; known variants: classic, .*solitaire"):
        preset("chess")


def test_an_unknown_variant_option_is_a_variant_error_listing_the_options() -> None:
    with pytest.raises(VariantError, match=r"unknown variant option 'speed'.*options: heights, .*to_win"):
        preset("classic+speed=2")


def test_a_bad_option_value_is_a_variant_error_saying_what_to_write() -> None:
    with pytest.raises(VariantError, match=r"bad value 'maybe' for skip .*: write true or false"):
        preset("classic+skip=maybe")


def test_rules_that_make_no_game_are_one_variant_error_naming_every_fault() -> None:
    with pytest.raises(VariantError, match=r"runners must be 1\.\.11, not 0; to_win must be 1\.\.11, not 12"):
        Variant(runners=0, to_win=12)


def test_a_choice_that_cannot_be_read_is_a_notation_error_with_an_example() -> None:
    with pytest.raises(NotationError, match=r"bad choice 'six': write the columns joined by '\+', e\.g\. 6\+10"):
        parse_choice("six")
    with pytest.raises(NotationError, match=r"name at least one column, e\.g\. 7"):
        parse_choice("+")


def test_odds_asked_in_the_wrong_phase_are_a_phase_error_naming_the_phase() -> None:
    rolled = new_game("classic", 2).roll((2, 4, 5, 5))
    with pytest.raises(PhaseError, match="odds are for a state about to roll, not one in CHOOSE"):
        next_roll(rolled)
    with pytest.raises(PhaseError, match="choices are offered in the choose phase, not in ROLL"):
        bust_after(new_game("classic", 2))


def test_a_column_the_variant_lacks_is_a_column_error_naming_the_columns() -> None:
    with pytest.raises(ColumnError, match=r"no column 1, 13 in classic; columns are 2\.\.12"):
        chance_to_use(preset("classic"), (1, 7, 13))


def test_a_player_count_the_variant_refuses_is_a_setup_error_naming_the_range() -> None:
    with pytest.raises(SetupError, match=r"solitaire is for 1\.\.1 players, not 2"):
        new_game("solitaire", 2)


def test_the_bot_errors_live_in_the_family_too() -> None:
    assert issubclass(BotUnfitError, SetupError)
    assert issubclass(UnknownBotError, CantStopError)


@pytest.mark.parametrize(
    "error", [VariantError, PhaseError, ColumnError, UnknownBotError, BotUnfitError, SetupError, NotationError]
)
def test_every_error_is_a_cant_stop_error_a_value_error_and_exported(error: type[Exception]) -> None:
    assert issubclass(error, CantStopError) and issubclass(error, ValueError)
    assert getattr(cantstop, error.__name__) is error and error.__name__ in cantstop.__all__
