"""`cantstop arena` and `cantstop bot` as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from cantstop.cli import main

ROOT = Path(__file__).resolve().parents[2]
CANTSTOP = str(Path(sys.executable).parent / "cantstop")


def test_example_bot_against_random_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "match"
    result = subprocess.run(
        [CANTSTOP, "arena", f"cmd:{sys.executable} examples/mybot.py", "random",
         "--games", "4", "--jobs", "2", "--seed", "3", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "mybot 1.0" in result.stdout and "Elo differences" in result.stdout
    lines = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(lines) == 4 and all(line["winner"] is not None and not line["forfeit"] for line in lines)
    assert {tuple(line["bots"]) for line in lines} == {("mybot 1.0", "random"), ("random", "mybot 1.0")}
    assert len(list((out / "games").iterdir())) == 4
    replay = subprocess.run([CANTSTOP, "replay", str(out / "games" / "000000.txt")],
                            capture_output=True, text=True, timeout=60)
    assert replay.returncode == 0, replay.stderr


def test_built_in_bot_served_over_the_protocol_plays_in_the_arena(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main,
        ["arena", f"cmd:{CANTSTOP} bot random", "random", "--games", "2", "--jobs", "1",
         "--out", str(tmp_path / "m"), "--no-progress"],
    )
    assert result.exit_code == 0, result.output
    assert "cantstop-random" in result.output


def test_sprt_prints_llr_bounds_and_verdict(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main,
        ["arena", "random", "random", "--games", "6", "--jobs", "1", "--out", str(tmp_path / "s"),
         "--sprt", "elo0=0 elo1=20 alpha=0.05 beta=0.05", "--no-progress"],
    )
    assert result.exit_code == 0, result.output
    assert "LLR" in result.output and "bounds -2.94, 2.94" in result.output
    assert "no verdict" in result.output


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["random"], "2 to 4 bots"),
        (["random"] * 5, "2 to 4 bots"),
        (["random", "nobody"], "unknown bot 'nobody'"),
        (["random", "cmd:"], "cmd: needs a command"),
        (["random", "random", "random", "--sprt", "elo1=20"], "--sprt compares two bots"),
        (["random", "random", "--sprt", "elo1=-5"], "elo0 < elo1"),
        (["random", "random", "--variant", "solitaire"], "solitaire"),
        (["random", "random", "--variant", "chess"], "chess"),
        (["random", "random", "--games", "0"], "--games"),
        (["random", "random", "--games", "1000000000000"], "1<=x<=1000000"),
        (["random", "random", "--jobs", "1000"], "1<=x<=64"),
    ],
)
def test_bad_arguments_are_named(args: list[str], words: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["arena", *args, "--out", str(tmp_path / "x"), "--no-progress"])
    assert result.exit_code == 2 and words in result.output, result.output
    assert not (tmp_path / "x").exists()


def test_an_existing_results_directory_is_not_overwritten(tmp_path: Path) -> None:
    (tmp_path / "old.txt").write_text("keep")
    result = CliRunner().invoke(main, ["arena", "random", "random", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "not empty" in result.output
    assert (tmp_path / "old.txt").read_text() == "keep"


def test_an_out_directory_that_cannot_be_made_is_named(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a directory")
    result = CliRunner().invoke(main, ["arena", "random", "random", "--out", str(tmp_path / "file" / "x")])
    assert result.exit_code == 2 and "cannot create the directory" in result.output, result.output


def test_cantstop_bot_with_an_unknown_name() -> None:
    result = CliRunner().invoke(main, ["bot", "nobody"], input="cantstop\n")
    assert result.exit_code == 2 and "unknown bot 'nobody'" in result.output
