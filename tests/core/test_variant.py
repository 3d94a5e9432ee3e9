"""Variants as data: presets, specs, validation."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from cantstop import PRESETS, Pairing, Variant, preset
from cantstop.core.errors import RecordError, VariantError
from cantstop.core.variant import CLASSIC_HEIGHTS, variant_spec


def test_classic_board_heights() -> None:
    v = preset("classic")
    assert [v.height(c) for c in v.columns] == [3, 5, 7, 9, 11, 13, 11, 9, 7, 5, 3]
    assert (v.runners, v.to_win, v.faces, v.dice) == (3, 3, 6, 4)


def test_turtles_race_lengths_are_half_the_classic_heights_rounded_up() -> None:
    v = preset("turtles")
    assert v.heights == (2, 3, 4, 5, 6, 7, 6, 5, 4, 3, 2)
    assert (v.wild_face, v.wild_dice, v.step_limit, v.min_players) == (1, 4, 18, 2)
    assert preset("turtles-relay").pairing is Pairing.CAPTAIN
    assert preset("turtles-long").to_win == 4


def test_presets_named_in_the_brief_exist() -> None:
    assert set(PRESETS) >= {"classic", "solitaire", "classic-long", "classic-skip",
                            "classic-no-stop-on-occupied", "turtles", "turtles-relay", "turtles-long"}


@pytest.mark.parametrize(
    ("spec", "changes"),
    [
        ("classic+to_win=5+skip", {"to_win": 5, "skip": True}),
        ("classic+heights=3.5.7.9.11.13.11.9.7.5.4", {"heights": CLASSIC_HEIGHTS[:-1] + (4,)}),
        ("turtles+wild_face=none+wild_dice=0", {"wild_face": None, "wild_dice": 0}),
        ("turtles+step_limit=none", {"step_limit": None}),
        ("classic+pairing=captain", {"pairing": Pairing.CAPTAIN}),
        ("classic-skip+skip=false", {"skip": False}),
    ],
)
def test_specs_change_a_preset(spec: str, changes: dict[str, object]) -> None:
    v = preset(spec)
    for key, value in changes.items():
        assert getattr(v, key) == value
    assert preset(variant_spec(v)) == v


def test_every_preset_names_itself() -> None:
    for name, v in PRESETS.items():
        assert variant_spec(v) == name and preset(name) is v


def test_variant_spec_is_the_shortest_description() -> None:
    assert variant_spec(preset("classic+skip")) == "classic-skip"
    assert variant_spec(preset("classic+to_win=4+min_players=2+max_players=3")) == "classic-long"


def test_equality_ignores_the_name() -> None:
    assert preset("classic+to_win=3") == preset("classic")
    assert hash(preset("classic+to_win=3")) == hash(preset("classic"))


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("chess", "unknown variant 'chess'; known variants: classic, solitaire"),
        ("classic+speed=3", "unknown variant option 'speed'"),
        ("classic+to_win=x", "bad value 'x' for to_win in variant 'classic+to_win=x': write a whole number"),
        ("classic+skip=maybe", "bad value 'maybe' for skip in variant 'classic+skip=maybe': write true or false"),
        ("classic+pairing=triples", "for pairing in variant 'classic+pairing=triples': write pairs or captain"),
        ("classic+heights=3,5,3", "write whole numbers joined by dots"),
        ("classic+step_limit=x", "write a whole number or none"),
        ("classic+to_win=4+to_win=5", "to_win is changed twice in 'classic+to_win=4+to_win=5'"),
        ("classic+faces=5", "so heights needs 9 columns, not 11"),
        ("classic+runners=0", "runners must be 1..11"),
        ("classic+wild_face=7", "wild_face must be 1..6"),
        ("classic+wild_face=1", "wild_face and wild_dice go together"),
        ("classic+step_limit=0", "step_limit must be at least 1"),
        ("classic+min_players=3+max_players=2", "min_players <= max_players"),
        ("classic+heights=3.5.7.9.11.40.11.9.7.5.3", "every column height must be 1..35"),
    ],
)
def test_bad_specs_say_what_is_allowed(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace(".", r"\.").replace("+", r"\+")):
        preset(spec)


def test_with_options_makes_a_custom_copy() -> None:
    v = preset("classic").with_options(runners=2)
    assert v.runners == 2 and v.name == "custom" and isinstance(v, Variant)


def test_the_same_spec_gives_the_same_variant_and_tables() -> None:
    """Positions read from text must not rebuild the roll tables (and lose the choice cache)."""
    from cantstop.core.notation import from_notation

    a = from_notation("classic+to_win=5 00000000000/00000000000 00000000000 A roll 0 0")
    b = from_notation("classic+to_win=5 00000000000/00000000000 00000000000 B roll 0 0")
    assert a.variant is b.variant and a.variant.catalog is b.variant.catalog
    assert preset("turtles+wild_dice=2") is preset("turtles+wild_dice=2")


# ------------------------------------------------------------------ games that must end
def test_the_longer_game_to_five_is_for_two_players_and_every_game_that_could_never_end_is_refused() -> None:
    """Three players to 5 could claim 4 + 4 + 3 of the 11 columns; four to 4, 3 + 3 + 3 + 2 (the
    relay race's deadlock a fresh CI seed found: every roll then busts, for ever)."""
    from cantstop.core.errors import SetupError
    from cantstop.core.notation import NotationError, from_notation
    from cantstop.core.state import new_game

    assert new_game("classic+to_win=5", 2).num_players == 2 and new_game("classic-long", 3).num_players == 3
    for spec, players, most in (("classic+to_win=5", 3, 2), ("turtles-relay+to_win=4", 4, 3), ("classic+to_win=4", 4, 3)):
        with pytest.raises(SetupError, match=rf"is for \d\.\.{most} players, not {players}: {players} players could claim all 11 "
                                             rf"columns with nobody at \d, and that game could never end"):
            new_game(spec, players)
    four_seats = "classic+to_win=4 " + "/".join(["00000000000"] * 4) + " 00000000000 A roll 0 0"
    with pytest.raises(NotationError, match=r"4 seats, but classic\+to_win=4 is for 1\.\.3 players, not 4: .* could never end"):
        from_notation(four_seats)


def test_a_record_of_three_players_to_five_played_before_the_rule_still_replays() -> None:
    """The rule refuses such a game when it starts; a record of one (a file saved, a game stored
    by a server before) is history, finite, and reads back as the book allows it."""
    from cantstop.bots.base import get_bot
    from cantstop.core.dice import SeededDice
    from cantstop.core.errors import SetupError
    from cantstop.core.record import Record, read_record, write_record
    from cantstop.table import Table
    from cantstop.table.players import BotPlayer

    with pytest.raises(SetupError, match="could never end"):
        Table.new("classic+to_win=5", ["Ann", "Bob", "Cy"], SeededDice(5))
    table = Table(Record(preset("classic+to_win=5"), ["Ann", "Bob", "Cy"]), SeededDice(5), [BotPlayer(get_bot("rule28").play)] * 3)
    table.run(until=lambda t: t.state.turn >= 12)
    text = write_record(table.record)
    again = read_record(text)
    assert again.players == ["Ann", "Bob", "Cy"] and again.final() == table.state
    with pytest.raises(RecordError, match=r"is for 1\.\.4 players, not 5"):  # the book's own limit still holds
        read_record(text.replace('"Ann; Bob; Cy"', '"Ann; Bob; Cy; Di; Ed"'))


@given(faces=st.integers(2, 6), to_win=st.integers(1, 11), low=st.integers(1, 4), data=st.data())
def test_most_players_is_the_most_that_cannot_share_every_column_with_nobody_at_to_win(
    faces: int, to_win: int, low: int, data: st.DataObject
) -> None:
    columns = 2 * faces - 1
    assume(to_win <= columns)
    high = data.draw(st.integers(low, 4))
    try:
        variant = Variant(faces=faces, heights=(2,) * columns, to_win=to_win, min_players=low, max_players=high)
    except VariantError as error:  # only when no player count from `low` up is safe
        assert "leaves no player count whose game must end" in str(error)
        assert to_win > 1 and low * (to_win - 1) >= columns
        return
    most = variant.most_players
    assert low <= most <= high
    assert most * (to_win - 1) < columns  # every column claimed means someone has to_win
    if most < high:  # one more player could share all the columns, each short of to_win
        shares = [columns // (most + 1) + (i < columns % (most + 1)) for i in range(most + 1)]
        assert sum(shares) == columns and max(shares) < to_win
