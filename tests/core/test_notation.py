"""Position notation and JSON: exact round-trips, and errors that name the field at fault."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cantstop import NotationError, Phase, new_game
from cantstop.core.notation import from_json, from_notation, to_json, to_notation

from .helpers import ALL_SPECS, play_random, players_for, position


def test_opening_position() -> None:
    assert to_notation(new_game()) == "classic 00000000000/00000000000 00000000000 A roll 0 0"


def test_worked_example_from_the_docs() -> None:
    text = "classic 00300500000/00000020000 00004600000 A decide 3 14"
    state = from_notation(text)
    assert state.pieces[0][4] == 3 and state.pieces[0][7] == 5 and state.pieces[1][8] == 2
    assert state.runners[6] == 4 and state.runners[7] == 6
    assert state.phase is Phase.DECIDE and state.steps == 3 and state.turn == 14
    assert to_notation(state) == text


def test_choose_phase_keeps_the_dice_and_recomputes_the_options() -> None:
    state = from_notation("classic 00000000000/00000000000 01001000000 A choose:2455 2 0")
    assert state.dice == (2, 4, 5, 5) and state.options == ((6, 10), (7,), (9,))


def test_base36_digits_for_tall_columns_and_claims_from_the_top() -> None:
    state = position("classic+heights=3.5.7.9.11.20.11.9.7.5.3", pieces=[{7: 20}, {7: 0, 8: 11}])
    text = to_notation(state)
    assert "00000k00000" in text and from_notation(text) == state
    assert state.claimed[7] == 0 and state.claimed[8] == 1


def test_variant_specs_survive_the_round_trip() -> None:
    state = new_game("classic+to_win=5+skip", 2)
    text = to_notation(state)
    assert text.startswith("classic-skip+to_win=5 ")
    assert from_notation(text).variant == state.variant


@settings(max_examples=20, deadline=None)
@given(spec=st.sampled_from(ALL_SPECS), seed=st.integers(0, 10**6))
def test_every_position_of_random_games_round_trips(spec: str, seed: int) -> None:
    for state in play_random(spec, players_for(spec), seed):
        text = to_notation(state)
        again = from_notation(text)
        assert again == state and to_notation(again) == text
        data = to_json(state)
        assert from_json(data) == state
        assert from_json(json.dumps(data)) == state


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("classic 00000000000/00000000000 00000000000 A roll 0", "7 fields"),
        ("clasic 00000000000/00000000000 00000000000 A roll 0 0", "unknown variant 'clasic'"),
        ("classic 0000000000/00000000000 00000000000 A roll 0 0", "pieces of seat A"),
        ("classic 00000000000/0000000000z 00000000000 A roll 0 0", "pieces of seat B: 'z' in column 12"),
        ("classic 00000000000/00000000000 0000000000 A roll 0 0", "runners"),
        ("classic 00000000000/00000000000 00000000000 C roll 0 0", "seat 'C'"),
        ("classic 00000000000/00000000000 00000000000 A fly 0 0", "phase 'fly'"),
        ("classic 00000000000/00000000000 00000000000 A choose 0 0", "dice go with the choose phase"),
        ("classic 00000000000/00000000000 00000000000 A roll:1234 0 0", "dice go with the choose phase"),
        ("classic 00000000000/00000000000 00000000000 A choose:1237 0 0", "bad dice '1237'"),
        ("classic 00000000000/00000000000 00000000000 A roll x 0", "steps and turn"),
        ("classic 00000000000/00000000000 00000000000 A roll 0 -1", "steps and turn"),
        ("classic 00000000000/00000000000 11110000000 A decide 4 0", "4 runners"),
        ("classic 30000000000/30000000000 00000000000 A roll 0 0", "topped by more than one seat"),
        ("classic 30000000000/10000000000 00000000000 A roll 0 0", "another seat has a piece"),
        ("classic 30000000000/00000000000 10000000000 B decide 1 0", "runner stands in claimed column 2"),
        ("classic 01000000000/00000000000 01000000000 A decide 1 0", "not above the mover's piece"),
        ("classic 00000000000/00000000000 01000000000 A decide 0 0", "at least 1 steps"),
        ("classic 00000000000/00000000000 00000000000 A over 0 3", "has not won"),
        ("classic 3500000000/00000000000 00000000000 A roll 0 3", "pieces of seat A"),
        ("classic 35700000000/00000000000 00000000000 B roll 0 3", "enough columns to win"),
        ("solitaire 00000000000/00000000000 00000000000 A roll 0 0", "2 seats"),
        ("classic 00000000000/00000000000 0d000000000 A choose:3434 1 0", "space 0..5"),
        ("classic+to_win=99 00000000000/00000000000 00000000000 A roll 0 0", "to_win must be 1..11"),
    ],
)
def test_bad_notation_names_the_field(text: str, field: str) -> None:
    with pytest.raises(NotationError) as info:
        from_notation(text)
    assert field in str(info.value)


def test_dice_on_the_table_that_bust_are_impossible() -> None:
    with pytest.raises(NotationError, match="1111 bust here"):
        from_notation("classic 30000000000/00000000000 00000000000 B choose:1111 0 0")


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ("{", "JSONDecodeError"),
        ({"variant": "classic"}, "KeyError"),
        ({**to_json(new_game()), "phase": "fly"}, "KeyError"),
        ({**to_json(new_game()), "pieces": [{"13": 1}, {}]}, "pieces: 13=1"),
        ({**to_json(new_game()), "runners": {"7": 14}}, "runners: 7=14"),
        ({**to_json(new_game()), "player": 2}, "player 2 is not a seat 0..1"),
        ({**to_json(new_game()), "phase": "choose", "dice": [1, 2, 3, 9]}, "bad dice '1239'"),
    ],
)
def test_bad_json_names_the_key(data: object, field: str) -> None:
    with pytest.raises(NotationError) as info:
        from_json(data)  # type: ignore[arg-type]
    assert field in str(info.value)


def test_the_examples_in_docs_notation_md_are_true() -> None:
    from pathlib import Path

    from cantstop.core.record import read_record, record_to_json

    doc = (Path(__file__).parents[2] / "docs" / "notation.md").read_text(encoding="utf-8")
    record_text = doc.split("```\n[Variant")[1].split("```")[0]
    record = read_record("[Variant" + record_text)
    final = record.final()
    position = "classic 00002010100/00000000000 00005000200 A decide 4 2"
    assert to_notation(final) == position and position in doc
    assert json.dumps(to_json(final)).replace(" ", "") in doc.replace(" ", "").replace("\n", "")
    assert '"tags": {"Date": "2026.11.22", "Event": "Example"}' in doc
    assert record_to_json(record)["events"][:6] == [
        {"dice": [1, 5, 4, 6]}, {"choice": [6, 10]}, {"dice": [2, 4, 3, 5]},
        {"choice": [6, 8]}, {"decision": "stop"}, {"dice": [3, 3, 4, 4]},
    ]
