"""On a solved board the analysis is the value file: the same values, and perfect play loses nothing."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from analysis_games import games

from cantstop.analysis import AnalysisError, Method, Units, analyse, judge_for
from cantstop.core.record import Record
from cantstop.core.variant import preset
from cantstop.solve.duo import board_for
from cantstop.solve.solver import solve
from cantstop.solve.value_file import ValueFile, default_path

DUO = "classic+faces=3+heights=1.2.3.2.1"
ALONE = "solitaire+faces=3+heights=1.2.3.2.1"


@pytest.fixture(scope="module")
def solved(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("solved")
    patch = pytest.MonkeyPatch()
    patch.setenv("CANTSTOP_SOLVE_DIR", str(folder))
    for spec, players in ((DUO, 2), (ALONE, 1)):
        board = board_for(spec, players)
        solve(board, default_path(board), threads=1)
    yield folder
    patch.undo()


def table_value(spec: str, players: int, record: Record, ply: int) -> float:
    """The value file's value of the position a turn starts from, after `ply` events of `record`."""
    board = board_for(spec, players)
    values = ValueFile.open(default_path(board), board)
    state = list(record.states())[ply]
    if players == 1:
        return values.value(board.anchor_index(tuple(state.pieces[0][2:])))
    return values.value(board.position_index(state))  # type: ignore[attr-defined]


def test_two_players_every_turn_start_is_the_table_and_optimal_loses_nothing(solved: Path) -> None:
    assert judge_for(preset(DUO), 2).method is Method.EXACT
    for record in games(DUO, ("optimal", "random", "rule28", "expert"), 24):
        analysis = analyse(record)
        optimal = record.players.index("optimal") if "optimal" in record.players else None
        starts = [analysis.points[0], *(p for p in analysis.points if p.ply in {c.ply for c in analysis.corrections})]
        for point in starts:
            state = list(record.states())[point.ply]
            mover_value = point.values[state.seat]
            assert mover_value is not None
            assert mover_value / 100 == pytest.approx(table_value(DUO, 2, record, point.ply), abs=1e-9)
        assert all(abs(c.change) / 100 < 1e-9 for c in analysis.corrections)
        if optimal is not None:
            assert all(d.loss / 100 < 1e-9 for d in analysis.decisions if d.seat == optimal)
        for seat in (0, 1):
            assert analysis.balance(seat) / 100 == pytest.approx(0.0, abs=1e-9)


def test_alone_the_start_is_the_table_s_expected_turns(solved: Path) -> None:
    for record in games(ALONE, ("optimal", "rule28", "random"), 9, per_game=1):
        analysis = analyse(record)
        assert analysis.method is Method.EXACT and analysis.units is Units.TURNS
        assert analysis.points[0].values[0] == pytest.approx(table_value(ALONE, 1, record, 0), abs=1e-9)
        if record.players == ["optimal"]:
            assert all(d.loss < 1e-9 for d in analysis.decisions)
        assert analysis.balance(0) == pytest.approx(0.0, abs=1e-9)
        assert all(abs(c.change) < 1e-9 for c in analysis.corrections)


def test_a_value_file_solved_in_part_or_damaged_is_refused_never_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A value file in the data folder is the analysis's: one it cannot trust is no reason to fall back on a model."""
    monkeypatch.setenv("CANTSTOP_SOLVE_DIR", str(tmp_path))
    board = board_for(DUO, 2)
    path = default_path(board)
    solve(board, path, threads=1, layers=(0, 3))
    with pytest.raises(AnalysisError) as partly:
        judge_for(preset(DUO), 2)
    assert str(partly.value) == (
        f"the value file of {DUO} cannot be used: the value file of {board.key} is only partly solved "
        f"(3 of {board.layers} layers): run `cantstop solve '{board.key}' --players 2` to finish it"
    )
    path.write_bytes(path.read_bytes()[:-8])
    with pytest.raises(AnalysisError, match=f"^the value file of {re.escape(DUO)} cannot be used: .* is truncated or padded"):
        judge_for(preset(DUO), 2)
