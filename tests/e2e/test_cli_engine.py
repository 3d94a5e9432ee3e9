"""The engine's commands, through click's runner and as a real `cantstop` process."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from cantstop import __version__
from cantstop.cli import main

GOLDEN = Path(__file__).parent.parent / "core" / "golden"
BEFORE_2455 = "classic 00000000000/00000000000 01001000000 A decide 2 0"


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def cantstop_command() -> list[str]:
    found = shutil.which("cantstop", path=str(Path(sys.executable).parent))
    assert found, "the cantstop script is installed beside the test's Python"
    return [found]


def test_version_as_a_real_process() -> None:
    done = subprocess.run([*cantstop_command(), "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == f"cantstop, version {__version__}"


def test_odds_6_7_8_as_a_real_process() -> None:
    done = subprocess.run([*cantstop_command(), "odds", "6", "7", "8"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "91.98%" in done.stdout


def test_bad_input_exits_2_as_a_real_process() -> None:
    done = subprocess.run([*cantstop_command(), "options", "nonsense", "2455"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "POSITION" in done.stderr and "7 fields" in done.stderr


def test_odds_of_single_columns_pairs_and_triples() -> None:
    code, out = run("odds")
    assert code == 0
    assert "   7   64.35%" in out and "   2   13.19%" in out
    assert "6-7-8   91.98%" in out and "2-3-12   43.83%" in out and "2-11-12   43.83%" in out


def test_odds_heads_say_when_every_row_is_shown() -> None:
    code, out = run("odds", "--top", "30")
    assert code == 0 and "pairs (all 55):" in out and "triples (best 30, worst 30 of 165):" in out
    assert len([line for line in out.splitlines() if line.strip().count("-") == 1]) == 55


def test_odds_with_the_turtles_wild_face() -> None:
    code, out = run("odds", "--variant", "turtles", "7")
    assert code == 0 and "79.86%" in out and "turtles" in out
    code, out = run("odds", "--variant", "turtles")
    assert code == 0 and "   3   32.02%" in out


def test_options_text_and_json() -> None:
    code, out = run("options", BEFORE_2455, "2455")
    assert code == 0 and out.split() == ["6+10", "7", "9"]
    code, out = run("options", BEFORE_2455, "2455", "--json")
    assert code == 0
    assert json.loads(out) == {"dice": [2, 4, 5, 5], "bust": False, "choices": [[6, 10], [7], [9]]}


def test_options_of_a_bust() -> None:
    position = "classic 00000000000/00000000000 10000000001 A decide 2 0"
    code, out = run("options", position.replace("10000000001", "10000100001").replace("decide 2", "decide 3"), "5555")
    assert code == 0 and out.strip() == "bust"
    code, out = run("options", position, "5555", "--json")
    assert json.loads(out)["choices"] == [[10, 10]]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["options", "classic x", "2455"], "Invalid value for POSITION: a position has 7 fields"),
        (["options", BEFORE_2455, "2457"], "Invalid value for DICE: bad dice '2457'"),
        (["options", BEFORE_2455, "245"], "Invalid value for DICE: bad dice '245'"),
        (["options", BEFORE_2455.replace("decide", "choose:2455"), "1111"], "choose phase"),
        (["odds", "6", "13"], "no column 13 in classic"),
        (["odds", "--variant", "chess"], "unknown variant 'chess'"),
        (["odds", "six"], "'six' is not a valid integer"),
        (["odds", "--top", "0"], "0 is not in the range x>=1"),
        (["odds", "--top", "-3"], "-3 is not in the range x>=1"),
        (["replay", "/nonexistent/record.txt"], "does not exist"),
        (["replay", str(GOLDEN / "solitaire.txt"), "--turn", "-1"], "-1 is not in the range x>=0"),
    ],
)
def test_bad_input_exits_2_with_a_clear_message(args: list[str], message: str) -> None:
    code, out = run(*args)
    assert code == 2
    assert message in out


def test_replay_prints_every_turn_and_the_winner() -> None:
    code, out = run("replay", str(GOLDEN / "classic-2p.txt"))
    assert code == 0
    assert out.splitlines()[0] == "classic: A Ann, B Bob"
    assert "turn 1: Ann rolls 6 4 2 4: 6+10, 8+8" in out and "busts on" in out and "claims column" in out
    assert out.rstrip().endswith("winner: Ann")


def test_replay_turn_n_prints_that_position() -> None:
    code, out = run("replay", str(GOLDEN / "classic-2p.txt"), "--turn", "1")
    assert code == 0 and out.strip() == "classic 00010031000/00000000000 00000000000 B roll 0 1"  # 5:1 8:3 9:1
    code, out = run("replay", str(GOLDEN / "classic-2p.txt"), "--turn", "39")
    final = [line for line in (GOLDEN / "classic-2p.txt").read_text().splitlines() if line.startswith("[Final")]
    assert code == 0 and out.strip() in final[0]


def test_replay_turn_past_the_end_says_how_many_turns_the_game_has() -> None:
    code, out = run("replay", str(GOLDEN / "classic-2p.txt"), "--turn", "999")
    assert code == 2 and "the game has 39 turns: give 0..39" in out


def test_replay_of_a_corrupt_record_names_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text('[Players "Ann; Bob"]\n\n1. B 1546 6+10 stop\n', encoding="utf-8")
    code, out = run("replay", str(bad))
    assert code == 2
    assert "Invalid value for RECORD" in out and "line 3: turn 1 is seat A's, not 'B'" in out
