"""`cantstop solitaire --fast` and `cantstop arena --fast` as a user runs them."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from cantstop.cli import main

CANTSTOP = str(Path(sys.executable).parent / "cantstop")


def test_fast_solitaire_reports_mean_and_histogram(tmp_path: Path) -> None:
    png = tmp_path / "turns.png"
    result = CliRunner().invoke(
        main, ["solitaire", "rule28", "--fast", "--games", "20000", "--seed", "3", "--plot", str(png)]
    )
    assert result.exit_code == 0, result.output
    # On a cold numba cache a "compiling the simulator" line comes first (stderr, mixed in here).
    found = re.search(r"^rule28: (\d+\.\d+) ± (\d\.\d+) turns \(mean ± SE\), 20000 games, seed 3, fast", result.output, re.M)
    assert found, result.output
    assert abs(float(found[1]) - 10.70) < 5 * float(found[2])
    assert "#" in result.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_fast_arena_reports_wins_over_whole_deals() -> None:
    result = CliRunner().invoke(main, ["arena", "ga", "random", "--fast", "--games", "999", "--seed", "2"])
    assert result.exit_code == 0, result.output
    assert "1,000 games of classic, seed 2, fast: every deal in all 2 seat orders" in result.output
    wins = {m[1]: int(m[2].replace(",", "")) for m in re.finditer(r"\d\. (\w+) +([\d,]+) wins", result.output)}
    assert set(wins) == {"ga", "random"} and wins["ga"] > 900 and sum(wins.values()) == 1000
    assert "Elo of ga over random: +" in result.output


def test_fast_refuses_bots_without_a_compiled_form() -> None:
    runner = CliRunner()
    solo = runner.invoke(main, ["solitaire", "cautious", "--fast", "--games", "10"])
    assert solo.exit_code == 2
    assert "bot 'cautious' has no compiled form for --fast; compiled bots: random, rule28, ga, expert" in solo.output
    outside = runner.invoke(main, ["arena", "cmd:python examples/mybot.py", "random", "--fast"])
    assert outside.exit_code == 2 and "is an outside program" in outside.output
    sprt = runner.invoke(main, ["arena", "ga", "random", "--fast", "--sprt", "elo0=0 elo1=20"])
    assert sprt.exit_code == 2 and "--sprt is for core matches" in sprt.output


def test_more_games_than_the_core_path_allows_needs_fast() -> None:
    result = CliRunner().invoke(main, ["solitaire", "rule28", "--games", "2000000"])
    assert result.exit_code == 2 and "add --fast for up to 1,000,000,000" in result.output
    result = CliRunner().invoke(main, ["arena", "ga", "random", "--games", "2000000"])
    assert result.exit_code == 2 and "add --fast for up to 1,000,000,000" in result.output


def test_ctrl_c_prints_the_result_so_far() -> None:
    warm = subprocess.run([CANTSTOP, "solitaire", "rule28", "--fast", "--games", "10"],
                          capture_output=True, text=True, timeout=300)
    assert warm.returncode == 0, warm.stderr  # kernels compiled and cached
    # A suite started in the background of a script inherits SIGINT ignored, and so would the
    # child (Python keeps an ignored SIGINT ignored): give it the default a terminal's user has.
    run = subprocess.Popen([CANTSTOP, "solitaire", "rule28", "--fast", "--games", "1000000000"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert run.stderr is not None
    line = run.stderr.readline()  # the first chunk is played
    assert "of 1,000,000,000 games played" in line, line
    run.send_signal(signal.SIGINT)
    out, err = run.communicate(timeout=300)
    assert run.returncode == 0, err
    assert "interrupted: the result of the" in err
    assert re.match(r"rule28: \d+\.\d+ ± \d\.\d+ turns \(mean ± SE\), \d+ games, seed 0, fast", out)


def test_the_first_ctrl_c_asks_for_a_stop_between_chunks_and_the_second_stops_at_once() -> None:
    from cantstop.cli.fast_run import _stop_between_chunks

    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with _stop_between_chunks() as asked:
            assert not asked()
            os.kill(os.getpid(), signal.SIGINT)  # no KeyboardInterrupt in the middle of a chunk
            assert asked()
            with pytest.raises(KeyboardInterrupt):
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(1)  # the handler runs here at the latest
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        with _stop_between_chunks() as asked:  # ignored stays ignored
            os.kill(os.getpid(), signal.SIGINT)
            assert not asked() and signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)
