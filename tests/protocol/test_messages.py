"""The protocol's words: actions, options and go commands read back what was written."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cantstop.core.state import ROLL, STOP
from cantstop.protocol.messages import (
    Go,
    MessageError,
    Option,
    parse_go,
    parse_option,
    parse_setoption,
)

choices = st.lists(st.integers(2, 12), min_size=1, max_size=3).map(lambda cs: tuple(sorted(cs)))
actions = st.one_of(st.just(ROLL), st.just(STOP), choices)  # their text form: tests/table/test_move.py


@given(st.lists(actions, max_size=6), st.integers(0, 10**6))
def test_go_round_trips(legal: list[object], ms: int) -> None:
    go = Go(ms, tuple(legal))  # type: ignore[arg-type]
    assert parse_go(go.line()) == go


def test_bad_go_is_named() -> None:
    for bad in ("go", "go movetime", "go movetime soon", "go depth 3", "go movetime 10 moves 7"):
        with pytest.raises(MessageError, match="bad go"):
            parse_go(bad)


def test_options_round_trip_and_check_their_values() -> None:
    spin = Option("Seed", "spin", "0", 0, 99)
    combo = Option("Style", "combo", "bold", choices=("bold", "calm"))
    for option in (spin, combo, Option("Log", "check", "false"), Option("Name", "string", "x")):
        assert parse_option(option.line()) == option
    assert spin.check("42") == "42"
    with pytest.raises(MessageError, match=r"0\.\.99"):
        spin.check("100")
    with pytest.raises(MessageError, match="whole number"):
        spin.check("ten")
    with pytest.raises(MessageError, match="bold, calm"):
        combo.check("wild")
    with pytest.raises(MessageError, match="bad option line"):
        parse_option("option name")


def test_setoption() -> None:
    assert parse_setoption("setoption name Seed value 12") == ("Seed", "12")
    assert parse_setoption("setoption name Book File value my book.txt") == ("Book File", "my book.txt")
    with pytest.raises(MessageError, match="setoption name X value Y"):
        parse_setoption("setoption Seed 12")
