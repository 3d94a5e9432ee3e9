"""Moves: one text form and one JSON form, each read back to the same move."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cantstop import ROLL, STOP, preset
from cantstop.core.record import Roll
from cantstop.table import Kind, Move, MoveError

CLASSIC = preset("classic")
choices = st.lists(st.integers(2, 12), min_size=1, max_size=3).map(lambda cs: Move.of(tuple(sorted(cs))))
dice = st.tuples(*[st.integers(1, 6)] * 4).map(Move.rolled)
out_of_band = st.builds(
    lambda kind, seat: Move(kind, seat=seat), st.sampled_from([Kind.RESIGN, Kind.TIMEOUT, Kind.FALLBACK]), st.integers(0, 3)
)
moves = st.one_of(st.just(Move.of(ROLL)), st.just(Move.of(STOP)), choices, dice, out_of_band)


@given(moves)
def test_text_and_json_round_trip(move: Move) -> None:
    assert Move.parse(move.text, CLASSIC) == move
    assert Move.from_json(json.loads(json.dumps(move.json()))) == move


def test_the_forms() -> None:
    assert Move.of((6, 10)).text == "6+10" and Move.of((7, 7)).json() == {"choice": [7, 7]}
    assert Move.rolled((1, 5, 4, 6)).text == "1546" and Move.of(ROLL).text == "roll"
    assert Move.rolled((1, 5, 4, 6)).event == Roll((1, 5, 4, 6)) and Move.of(STOP).event is STOP
    assert Move.resign(1, "left").json() == {"resign": 1, "reason": "left"} and Move.resign(1).text == "resign:B"
    assert Move.parse("roll").action is ROLL and Move.parse("6+10").action == (6, 10)


@pytest.mark.parametrize("bad", ["", "6-10", "go", "6+", "six", "resign:E", "quit:A", "6+10 stop"])
def test_bad_text_names_what_a_move_may_be(bad: str) -> None:
    with pytest.raises(MoveError, match="bad move"):
        Move.parse(bad)


def test_dice_are_checked_against_the_variant() -> None:
    with pytest.raises(MoveError, match=r"each die shows 1\.\.6"):
        Move.parse("1549", CLASSIC)


@pytest.mark.parametrize("bad", [[6, 10], {"choice": "x"}, {"resign": 9}, {"resign": True}, {}, {"decision": "fly"}])
def test_bad_json_names_what_a_move_may_be(bad: object) -> None:
    with pytest.raises(MoveError, match="bad move JSON"):
        Move.from_json(bad)
