"""The end-of-game summary counts what the record's text shows."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cantstop.core.notation import seat_letter
from cantstop.core.record import read_record
from cantstop.core.summary import BigTurn, summarize

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.txt"))


def test_a_short_game_is_counted_turn_by_turn() -> None:
    record = read_record(
        '[Variant "classic"]\n[Players "Ann; Bob"]\n[First "A"]\n\n'
        "1. A 1546 6+10 2435 6+8 stop\n"  # 6 two spaces, 10 and 8 one each: 4 kept
        "2. B 1122 2+4 1112 2+3 6666 bust\n"  # three runners, then 12+12 fits nowhere
        "3. A 1166 2+12 stop\n"
    )
    ann, bob = summarize(record).seats
    assert (ann.turns, ann.rolls, ann.busts, ann.best) == (2, 3, 0, 4)
    assert (bob.turns, bob.rolls, bob.busts, bob.best) == (1, 3, 1, 0)
    summary = summarize(record)
    assert summary.turns == 3 and summary.winner is None
    assert summary.biggest == BigTurn(seat=0, turn=1, spaces=4)


def test_a_turn_in_progress_is_begun_but_not_finished() -> None:
    record = read_record('[Variant "classic"]\n[Players "Ann; Bob"]\n[First "B"]\n\n1. B 1546 6+10\n')
    summary = summarize(record)
    assert summary.turns == 0 and summary.seats[1].turns == 1 and summary.biggest is None


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_golden_games_are_summarised_as_their_text_reads(path: Path) -> None:
    text = path.read_text()
    record = read_record(text)
    summary = summarize(record)
    final = record.final()
    body = text.split("\n\n", 1)[1]
    turn_lines = [line for line in body.splitlines() if re.match(r"\d+\. [A-D] ", line)]
    assert sum(s.turns for s in summary.seats) == len(turn_lines)
    assert sum(s.busts for s in summary.seats) == body.count("bust")
    assert sum(s.rolls for s in summary.seats) == len(re.findall(r"(?<![\w+])\d{3,}(?![\w+.])", body))
    for seat, line in enumerate(summary.seats):
        assert line.columns == final.columns_won(seat)
        assert line.busts <= line.turns
    assert summary.turns == final.turn
    if final.is_over:
        assert summary.winner is not None and seat_letter(summary.winner) == re.search(r'\[Result "(\w)"\]', text)[1]  # type: ignore[index]
        assert summary.biggest is not None
        assert summary.biggest.spaces == max(s.best for s in summary.seats)
