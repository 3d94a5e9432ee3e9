"""Solved tiny boards shared by the solver tests, in a folder of their own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cantstop.solve.board import board_of
from cantstop.solve.solver import solve
from cantstop.solve.table import Table, default_path

# Tiny boards: every rule the solver takes (pairs, relay, wild dice, step limit) and values
# from about one turn to nearly three.
TINY = (
    "solitaire+faces=2+heights=2.3.2+to_win=2+runners=2",
    "solitaire+faces=2+heights=3.4.3+runners=2",
    "solitaire+faces=3+heights=1.2.3.2.1",
    "solitaire+faces=3+heights=1.2.3.2.1+runners=2",
    "solitaire+faces=3+heights=1.2.2.2.1+pairing=captain+to_win=2",
    "solitaire+faces=3+heights=1.1.2.1.1+wild_face=1+wild_dice=2+to_win=2",
    "solitaire+faces=3+heights=2.2.2.2.2+step_limit=3+to_win=2",
)

# 4d6 with short columns: where the heuristic bots, tuned for 4d6, play their own game.
DICE_4D6 = "solitaire+heights=1.1.1.2.2.2.2.2.1.1.1"


@pytest.fixture(scope="session")
def solved_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A data folder (CANTSTOP_SOLVE_DIR) holding the tables of the TINY boards and DICE_4D6."""
    folder = tmp_path_factory.mktemp("solved")
    patch = pytest.MonkeyPatch()
    patch.setenv("CANTSTOP_SOLVE_DIR", str(folder))
    for spec in (*TINY, DICE_4D6):
        board = board_of(spec)
        solve(board, default_path(board), threads=2)
    yield folder
    patch.undo()


def solved(spec: str) -> Table:
    board = board_of(spec)
    return Table.open(default_path(board), board)
