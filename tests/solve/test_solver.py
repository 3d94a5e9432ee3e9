"""The solver against a brute force, its table file against damage, and its refusals."""

from __future__ import annotations

import itertools
import os
import signal
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cantstop.core.variant import preset
from cantstop.solve.board import Board, SolveError, board_of, solver_key
from cantstop.solve.solver import Layers, solve
from cantstop.solve.table import HEADER_BYTES, Table, read_header

from .brute_force import brute_force
from .conftest import TINY, solved


@pytest.mark.parametrize("spec", TINY)
def test_the_solver_agrees_with_brute_force_value_iteration(spec: str, solved_folder: Path) -> None:
    board = board_of(spec)
    table = solved(spec)
    expected = brute_force(board.variant)
    assert len(expected) == board.anchors
    for progress, value in expected.items():
        assert table.value(board.anchor_index(progress)) == pytest.approx(value, abs=1e-9), progress


def test_tiny_board_values_are_pinned(solved_folder: Path) -> None:
    """Independent of both implementations above: figures checked once, kept."""
    assert solved(TINY[0]).value(0) == pytest.approx(1.2673267326732673, abs=1e-12)
    assert solved(TINY[1]).value(0) == pytest.approx(2.675130655290394, abs=1e-12)


def brute_counts(board: Board) -> tuple[int, int]:
    """Live anchors and in-turn states by enumeration (the solver counts by formula)."""
    live = states = 0
    for progress in itertools.product(*(range(h + 1) for h in board.heights)):
        if sum(p == h for p, h in zip(progress, board.heights, strict=True)) >= board.to_win:
            continue
        live += 1
        rooms = [h - p for p, h in zip(progress, board.heights, strict=True)]
        for k in range(board.runners + 1):
            for columns in itertools.combinations(range(board.columns), k):
                size = 1
                for c in columns:
                    size *= rooms[c]
                states += size
    return live, states


@pytest.mark.parametrize("spec", TINY)
def test_anchor_and_state_counts_match_an_enumeration(spec: str) -> None:
    board = board_of(spec)
    assert (board.live_anchors, board.states) == brute_counts(board)
    layers = Layers.of(board)
    assert (layers.kind > 0).sum() == board.live_anchors
    assert (layers.work.sum() < board.states) == board.symmetric  # mirrors are copied, not solved
    assert len(layers.starts) == board.layers + 1 and layers.starts[-1] == board.anchors


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**9))
def test_anchor_index_and_progress_are_inverse(seed: int) -> None:
    board = board_of("solitaire+heights=1.2.3.4.5.6.5.4.3.2.1")
    index = seed % board.anchors
    assert board.anchor_index(board.progress(index)) == index


def test_solitaire_neutral_fields_share_a_table_and_two_player_rules_are_refused() -> None:
    assert solver_key(preset("classic")) == solver_key(preset("solitaire")) == "solitaire"
    assert solver_key(preset("classic-skip")) == "solitaire"
    with pytest.raises(SolveError, match="min_players=2"):
        board_of("turtles")
    assert board_of("turtles+min_players=1").key == "turtles+min_players=1+max_players=1"
    with pytest.raises(SolveError, match="unknown variant option 'colour'"):
        board_of("solitaire+colour=red")


def test_a_board_too_big_for_the_machine_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    path = tmp_path / "full.table"
    with pytest.raises(SolveError, match="not enough memory"):
        solve(board_of("solitaire"), path)
    assert not path.exists()


SMALL = TINY[1]


@pytest.mark.parametrize("how", ["ctrl-c", "sigterm"])
def test_interrupted_solve_resumes_to_the_same_values(how: str, tmp_path: Path, solved_folder: Path) -> None:
    board = board_of(SMALL)
    path = tmp_path / "t.table"
    calls = 0

    def interrupt(done: float, total: float) -> None:
        nonlocal calls
        calls += 1
        if calls == 3:
            if how == "ctrl-c":
                raise KeyboardInterrupt
            os.kill(os.getpid(), signal.SIGTERM)  # the solver turns it into KeyboardInterrupt
            time.sleep(1)
            raise AssertionError("SIGTERM did not interrupt the solve")

    with pytest.raises(KeyboardInterrupt):
        solve(board, path, threads=1, progress=interrupt)
    header = read_header(path)
    assert not header.writing and not header.complete
    assert (header.layers_done, header.anchors_done) > (0, 0)
    table = Table.open(path, board)  # the checksum holds: a clean resume point
    assert table.values[0] != table.values[0]  # the empty board is not solved yet (NaN)
    resumed = solve(board, path, threads=1)
    assert resumed.header.complete
    assert (resumed.values == solved(SMALL).values).all()


def test_a_damaged_table_is_never_loaded(tmp_path: Path, solved_folder: Path) -> None:
    board = board_of(SMALL)
    good = solved(SMALL).path.read_bytes()
    path = tmp_path / "t.table"

    path.write_bytes(good[:-8])
    with pytest.raises(SolveError, match="truncated"):
        Table.open(path, board)

    flipped = bytearray(good)
    flipped[HEADER_BYTES + 8 * 5] ^= 1
    path.write_bytes(bytes(flipped))
    with pytest.raises(SolveError, match="corrupt"):
        Table.open(path, board)

    path.write_bytes(b"x" * len(good))
    with pytest.raises(SolveError, match="not a solver table"):
        Table.open(path, board)

    path.write_bytes(good)
    with pytest.raises(SolveError, match="holds the table of"):
        Table.open(path, board_of(TINY[0]))

    path.write_bytes(good.replace(b'"writing": false', b'"writing": true '))
    with pytest.raises(SolveError, match="--restart"):
        Table.open(path, board)
    # A restart rebuilds it.
    assert solve(board, path, threads=1, restart=True).values.tolist() == solved(SMALL).values.tolist()


def test_a_complete_table_is_not_solved_again(solved_folder: Path) -> None:
    board = board_of(SMALL)
    before = read_header(solved(SMALL).path)
    again = solve(board, solved(SMALL).path)
    assert again.header == before
