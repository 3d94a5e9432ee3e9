"""The words of a report that the command line and the terminal game both show."""

from __future__ import annotations

from itertools import pairwise

from analysis_games import MIXED, SMALL, games

from cantstop.analysis import Grade, analyse
from cantstop.analysis.rollmap import roll_map
from cantstop.analysis.tables import roll_map_table
from cantstop.analysis.wording import GROUP_HEADINGS, mark, report_cells, report_headings, turn_rows
from cantstop.core.state import new_game


def test_each_turn_row_holds_its_events_in_order_and_the_values_once_it_is_over() -> None:
    for record in games(SMALL, MIXED, 40, seed=3):
        analysis = analyse(record)
        rows = turn_rows(analysis)
        points = {p.ply: p for p in analysis.points}
        notes = [*analysis.decisions, *analysis.rolls]
        assert [row.turn for row in rows] == sorted({n.turn for n in notes})
        for row, following in pairwise(rows):
            assert row.last < following.last and following.seat != row.seat
        for row in rows:
            # the turn's last event, and the values after it: a stop's cost shows in its own row
            assert row.last == max(n.ply for n in notes if n.turn == row.turn)
            assert row.after == points[row.last]
        by_turn = {row.turn: row.words.split() for row in rows}
        for roll in analysis.rolls:
            assert roll.dice in by_turn[roll.turn]
        final = rows[-1].after
        assert final is not None and sorted(final.values) == [0.0, 100.0]  # type: ignore[type-var]
        assert final.values[analysis.winner or 0] == 100.0


def test_a_decision_that_lost_is_marked_in_its_turn_and_counted_in_the_summary() -> None:
    for record in games(SMALL, MIXED, 40, seed=5):
        analysis = analyse(record)
        rows = {row.turn: row for row in turn_rows(analysis)}
        for note in analysis.decisions:
            if note.grade in (Grade.INACCURACY, Grade.MISTAKE, Grade.BLUNDER):
                assert f"{note.chosen}{mark(note.grade)}" in rows[note.turn].words.split()
        headings = report_headings(analysis.units)
        for report in analysis.reports:
            cells = dict(zip(headings, report_cells(analysis, report), strict=True))
            assert cells["player"].endswith(report.name)
            assert cells["??"] == str(report.grades["blunder"]) and cells["best"] == str(report.grades["best"])
            assert cells["decisions"] == str(report.decisions)


def test_a_roll_map_table_lists_the_likeliest_groups_and_the_roll_that_came_wherever_it_ranks() -> None:
    found = roll_map(new_game("classic", 2))
    last = found.groups[-1]
    table, left_out = roll_map_table(found, 5, frozenset(last.choices))
    assert table.row_count == 6 and left_out == len(found.groups) - 6
    marks = list(table.columns[0].cells)
    assert marks == ["", "", "", "", "", "▶"]
    assert list(table.columns[3].cells)[-1] == (" ".join(last.choices) or "bust")
    table, left_out = roll_map_table(found, None)
    assert table.row_count == len(found.groups) and left_out == 0 and len(table.columns) == len(GROUP_HEADINGS)
