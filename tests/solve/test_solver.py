"""The solver against a brute force, resumed, in slices and parts, and its refusals (value files: test_value_file.py)."""

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
from cantstop.solve.board import Board, board_of, solver_key
from cantstop.solve.duo import board_for
from cantstop.solve.errors import SolveError
from cantstop.solve.parts import LocalParts, RayParts, spans
from cantstop.solve.solver import solve
from cantstop.solve.value_file import ValueFile, read_header

from .brute_force import brute_force
from .conftest import DUO, TINY, solved


@pytest.mark.parametrize("spec", TINY)
def test_the_solver_agrees_with_brute_force_value_iteration(spec: str, solved_folder: Path) -> None:
    board = board_of(spec)
    value_file = solved(spec)
    expected = brute_force(board.variant)
    assert len(expected) == board.anchors
    for progress, value in expected.items():
        assert value_file.value(board.anchor_index(progress)) == pytest.approx(value, abs=1e-9), progress


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
    layers = [board.layer(number) for number in range(board.layers)]
    assert sum((layer.kind > 0).sum() for layer in layers) == board.live_anchors
    solved_work = sum(layer.work.sum() for layer in layers)
    assert (solved_work < board.states) == board.symmetric  # mirrors are copied, not solved
    everything = sorted(int(a) for layer in layers for a in layer.order)
    assert everything == list(range(board.anchors))  # each anchor in exactly one layer
    for layer in layers:  # by the layer's definition: steps short of every column claimed
        assert all(sum(board.heights) - sum(board.progress(int(a))) == layer.number for a in layer.order)
        # The counts the plan and the progress bar use, by dynamic programming, agree.
        assert board.layer_sizes[layer.number] == (len(layer.order), int(layer.work.sum()))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**9))
def test_anchor_index_and_progress_are_inverse(seed: int) -> None:
    board = board_of("solitaire+heights=1.2.3.4.5.6.5.4.3.2.1")
    index = seed % board.anchors
    assert board.anchor_index(board.progress(index)) == index


def test_solitaire_neutral_fields_share_a_value_file_and_two_player_rules_are_refused() -> None:
    assert solver_key(preset("classic")) == solver_key(preset("solitaire")) == "solitaire"
    assert solver_key(preset("classic-skip")) == "solitaire"
    with pytest.raises(SolveError, match="min_players=2"):
        board_of("turtles")
    assert board_of("turtles+min_players=1").key == "turtles+min_players=1+max_players=1"
    with pytest.raises(SolveError, match="unknown variant option 'colour'"):
        board_of("solitaire+colour=red")


def test_a_board_too_big_for_the_machine_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    path = tmp_path / "huge.values"
    with pytest.raises(SolveError, match="not enough memory"):  # 4 x 10^12 anchors
        solve(board_of("solitaire+heights=13.13.13.13.13.13.13.13.13.13.13"), path)
    assert not path.exists()


def test_the_full_boards_plan_for_its_top_layers_fits_and_its_whole_plan_counts_the_widest_layer() -> None:
    board = board_of("solitaire")
    sizes = board.layer_sizes
    assert sum(anchors for anchors, _ in sizes) == board.anchors
    assert max(anchors for anchors, _ in sizes) == 333_676_102
    assert sizes[17] == (5_399_733, 224_558_528)  # the deepest layer solved here (docs/solving.md)
    assert board.memory_bytes(2, (0, 17)) < board.memory_bytes(2, (0, board.layers))


@pytest.mark.parametrize("spec", [TINY[1], TINY[4], TINY[5]])
def test_a_solve_in_independent_parts_equals_the_solve_in_place_to_the_bit(
    spec: str, tmp_path: Path, solved_folder: Path
) -> None:
    board = board_of(spec)
    path = tmp_path / "parts.values"
    value_file = solve(board, path, threads=1, workers=LocalParts(3))
    assert value_file.header.complete
    assert value_file.values.tobytes() == solved(spec).values.tobytes()


def test_layers_solved_in_slices_and_parts_equal_one_solve(tmp_path: Path, solved_folder: Path) -> None:
    board = board_of(SMALL)
    path = tmp_path / "slices.values"
    first = solve(board, path, threads=1, layers=(0, 4))
    assert first.header.layers_done == 4 and not first.header.complete
    with pytest.raises(SolveError, match=r"solve layers 4:6 first"):
        solve(board, path, threads=1, layers=(6, 8))
    solve(board, path, threads=1, layers=(4, 6), workers=LocalParts(2))
    done = solve(board, path, threads=1, layers=(6, board.layers))
    assert done.header.complete
    assert done.values.tobytes() == solved(SMALL).values.tobytes()
    with pytest.raises(SolveError, match="not a slice"):
        solve(board, path, layers=(3, 3))


def test_parts_split_a_layer_by_work_and_cover_it_once() -> None:
    board = board_of("solitaire+heights=1.1.2.2.3.3.3.2.2.1.1")
    layer = board.layer(12)
    for count, position in [(1, 0), (4, 0), (7, 100), (10**6, 0)]:
        parts = spans(layer, position, count)
        assert parts[0][0] == position and parts[-1][1] == len(layer.order)
        assert all(a < b for a, b in parts) and all(b == c for (_, b), (c, _) in itertools.pairwise(parts))
        assert len(parts) <= count
    works = [layer.work[a:b].sum() for a, b in spans(layer, 0, 4)]
    assert max(works) < 1.5 * sum(works) / 4  # about equal work, not equal counts


def test_a_solve_on_a_local_ray_cluster_equals_the_solve_in_place(tmp_path: Path, solved_folder: Path) -> None:
    import ray  # in the test extra
    board = board_of(TINY[1])
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        value_file = solve(board, tmp_path / "ray.values", threads=2, workers=RayParts("auto", 5))
    finally:
        ray.shutdown()
    assert value_file.values.tobytes() == solved(TINY[1]).values.tobytes()


SMALL = TINY[1]


@pytest.mark.parametrize(("how", "players"), [("ctrl-c", 1), ("sigterm", 1), ("ctrl-c", 2), ("sigterm", 2)])
def test_interrupted_solve_resumes_to_the_same_values(how: str, players: int, tmp_path: Path, solved_folder: Path) -> None:
    spec = SMALL if players == 1 else DUO[0]
    board = board_for(spec, players)
    path = tmp_path / "t.values"
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
    ValueFile.open(path, board)  # the checksum holds: a clean resume point
    resumed = solve(board, path, threads=1)
    assert resumed.header.complete
    assert (resumed.values == solved(spec, players).values).all()


def test_a_complete_value_file_is_not_solved_again(solved_folder: Path) -> None:
    board = board_of(SMALL)
    before = read_header(solved(SMALL).path)
    again = solve(board, solved(SMALL).path)
    assert again.header == before
