"""Exact turns against estimated anchor values (the expert II bot's engine), checked by brute force."""

from __future__ import annotations

import random

import numpy as np
import pytest

from cantstop import SeededDice, new_game
from cantstop.bots import Budget, get_bot
from cantstop.bots.expert2 import KNOTS, estimate
from cantstop.core.state import Phase
from cantstop.core.variant import preset
from cantstop.solve.board import board_of
from cantstop.solve.policy import Policy

from .brute_force import _Turn
from .conftest import TINY

KNOTS_TINY = ((0.0, 0.5, 1.2, 2.0), (3.0, 2.2, 1.4, 1.0))


def python_estimate(heights: tuple[int, ...], to_win: int, progress: tuple[int, ...]) -> float:
    """The estimate's definition written out plainly (no numba, no shared code)."""
    from cantstop.bots.expert import ALPHA, SPARE

    if sum(p == h for p, h in zip(progress, heights, strict=True)) >= to_win:
        return 0.0
    worths = sorted(((p / h) ** ALPHA for p, h in zip(progress, heights, strict=True)), reverse=True)
    measure = sum(worths[:to_win]) + SPARE * sum(worths[to_win:])
    return float(np.interp(measure, *KNOTS_TINY))


@pytest.mark.parametrize("spec", [TINY[1], TINY[4], TINY[6]])
def test_turns_against_an_estimate_agree_with_a_brute_force_turn(spec: str) -> None:
    board = board_of(spec)
    policy = Policy.estimated(board, estimate(board.heights, board.to_win, KNOTS_TINY))
    values = {
        anchor: python_estimate(board.heights, board.to_win, anchor)
        for anchor in (board.progress(i) for i in range(board.anchors))
    }
    for index in range(0, board.anchors, max(1, board.anchors // 12)):
        anchor = board.progress(index)
        if values[anchor] == 0.0:
            continue
        turn, x = _Turn(board.variant, anchor, values), 0.0
        for _ in range(200):  # x <- 1 + W(x), the brute force's way
            x = 1.0 + turn.roll_value(turn.start, x, {})
        assert policy.value(anchor) == pytest.approx(x, rel=1e-4), anchor


def test_expert2_plays_alone_by_its_turns_and_against_rivals_as_the_expert() -> None:
    expert2, expert = get_bot("expert2"), get_bot("expert")
    assert expert2.display == "Expert II bot" and "solitaire" in KNOTS
    state, dice = new_game("solitaire", 1), SeededDice("expert2-alone")
    while state.phase is not Phase.OVER:
        if state.phase is Phase.ROLL:
            state = state.roll(dice.roll(4, 6))
            continue
        action = expert2.play(state, random.Random(0), Budget())
        assert action in state.legal_actions()
        state = state.play(action)
    assert state.winner == 0
    rivals, dice = new_game("classic", 2), SeededDice("expert2-rivals")
    for _ in range(300):
        if rivals.phase is Phase.OVER:
            break
        if rivals.phase is Phase.ROLL:
            rivals = rivals.roll(dice.roll(4, 6))
            continue
        action = expert2.play(rivals, random.Random(0), Budget())
        assert action == expert.play(rivals, random.Random(0), Budget())
        rivals = rivals.play(action)


def test_expert2_without_a_fitted_curve_plays_as_the_expert() -> None:
    variant = preset("solitaire+heights=2.3.4.5.6.7.6.5.4.3.2")
    state = new_game(variant, 1).roll((1, 2, 3, 4))
    assert get_bot("expert2").play(state, random.Random(0), Budget()) == get_bot("expert").play(
        state, random.Random(0), Budget()
    )


@pytest.mark.slow
def test_expert2_needs_fewer_turns_alone_than_the_expert_on_the_same_dice() -> None:
    from cantstop.cli.solitaire import run_solitaire

    games = 300
    ours = run_solitaire("expert2", games, seed=11)
    theirs = run_solitaire("expert", games, seed=11)
    assert ours.mean < theirs.mean - 0.2, (ours.mean, theirs.mean)
