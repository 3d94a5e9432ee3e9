"""Two-player Can't Stop solved exactly: against a brute force, in play, and its refusals."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from cantstop import SeededDice, new_game
from cantstop.arena.match import MatchSpec
from cantstop.arena.runner import SUMMARY_LINES, run_match
from cantstop.bots import Budget, get_bot
from cantstop.cli import main
from cantstop.core.state import Phase
from cantstop.core.variant import preset
from cantstop.solve.duo import DuoBoard, board_for
from cantstop.solve.errors import SolveError
from cantstop.solve.layer import SOLVED
from cantstop.solve.value_file import ValueFile, read_header

from .brute_force_duo import brute_force_duo
from .conftest import DUO, DUO_PLAY, TINY, solved


@pytest.mark.parametrize("spec", DUO)
def test_the_two_player_solver_agrees_with_brute_force_value_iteration(spec: str, solved_folder: Path) -> None:
    board = board_for(spec, 2)
    value_file = solved(spec, 2)
    expected = brute_force_duo(board.variant)
    assert len(expected) > 50
    for (mover, rival), chance in expected.items():
        assert value_file.value(board.index_of(mover, rival)) == pytest.approx(chance, abs=1e-9), (mover, rival)


def test_two_player_values_are_pinned_and_the_rivals_rules_change_them(solved_folder: Path) -> None:
    """Figures checked once and kept; skip and no_stop_on_occupied each move some position's value."""
    assert solved(DUO[0], 2).value(0) == pytest.approx(128 / 155, abs=1e-12)
    plain = np.asarray(solved(DUO[0], 2).values)
    assert np.abs(plain - np.asarray(solved(DUO[6], 2).values)).max() > 0.1  # no_stop_on_occupied
    board = board_for(DUO[1], 2)
    position = board.index_of((0, 0, 0), (1, 1, 1))
    assert solved(DUO[7], 2).value(position) > solved(DUO[1], 2).value(position) + 0.1  # skip


def test_a_position_and_its_mirror_pair_up_and_chances_stay_in_bounds(solved_folder: Path) -> None:
    board = board_for(DUO_PLAY, 2)
    assert isinstance(board, DuoBoard)
    values = np.asarray(solved(DUO_PLAY, 2).values)
    assert ((values >= 0.0) & (values <= 1.0)).all()
    covered = np.zeros(board.anchors, np.int64)
    for number in range(board.layers):
        layer = board.layer(number)
        pairs = layer.kind == SOLVED
        assert all(board.mirror_index(int(a)) == m for a, m in zip(layer.order[pairs], layer.mirror[pairs], strict=True))
        np.add.at(covered, layer.order, 1)
        np.add.at(covered, layer.mirror[pairs], 1)
    assert (covered == 1).all()  # every position solved once, in one layer
    # A player two steps from the win is ahead of the empty board from either side.
    assert 0.5 < values[0] < 1.0


def test_the_optimal_bot_plays_two_player_games_and_refuses_three(solved_folder: Path) -> None:
    info = get_bot("optimal")
    assert info.fits(DUO_PLAY, 2) is None
    assert "one- and two-player games only" in str(info.fits(DUO_PLAY, 3))
    for spec in (*DUO, DUO_PLAY):
        state = new_game(spec, 2)
        dice = SeededDice(spec)
        rng = random.Random(0)
        turns = 0
        while state.phase is not Phase.OVER and turns < 500:
            if state.phase is Phase.ROLL:
                state = state.roll(dice.roll(4, state.variant.faces))
                turns += 1
            else:
                action = info.play(state, rng, Budget())
                assert action in state.legal_actions()
                state = state.play(action)


def seat_a_wins(out: Path) -> list[int]:
    """1 for each game of the match in `out` that seat A (the first to move) won."""
    lines = (out / SUMMARY_LINES).read_text().splitlines()
    return [int(json.loads(line)["winner"] == 0) for line in lines]


@pytest.mark.slow
def test_two_optimal_bots_reproduce_the_first_players_solved_chance(solved_folder: Path, tmp_path: Path) -> None:
    """Through the pure-Python core: seat A's wins within three standard errors of the value_file."""
    games = 4000
    spec = MatchSpec(("optimal", "optimal"), ("optimal", "optimal-2"), DUO_PLAY, seed=5)
    outcome = run_match(spec, games, 2, tmp_path / "m")
    assert outcome.tally.games == games
    wins = seat_a_wins(tmp_path / "m")
    rate = sum(wins) / games
    error = (rate * (1 - rate) / games) ** 0.5
    assert abs(rate - solved(DUO_PLAY, 2).value(0)) <= 3 * error, (rate, error)


@pytest.mark.slow
@pytest.mark.parametrize("bot", ["rule28", "ga", "expert", "rivals"])
def test_no_heuristic_bot_beats_the_optimal_bot(bot: str, solved_folder: Path, tmp_path: Path) -> None:
    """Seat-swapped games on duplicate dice: the optimal bot wins at least half, less three standard errors."""
    games = 1000
    spec = MatchSpec(("optimal", bot), ("optimal", bot), DUO_PLAY, seed=7)
    outcome = run_match(spec, games, 2, tmp_path / bot)
    rate = outcome.tally.wins[0] / outcome.tally.games
    assert rate >= 0.5 - 3 * (0.25 / games) ** 0.5, rate


def test_the_rivals_bot_learned_to_play_a_solved_board_as_the_optimal_bot_does(solved_folder: Path) -> None:
    """Its shipped value of DUO_PLAY, with each turn optimised exactly, makes the optimal bot's decisions."""
    rivals, optimal = get_bot("rivals"), get_bot("optimal")
    assert rivals.fits(preset(DUO_PLAY), 2) is None
    rng = random.Random(3)
    dice = SeededDice("rivals-as-optimal")
    asked = agreed = 0
    for _ in range(60):  # games of random play: positions off the optimal path too
        state = new_game(DUO_PLAY, 2)
        while state.phase is not Phase.OVER:
            if state.phase is Phase.ROLL:
                state = state.roll(dice.roll(4, state.variant.faces))
                continue
            if len(state.legal_actions()) > 1:
                asked += 1
                agreed += rivals.play(state, rng, Budget()) == optimal.play(state, rng, Budget())
            state = state.play(rng.choice(state.legal_actions()))
    assert asked > 100
    assert agreed >= 0.97 * asked, (agreed, asked)


def test_solve_players_2_prints_the_first_players_chance_and_any_positions(solved_folder: Path) -> None:
    runner = CliRunner()
    done = runner.invoke(main, ["solve", DUO[0], "--players", "2", "--anchor", "1.0.0/0.2.0"])
    assert done.exit_code == 0, done.output
    board = board_for(DUO[0], 2)
    value_file = solved(DUO[0], 2)
    assert f"the first player's chance to win from the empty board: {value_file.value(0):.12f}" in done.output
    position = board.index_of((1, 0, 0), (0, 2, 0))
    assert f"the mover's chance to win from 1.0.0/0.2.0: {value_file.value(position):.12f}" in done.output
    listed = runner.invoke(main, ["solve", "--list"])
    assert f"{board.key} (2 players): 396 positions, solved" in listed.output
    plan = runner.invoke(main, ["solve", DUO[0], "--players", "2", "--plan"])
    assert plan.exit_code == 0 and "for 2 players: 396 positions" in plan.output and "available" in plan.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["classic+faces=3+heights=1.2.3.2.1", "--players", "3"], "one- and two-player games, not 3 players"),
        (["classic", "--players", "2"], "too large to solve for two players"),
        (["classic+faces=3+heights=1.2.3.2.1+colour=red", "--players", "2"], "unknown variant option 'colour'"),
        (["solitaire+faces=3+heights=1.2.3.2.1", "--players", "2"], "is for 1..1 players, not 2"),
        (["classic+faces=3+heights=1.2.3.2.1+to_win=4", "--players", "2"], "could claim all 5 columns with nobody at 4, and that game could never end; two players need a lower to_win"),
        ([DUO[0], "--players", "2", "--anchor", "2.0.0/1.0.0"], "other player's progress is 0"),
        ([DUO[0], "--players", "2", "--anchor", "1.0.0"], "joined by '/'"),
    ],
)
def test_the_two_player_solve_refuses_bad_input_before_any_work(
    args: list[str], message: str, solved_folder: Path, tmp_path: Path
) -> None:
    result = CliRunner().invoke(main, ["solve", *args, "--out", str(tmp_path / "x.values")])
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split())
    assert not (tmp_path / "x.values").exists()


def test_a_value_file_of_another_player_count_is_refused(solved_folder: Path, tmp_path: Path) -> None:
    alone = solved(TINY[0])
    duo = board_for(TINY[0].replace("solitaire", "classic"), 2)
    with pytest.raises(SolveError, match="holds the 1-player values"):
        ValueFile.open(alone.path, duo)
    with pytest.raises(SolveError, match="holds the 2-player values"):
        ValueFile.open(solved(DUO[0], 2).path, board_for(DUO[0].replace("classic", "solitaire"), 1))
    assert read_header(solved(DUO[0], 2).path).players == 2
