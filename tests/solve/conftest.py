"""Solved tiny boards shared by the solver tests, in a folder of their own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cantstop.solve.board import board_of
from cantstop.solve.duo import board_for
from cantstop.solve.solver import solve
from cantstop.solve.value_file import ValueFile, default_path

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

# Tiny two-player boards: one runner and two, to_win 2 and 3 (3 on five columns: on three, two
# players could claim them all with nobody at 3, a game that never ends), the relay, wild dice,
# a step limit, and the two rules that only rivals make matter (no_stop_on_occupied, skip).
DUO = (
    "classic+faces=2+heights=2.3.2+to_win=2+runners=2",
    "classic+faces=2+heights=2.3.2+to_win=2+runners=1",
    "classic+faces=3+heights=1.1.2.1.1+to_win=3+runners=2",
    "classic+faces=3+heights=1.1.2.1.1+pairing=captain+to_win=2+runners=1",
    "classic+faces=3+heights=1.1.2.1.1+wild_face=1+wild_dice=2+to_win=2+runners=1",
    "classic+faces=2+heights=2.3.2+to_win=2+runners=2+step_limit=2",
    "classic+faces=2+heights=2.3.2+to_win=2+runners=2+no_stop_on_occupied",
    "classic+faces=2+heights=2.3.2+to_win=2+runners=1+skip",
)

# A two-player board where every bot plays its own game and games last a few turns.
DUO_PLAY = "classic+faces=3+heights=1.2.3.2.1"

# 4d6 with short columns: where the heuristic bots, tuned for 4d6, play their own game.
DICE_4D6 = "solitaire+heights=1.1.1.2.2.2.2.2.1.1.1"


@pytest.fixture(scope="session")
def solved_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A data folder (CANTSTOP_SOLVE_DIR) holding the value files of the TINY boards and DICE_4D6."""
    folder = tmp_path_factory.mktemp("solved")
    patch = pytest.MonkeyPatch()
    patch.setenv("CANTSTOP_SOLVE_DIR", str(folder))
    for spec in (*TINY, DICE_4D6):
        board = board_of(spec)
        solve(board, default_path(board), threads=2)
    for spec in (*DUO, DUO_PLAY):
        board = board_for(spec, 2)
        solve(board, default_path(board), threads=2)
    yield folder
    patch.undo()


def solved(spec: str, players: int = 1) -> ValueFile:
    board = board_for(spec, players)
    return ValueFile.open(default_path(board), board)
