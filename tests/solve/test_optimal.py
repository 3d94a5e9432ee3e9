"""The optimal bot: its play averages the solved value, and no heuristic bot beats it."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from cantstop import SeededDice, new_game
from cantstop.bots import Budget, get_bot
from cantstop.bots.optimal import QUICK_BOARDS, QUICK_STATES
from cantstop.cli import main
from cantstop.cli.solitaire import run_solitaire
from cantstop.core.errors import SetupError
from cantstop.core.state import Phase
from cantstop.core.variant import preset
from cantstop.solve.duo import board_for
from cantstop.solve.errors import SolveError
from cantstop.tui.seats import check_seats, parse_seats

from .conftest import DICE_4D6, TINY, solved

BOARD_A = TINY[1]  # 2.675 turns
BOARD_B = TINY[6]  # wild dice and a step limit elsewhere; this one: 2.014 turns, step limit 3


def test_the_optimal_bot_plays_legal_moves_and_is_listed(solved_folder: Path) -> None:
    info = get_bot("optimal")
    assert info.display == "Optimal bot"
    for spec in TINY:
        state = new_game(spec, 1)
        dice = SeededDice(spec)
        rng = random.Random(0)
        while state.phase is not Phase.OVER:
            if state.phase is Phase.ROLL:
                state = state.roll(dice.roll(4, state.variant.faces))
            else:
                action = info.play(state, rng, Budget())
                assert action in state.legal_actions()
                state = state.play(action)


def test_the_optimal_bot_refuses_unsolved_variants_and_rivals(solved_folder: Path) -> None:
    play = get_bot("optimal").play
    state = new_game("solitaire+faces=3+heights=3.3.3.3.3", 1).roll((1, 1, 2, 2))
    with pytest.raises(SolveError, match=r"not solved .*cantstop solve"):
        play(state, random.Random(0), Budget())
    rivals = new_game(TINY[3].replace("solitaire", "classic"), 2).roll((1, 1, 2, 2))  # solved alone only
    with pytest.raises(SolveError, match=r"not solved for 2 players .*cantstop solve .* --players 2"):
        play(rivals, random.Random(0), Budget())


def test_off_a_board_too_large_to_solve_here_the_refusal_suggests_one_that_solves_in_seconds(
    solved_folder: Path,
) -> None:
    fits = get_bot("optimal").fits
    alone = fits(preset("solitaire"), 1)
    assert alone is not None and "61,615,574,229,069 in-turn states" in alone
    assert "cantstop solve 'solitaire'" not in alone  # 63 GiB of memory: never the advice
    assert alone.endswith("cantstop solve 'solitaire+faces=3+heights=1.2.3.2.1', then play with "
                          "--variant 'solitaire+faces=3+heights=1.2.3.2.1'")
    two = fits(preset("classic"), 2)
    assert two is not None and "too large to solve for two players" in two
    assert "cantstop solve 'classic+faces=3+heights=1.2.3.2.1' --players 2" in two
    small = fits(preset("solitaire+faces=3+heights=3.3.3.3.3"), 1)
    assert small is not None and "cantstop solve 'solitaire+heights=3.3.3.3.3+faces=3' solves it" in small
    for players, board in QUICK_BOARDS.items():  # what is suggested is quick to solve
        assert board_for(board, players).states <= QUICK_STATES / 1000


@pytest.mark.slow
@pytest.mark.parametrize("spec", [BOARD_A, BOARD_B])
def test_optimal_play_through_the_core_averages_the_solved_value(spec: str, solved_folder: Path) -> None:
    """100,000 games each through the pure-Python engine: within three standard errors."""
    result = run_solitaire("optimal", 100_000, seed=3, variant=spec)
    value = solved(spec).value(0)
    assert abs(result.mean - value) <= 3 * result.standard_error, (result.mean, value)


@pytest.mark.slow
@pytest.mark.parametrize("bot", ["rule28", "ga", "expert"])
def test_no_heuristic_bot_beats_the_solved_value(bot: str, solved_folder: Path) -> None:
    result = run_solitaire(bot, 4000, seed=9, variant=DICE_4D6)
    assert result.mean >= solved(DICE_4D6).value(0) - 3 * result.standard_error


def test_solve_command_prints_values_lists_value_files_and_refuses_bad_input(solved_folder: Path) -> None:
    runner = CliRunner()
    done = runner.invoke(main, ["solve", BOARD_A, "--anchor", "1.0.3"])
    assert done.exit_code == 0, done.output
    value_file = solved(BOARD_A)
    # The value file is complete already: said so, then the values; no plan, no progress bar.
    assert done.output.startswith(f"nothing to solve: {value_file.path} already holds every layer of {value_file.header.key}")
    assert "needs" not in done.output and "solving" not in done.output
    assert f"from the empty board: {value_file.value(0):.12f}" in done.output
    assert f"from 1.0.3: {value_file.value(anchor_index(BOARD_A, (1, 0, 3))):.12f}" in done.output

    listed = runner.invoke(main, ["solve", "--list"])
    assert listed.exit_code == 0 and f"{value_file.header.key}: 80 anchors, solved" in listed.output

    bad = runner.invoke(main, ["solve", BOARD_A, "--anchor", "1.0.9"])
    assert bad.exit_code == 2 and "each from 0 to its height (3.4.3)" in bad.output
    words = runner.invoke(main, ["solve", BOARD_A, "--anchor", "1.two.3"])
    assert words.exit_code == 2 and "write one whole number per column joined by dots, e.g. 0.0.0" in words.output
    two = runner.invoke(main, ["solve", "turtles"])
    assert two.exit_code == 2 and "min_players=2" in two.output
    big = runner.invoke(main, ["solve", "solitaire"])
    assert big.exit_code == 1 and "not enough memory" in big.output and "nothing was written" in big.output
    none = runner.invoke(main, ["solve"])
    assert none.exit_code == 2 and "--list" in none.output


def anchor_index(spec: str, progress: tuple[int, ...]) -> int:
    from cantstop.solve.board import board_of

    return board_of(spec).anchor_index(progress)


def policy_values(spec: str) -> dict[tuple[int, ...], float]:
    """Expected turns of the optimal bot's own moves from every anchor, evaluated exactly.

    Value iteration as in brute_force.py, but every choice and every roll-or-stop is the
    bot's, asked through the core's states.
    """
    import itertools

    from cantstop.core.state import ROLL, STOP, State, make_state

    play = get_bot("optimal").play
    variant = new_game(spec, 1).variant
    catalog = variant.catalog
    size = 2 + len(variant.heights)
    value: dict[tuple[int, ...], float] = {}
    anchors = sorted(itertools.product(*(range(h + 1) for h in variant.heights)), key=sum, reverse=True)

    def decide(state: State, x: float, memo: dict[tuple[int, ...], float]) -> float:
        if play(state, random.Random(0), Budget()) == STOP:
            stopped = state.play(STOP)
            return 0.0 if stopped.is_over else value[tuple(stopped.pieces[0][2:])]
        return roll(state.play(ROLL), x, memo)

    def roll(state: State, x: float, memo: dict[tuple[int, ...], float]) -> float:
        if state.runners not in memo:
            total = 0.0
            for dice, weight in zip(catalog.outcomes, catalog.weights, strict=True):
                after = state.roll(dice)
                if after.phase is not Phase.CHOOSE:
                    total += weight * x
                else:
                    total += weight * decide(after.play(play(after, random.Random(0), Budget())), x, memo)
            memo[state.runners] = total / catalog.total
        return memo[state.runners]

    for anchor in anchors:
        if sum(p == h for p, h in zip(anchor, variant.heights, strict=True)) >= variant.to_win:
            value[anchor] = 0.0
            continue
        start = make_state(variant, ((0, 0, *anchor),), (0,) * size, 0, Phase.ROLL)
        x = 0.0
        while abs((nxt := 1.0 + roll(start, x, {})) - x) > 1e-14 * nxt:
            x = nxt
        value[anchor] = nxt
    return value


@pytest.mark.parametrize("spec", [TINY[1], TINY[4], TINY[6]])
def test_the_optimal_bot_achieves_the_solved_value_exactly(spec: str, solved_folder: Path) -> None:
    """Its moves, evaluated exactly from every anchor, are worth the value file's values."""
    from cantstop.solve.board import board_of

    board = board_of(spec)
    value_file = solved(spec)
    for progress, value in policy_values(spec).items():
        assert value == pytest.approx(value_file.value(board.anchor_index(progress)), abs=1e-9), progress


def test_every_front_end_refuses_the_optimal_bot_before_a_game_it_cannot_play(solved_folder: Path, tmp_path: Path) -> None:
    """Off a solved board it would fail at every move; it is refused up front instead, with
    the reason and what to do (before this, `cantstop solitaire optimal` played fallback moves)."""
    unsolved = "solitaire+faces=3+heights=3.3.3.3.3"
    runner = CliRunner()
    result = runner.invoke(main, ["solitaire", "optimal", "--variant", unsolved, "--games", "2"])
    assert result.exit_code == 2 and "not solved" in result.output and "cantstop solve" in result.output
    assert runner.invoke(main, ["solitaire", "optimal", "--variant", BOARD_A, "--games", "2"]).exit_code == 0
    two = TINY[3].replace("solitaire", "classic")  # solved alone only (BOARD_A's three columns could never end a game of two)
    result = runner.invoke(main, ["arena", "optimal", "random", "--games", "2", "--variant", two, "--out", str(tmp_path / "a")])
    assert result.exit_code == 2 and "not solved for 2 players" in result.output
    assert not (tmp_path / "a").exists()
    seats, _ = parse_seats("bot:optimal")
    with pytest.raises(SetupError, match="not solved"):
        check_seats(seats, preset(unsolved))
    check_seats(seats, preset(BOARD_A))
    result = runner.invoke(main, ["play", "--players", "bot:optimal", "--variant", unsolved, "--records", str(tmp_path)])
    assert result.exit_code == 2 and "not solved" in result.output
