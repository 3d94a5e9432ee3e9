"""Value files: every refusal of one that cannot be trusted or is not the board's, and files of the old name."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from cantstop.cli import main
from cantstop.core.state import new_game
from cantstop.solve.board import board_of
from cantstop.solve.duo import board_for
from cantstop.solve.errors import SolveError
from cantstop.solve.policy import Policy
from cantstop.solve.solver import solve
from cantstop.solve.value_file import (
    HEADER_BYTES,
    LEGACY_MAGIC,
    MAGIC,
    Header,
    ValueFile,
    default_path,
    file_name,
)

from .conftest import DUO, TINY, solved

SMALL = TINY[1]


def header_of(data: bytes) -> bytes:
    return data[:HEADER_BYTES]


def with_header(data: bytes, header: bytes) -> bytes:
    """The file `data` with its header replaced (padded with spaces to its size, as written)."""
    return header.rstrip(b" ").ljust(HEADER_BYTES, b" ") + data[HEADER_BYTES:]


def flip_a_value(data: bytes) -> bytes:
    flipped = bytearray(data)
    flipped[HEADER_BYTES + 8 * 5] ^= 1
    return bytes(flipped)


# Each way a file can go wrong: what it does to the file's bytes, and what the refusal must say.
DAMAGE: dict[str, tuple[Callable[[bytes], bytes], str]] = {
    "truncated": (lambda d: d[:-8], r"truncated or padded: \d+ bytes, a full value file has \d+; solve again with --restart"),
    "padded": (lambda d: d + bytes(8), r"truncated or padded: \d+ bytes, a full value file has \d+; solve again with --restart"),
    "shorter than a header": (lambda d: d[:100], "truncated: shorter than a value file header; solve again with --restart"),
    "a flipped value": (flip_a_value, "corrupt: its values do not match the header's checksum; solve again with --restart"),
    "no header": (lambda d: b"x" * len(d), r"is not a value file of the solver \(no value file header\)"),
    "header not JSON": (
        lambda d: with_header(d, header_of(d).replace(b'"key": ', b'"key" ')),
        r"damaged value file header \(.*\); solve again with --restart",
    ),
    "a field missing": (
        lambda d: with_header(d, header_of(d).replace(b'"anchors_done"', b'"anchors_gone"')),
        r"damaged value file header \(.*anchors_gone.*\); solve again with --restart",
    ),
    "another format": (
        lambda d: with_header(d, header_of(d).replace(b'"format": 1', b'"format": 7')),
        "value file format 7, this solver reads 1; solve again with --restart",
    ),
    "killed while writing": (
        lambda d: with_header(d, header_of(d).replace(b'"writing": false', b'"writing": true')),
        "was being written when its solve was killed: its values cannot be trusted; solve again with --restart",
    ),
}


@pytest.mark.parametrize("damage", DAMAGE)
def test_a_damaged_value_file_is_refused_with_what_to_do_and_a_restart_rebuilds_it(
    damage: str, tmp_path: Path, solved_folder: Path
) -> None:
    board = board_of(SMALL)
    good = solved(SMALL).path.read_bytes()
    change, message = DAMAGE[damage]
    path = tmp_path / "t.values"
    path.write_bytes(change(good))
    with pytest.raises(SolveError, match=message):
        ValueFile.open(path, board)
    with pytest.raises(SolveError, match=message):  # so no solve resumes it either
        solve(board, path, threads=1)
    assert solve(board, path, threads=1, restart=True).values.tobytes() == solved(SMALL).values.tobytes()


def test_the_value_file_of_another_board_or_player_count_is_refused_naming_its_own(solved_folder: Path) -> None:
    path = solved(SMALL).path
    with pytest.raises(SolveError) as another:
        ValueFile.open(path, board_of(TINY[0]))
    assert str(another.value) == (
        f"{path} holds the values of {board_of(SMALL).key!r} (80 anchors), not of {board_of(TINY[0]).key!r} "
        f"(36 anchors): solve its own with `cantstop solve '{board_of(TINY[0]).key}'`"
    )
    duo = board_for(DUO[0], 2)
    with pytest.raises(SolveError, match=r"holds the 1-player values of .*, not the 2-player values of .*--players 2`$"):
        ValueFile.open(solved(DUO[0].replace("classic", "solitaire")).path, duo)
    with pytest.raises(SolveError, match="holds the 2-player values of"):
        ValueFile.open(solved(DUO[0], 2).path, board_of(DUO[0].replace("classic", "solitaire")))
    with pytest.raises(SolveError, match="holds the values of"):  # and the optimal bot refuses it too
        Policy.load(board_of(TINY[0]).variant, path)


def test_an_unreadable_value_file_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "a folder"
    folder.mkdir()
    with pytest.raises(SolveError, match=r"cannot read value file .*a folder: Is a directory"):
        ValueFile.open(folder, board_of(SMALL))


def test_a_header_too_long_for_its_place_is_refused_before_anything_is_written() -> None:
    header = Header(key="x" * HEADER_BYTES, heights=(1,), anchors=2, layers=2)
    with pytest.raises(SolveError, match="value file header too long"):
        header.encode()


@pytest.mark.parametrize("players", [1, 2])
def test_a_partly_solved_value_file_plays_nothing_and_says_how_to_finish_it(
    players: int, tmp_path: Path, solved_folder: Path
) -> None:
    spec = SMALL if players == 1 else DUO[0]
    board = board_for(spec, players)
    path = tmp_path / "part.values"
    solve(board, path, threads=1, layers=(0, 4))
    flag = "" if players == 1 else " --players 2"
    with pytest.raises(SolveError) as refused:
        Policy.load(board.variant, path, players)
    assert str(refused.value) == (
        f"the value file of {board.key} is only partly solved (4 of {board.layers} layers): "
        f"run `cantstop solve '{board.key}'{flag}` to finish it"
    )


def test_a_value_file_of_the_old_name_and_header_is_read_listed_and_resumed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, solved_folder: Path
) -> None:
    """Value files were called tables (`KEY.table`, magic line `cantstop-solve-table`): they still work."""
    board = board_of(SMALL)
    good = solved(SMALL).path.read_bytes()
    expected = solved(SMALL).value(0)
    assert good.startswith(MAGIC)
    monkeypatch.setenv("CANTSTOP_SOLVE_DIR", str(tmp_path))
    old = with_header(good, LEGACY_MAGIC + header_of(good)[len(MAGIC) :])
    legacy = tmp_path / file_name(board.key).replace(".values", ".table")
    legacy.write_bytes(old)
    assert default_path(board) == legacy
    policy = Policy.load(board.variant)
    assert policy.value_file is not None and policy.value_file.path == legacy
    assert policy.value((0, 0, 0)) == expected
    listed = CliRunner().invoke(main, ["solve", "--list"])
    assert f"{board.key}: 80 anchors, solved" in listed.output
    # A file of the old name solved in part is resumed where it is.
    part = tmp_path / "part.values"
    solve(board, part, threads=1, layers=(0, 4))
    partial = part.read_bytes()
    part.unlink()
    legacy.write_bytes(with_header(partial, LEGACY_MAGIC + header_of(partial)[len(MAGIC) :]))
    finished = solve(board, default_path(board), threads=1)
    assert finished.path == legacy and finished.header.complete
    assert finished.values.tobytes() == good[HEADER_BYTES:]
    # A file of the new name, once there, is the one read.
    (tmp_path / file_name(board.key)).write_bytes(good)
    assert default_path(board) == tmp_path / file_name(board.key)


@pytest.mark.parametrize("players", [1, 2])
def test_a_board_not_solved_here_is_refused_with_the_command_that_solves_it(
    players: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CANTSTOP_SOLVE_DIR", str(tmp_path))
    board = board_for(SMALL if players == 1 else DUO[0], players)
    with pytest.raises(SolveError) as refused:
        Policy.load(board.variant, players=players)
    count, flag = ("1 player", "") if players == 1 else ("2 players", " --players 2")
    assert str(refused.value) == (
        f"{board.key} is not solved for {count} (no value file at {default_path(board)}): run `cantstop solve {board.key}{flag}`"
    )


def test_layers_are_solved_from_the_most_advanced_down_and_a_gap_is_refused(tmp_path: Path) -> None:
    board = board_of(SMALL)
    path = tmp_path / "t.values"
    with pytest.raises(SolveError) as backwards:
        solve(board, path, threads=1, layers=(3, 2))
    assert str(backwards.value) == (
        f"layers 3:2 are not a slice of {board.key}'s {board.layers} layers (0:{board.layers}, the most advanced first)"
    )
    assert not path.exists()  # refused before anything was written
    solve(board, path, threads=1, layers=(0, 2))
    with pytest.raises(SolveError) as gap:
        solve(board, path, threads=1, layers=(4, 6))
    assert str(gap.value) == (
        f"layers 4:6 of {board.key} need the 4 layers above them, but the value file at {path} has 2: solve layers 2:4 first"
    )
    assert ValueFile.open(path, board).header.layers_done == 2  # the refusal left the file as it was


def test_the_optimal_bot_refuses_a_game_of_another_player_count(solved_folder: Path) -> None:
    policy = Policy.load(board_for(DUO[3], 2).variant, players=2)  # five columns to 2: three players' game ends
    with pytest.raises(SolveError, match=r"^this value file is for 2-player games; this game has 3 players$"):
        policy.action(new_game(policy.board.variant, 3))
