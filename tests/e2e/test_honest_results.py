"""No command prints a figure that a failing bot produced: bots that cannot play are refused
before the first game, what a bot compiles is compiled before any clock starts, a bot that
fails mid-run stops the run (or, in a match, makes it exit non-zero unless forfeits are
allowed), and a run has a turn limit.

Each test runs the command line in a fresh interpreter after a few lines of set-up: the
venv has numba, so its absence is made by `sys.modules['numba'] = None`; the bots that
crash or never stop are registered there, leaving this process's registry alone.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cantstop.solve.board import board_of
from cantstop.solve.solver import solve
from cantstop.solve.value_file import default_path

GOLDEN = Path(__file__).parent.parent / "core" / "golden"
NO_NUMBA = "import sys; sys.modules['numba'] = None"

CRASHES_AT_TURN_3 = """
from cantstop.bots import Level, get_bot, register

play_rule28 = get_bot("rule28").play

@register("crashy", Level.EASY, "plays rule28, crashes on its third turn", "Crashy bot")
def crashy(state, rng, budget):
    if state.turn == 2:
        raise RuntimeError("out of ideas")
    return play_rule28(state, rng, budget)
"""

CRASHES_ON_A_SIX = """
from cantstop.bots import Level, get_bot, register

play_rule28 = get_bot("rule28").play

@register("sometimes", Level.EASY, "plays rule28, crashes when its third turn opens with a 6", "Sometimes bot")
def sometimes(state, rng, budget):
    if state.turn == 2 and state.dice and state.dice[0] == 6:
        raise RuntimeError("a six")
    return play_rule28(state, rng, budget)
"""

NEVER_STOPS = """
from cantstop.bots import Level, register
from cantstop.core.state import ROLL

@register("greedy", Level.EASY, "never stops", "Greedy bot")
def greedy(state, rng, budget):
    legal = state.legal_actions()
    return ROLL if ROLL in legal else legal[0]
"""


def cantstop(prelude: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`cantstop ARGS` in a fresh interpreter, after `prelude`."""
    script = f"{prelude}\nfrom cantstop.cli import main\nmain(prog_name='cantstop')"
    return subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=300,
        env={**os.environ, **(env or {})},
    )


def assert_one_line_error(done: subprocess.CompletedProcess[str], *words: str) -> None:
    assert done.returncode != 0, done.stdout
    assert "Traceback" not in done.stderr, done.stderr
    for word in words:
        assert word in done.stderr, done.stderr


def test_expert2_without_the_fast_extra_is_refused_before_the_first_game() -> None:
    done = cantstop(NO_NUMBA, "solitaire", "expert2", "--games", "3", "--seed", "1")
    assert done.returncode == 2 and "turns" not in done.stdout
    assert_one_line_error(done, "Expert II bot cannot play solitaire", "pip install -e '.[fast]'")


def test_rivals_without_the_fast_extra_is_refused_in_one_sentence(tmp_path: Path) -> None:
    done = cantstop(NO_NUMBA, "arena", "rivals", "expert", "--games", "2", "--out", str(tmp_path / "out"))
    assert done.returncode == 2
    assert_one_line_error(
        done, "the Rivals bot cannot play classic with 2 players: it needs numba, which the 'fast' extra "
        "brings: from a checkout run pip install -e '.[fast]'"
    )
    assert done.stderr.count("numba") == 1 and "numpy" not in done.stderr


@pytest.mark.slow
def test_a_cold_numba_cache_gives_the_very_games_of_a_warm_one(tmp_path: Path) -> None:
    # The first run compiles the rivals bot's kernels (seconds) in the parent before any game,
    # saying so; with duplicate dice and the same seed a warm run must give the same games.
    cache = {"NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    args = ("arena", "rivals", "expert", "--games", "6", "--jobs", "2", "--seed", "3", "--no-progress")
    cold = cantstop("", *args, "--out", str(tmp_path / "cold"), env=cache)
    assert cold.returncode == 0, cold.stderr
    assert "compiling the Rivals bot for classic with 2 players (first run only" in cold.stderr
    warm = cantstop("", *args, "--out", str(tmp_path / "warm"), env=cache)
    assert warm.returncode == 0, warm.stderr
    assert "compiling" not in warm.stderr
    assert (tmp_path / "cold" / "games.jsonl").read_text() == (tmp_path / "warm" / "games.jsonl").read_text()
    assert '"forfeit":null' in (tmp_path / "cold" / "games.jsonl").read_text()
    assert '"forfeit":{' not in (tmp_path / "cold" / "games.jsonl").read_text()


def test_forfeits_make_a_match_and_a_tournament_exit_non_zero_unless_allowed(tmp_path: Path) -> None:
    match = ("arena", "crashy", "random", "--games", "4", "--jobs", "1", "--no-progress")
    done = cantstop(CRASHES_AT_TURN_3, *match, "--out", str(tmp_path / "a"))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "crashy forfeited, first time: crash: RuntimeError: out of ideas" in done.stdout  # the report is printed
    assert "2 of 4 games ended in a forfeit (crashy: 2 crash)" in done.stderr  # in seat A: turn 2 is its
    assert "--allow-forfeits" in done.stderr
    allowed = cantstop(CRASHES_AT_TURN_3, *match, "--allow-forfeits", "--out", str(tmp_path / "b"))
    assert allowed.returncode == 0, allowed.stderr
    assert "2 of 4 games ended in a forfeit" in allowed.stdout
    league = ("tournament", "crashy", "random", "cautious", "--games", "2", "--jobs", "1", "--no-progress")
    done = cantstop(CRASHES_AT_TURN_3, *league, "--out", str(tmp_path / "c"))
    assert done.returncode == 1 and "of 6 games ended in a forfeit (crashy: " in done.stderr
    allowed = cantstop(CRASHES_AT_TURN_3, *league, "--allow-forfeits", "--out", str(tmp_path / "d"))
    assert allowed.returncode == 0, allowed.stderr
    clean = cantstop("", "arena", "random", "cautious", "--games", "4", "--no-progress", "--out", str(tmp_path / "e"))
    assert clean.returncode == 0 and "ended in a forfeit" not in clean.stdout + clean.stderr


def test_expert2_plays_against_rivals_without_the_fast_extra(tmp_path: Path) -> None:
    # With rivals it plays as the expert, which needs no solver: nothing to refuse.
    done = cantstop(NO_NUMBA, "arena", "expert2", "random", "--games", "2", "--jobs", "1", "--no-progress",
                    "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    assert "expert2" in done.stdout


def test_optimal_without_the_fast_extra_is_refused_even_on_a_solved_board(tmp_path: Path) -> None:
    spec = "solitaire+faces=3+heights=1.2.3.2.1"
    folder = {"CANTSTOP_SOLVE_DIR": str(tmp_path)}
    board = board_of(spec)
    solve(board, tmp_path / default_path(board).name, threads=1)
    done = cantstop(NO_NUMBA, "solitaire", "optimal", "--games", "3", "--variant", spec, env=folder)
    assert done.returncode == 2 and "turns" not in done.stdout
    assert_one_line_error(done, "Optimal bot cannot play", "pip install -e '.[fast]'")
    # With numba the same table plays.
    done = cantstop("", "solitaire", "optimal", "--games", "3", "--variant", spec, env=folder)
    assert done.returncode == 0 and "optimal: " in done.stdout, done.stderr


def test_solve_without_the_fast_extra_is_a_one_line_error(tmp_path: Path) -> None:
    table = tmp_path / "t.table"
    done = cantstop(NO_NUMBA, "solve", "solitaire+faces=3+heights=1.2.3.2.1", "--out", str(table))
    assert_one_line_error(done, "the solver needs the 'fast' extra", "pip install -e '.[fast]'")
    assert not table.exists()


def test_a_bot_that_crashes_mid_run_stops_solitaire_with_its_name() -> None:
    done = cantstop(CRASHES_AT_TURN_3, "solitaire", "crashy", "--games", "4", "--seed", "2")
    assert_one_line_error(done, "the bot crashy failed", "RuntimeError: out of ideas")
    assert "turns" not in done.stdout and "#" not in done.stdout
    in_workers = cantstop(CRASHES_AT_TURN_3, "solitaire", "crashy", "--games", "4", "--jobs", "2")
    assert_one_line_error(in_workers, "the bot crashy failed")


def test_solitaire_with_forfeits_allowed_leaves_the_failed_games_out_and_says_so() -> None:
    args = ("solitaire", "sometimes", "--games", "6", "--seed", "3")
    stopped = cantstop(CRASHES_ON_A_SIX, *args)
    assert_one_line_error(stopped, "the bot sometimes failed", "--allow-forfeits plays on")
    done = cantstop(CRASHES_ON_A_SIX, *args, "--allow-forfeits")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("sometimes: 7.250 ± 1.315 turns (mean ± SE), 4 games, seed 3; ")
    assert done.stdout.splitlines()[0].endswith(
        "; 2 games forfeited and left out (first: the game of seed 3000012: crash: RuntimeError: a six)"
    )


def test_a_bot_that_never_stops_ends_at_the_turn_limit_which_is_reported() -> None:
    done = cantstop(NEVER_STOPS, "solitaire", "greedy", "--games", "3", "--max-turns", "40")
    assert done.returncode == 0, done.stderr
    assert "3 games reached the 40-turn limit and count as 40 turns: the mean is a lower bound" in done.stdout
    assert done.stdout.startswith("greedy: 40.000 ± 0.000 turns")


def test_the_turn_limit_is_the_arenas_and_is_reported_when_no_game_reaches_it() -> None:
    done = cantstop("", "solitaire", "rule28", "--games", "3")
    assert done.returncode == 0, done.stderr
    assert "no game reached the 2,000-turn limit" in done.stdout.splitlines()[0]


# Ray finds no cluster, even if another process on this machine runs one.
NO_RAY_CLUSTER = """
import functools
import ray._private.services as services
services.find_gcs_addresses = functools.cache(lambda: [])  # Ray clears this cache on shutdown
services.find_bootstrap_address = lambda temp_dir: None
"""


def test_arena_with_no_ray_cluster_is_a_one_line_error_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "match"
    args = ("arena", "random", "rule28", "--games", "2", "--ray", "auto", "--out", str(out), "--no-progress")
    done = cantstop(NO_RAY_CLUSTER, *args, env={"RAY_ADDRESS": ""})
    assert_one_line_error(done, "cantstop arena --ray: no Ray cluster at 'auto'", "ray start --head")
    assert not out.exists()  # so the same command runs once a cluster is up


def test_solve_with_no_ray_cluster_is_a_one_line_error(tmp_path: Path) -> None:
    args = ("solve", "solitaire+faces=3+heights=1.2.3.2.1", "--ray", "auto", "--out", str(tmp_path / "t.table"))
    done = cantstop(NO_RAY_CLUSTER, *args, env={"RAY_ADDRESS": ""})
    assert_one_line_error(done, "cantstop solve --ray: no Ray cluster at 'auto'", "ray start --head")
    assert not (tmp_path / "t.table").exists()


def test_solving_a_slice_of_finished_games_only_marks_it_done(tmp_path: Path) -> None:
    # Layers 0 and 1 of this board hold only finished games: no work, once a ZeroDivisionError.
    spec = "solitaire+faces=3+heights=2.3.4.3.2"
    table = tmp_path / "t.table"
    done = cantstop("", "solve", spec, "--layers", "0:2", "--out", str(table))
    assert done.returncode == 0, done.stderr
    assert "solved layers 0:2 of 15" in done.stdout and "--layers 2:15" in done.stdout
    rest = cantstop("", "solve", spec, "--layers", "2:15", "--out", str(table))
    assert rest.returncode == 0, rest.stderr
    assert "optimal expected turns from the empty board" in rest.stdout


def test_compile_without_the_fast_extra_names_what_to_install() -> None:
    done = cantstop(NO_NUMBA, "compile")
    assert_one_line_error(done, "there is nothing to compile without the fast extra", "pip install -e '.[fast]'")


SEEN_COMPILING = """
import sys
from cantstop.bots.compiling import watch_compiling
heard = []
watch = watch_compiling(heard.append)
watch.__enter__()
import atexit
atexit.register(lambda: print("compiled afterwards:", len([n for n in heard if n.startswith("cantstop.")]), file=sys.stderr))
"""


@pytest.mark.slow
def test_after_compile_no_game_match_or_analysis_compiles_anything(tmp_path: Path) -> None:
    # Into a cache of its own: the command compiles (and says so), then a 2-player match, a
    # 4-player one, a solitaire and an analysis, each in a fresh process, compile nothing.
    cache = {"NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    done = cantstop("", "compile", env=cache)
    assert done.returncode == 0, done.stderr
    assert "compiling the Rivals bot for classic with 2 players (first run only" in done.stderr
    assert "compiling game analysis (first run only" in done.stderr
    assert done.stdout.startswith("ready: ") and "rivals" in done.stdout and "game analysis" in done.stdout
    runs = [
        ("arena", "rivals", "expert2", "--games", "2", "--jobs", "1", "--no-progress", "--out", str(tmp_path / "two")),
        ("arena", "rivals", "expert", "expert2", "rivals", "--games", "1", "--jobs", "1", "--no-progress", "--out", str(tmp_path / "four")),
        ("solitaire", "expert2", "--games", "2", "--seed", "1"),
        ("rollmap", "classic 00000000000/00000000000 01001000000 A decide 2 0"),
        ("analyse", str(GOLDEN / "classic-4p.txt"), "--no-graph"),
    ]
    for args in runs:
        run = cantstop(SEEN_COMPILING, *args, env=cache)
        assert run.returncode == 0, (args, run.stderr)
        assert "compiled afterwards: 0" in run.stderr and "compiling" not in run.stderr, (args, run.stderr)
