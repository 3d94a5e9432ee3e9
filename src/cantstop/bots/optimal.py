"""The optimal bot: exact play of one- and two-player games on a board the solver has solved.

It reads the value file `cantstop solve SPEC` (alone) or `cantstop solve SPEC --players 2`
wrote (see docs/solving.md) and plays its policy: the fewest expected turns alone,
the greatest chance to win against one rival. On a variant without a complete value file,
or with three or more players, it refuses with a message saying what to do.
"""

from __future__ import annotations

import random

from cantstop.bots.base import Budget, Level, Need, needs_fast, register, rehearse
from cantstop.core.state import Action, State
from cantstop.core.variant import Variant
from cantstop.solve.duo import board_for
from cantstop.solve.errors import SolveError
from cantstop.solve.value_file import default_path

_POLICIES: dict[tuple[Variant, int], object] = {}  # one loaded value file per variant and player count


def _policy(variant: Variant, players: int) -> object:
    from cantstop.solve.policy import Policy

    policy = _POLICIES.get((variant, players))
    if not isinstance(policy, Policy):
        policy = _POLICIES[(variant, players)] = Policy.load(variant, players=players)
    return policy


def optimal_action(state: State) -> Action:
    from cantstop.solve.policy import Policy

    policy = _policy(state.variant, state.num_players)
    assert isinstance(policy, Policy)
    return policy.action(state)


# Boards solved in seconds here (docs/solving.md): what a refusal suggests when the board
# asked for is not solved and would take far longer.
QUICK_BOARDS = {1: "solitaire+faces=3+heights=1.2.3.2.1", 2: "classic+faces=3+heights=1.2.3.2.1"}
# In-turn states solved in minutes at most on the project's 2-core machine: its ladders
# measured 1.6 to 3.6 µs of CPU per state (10**8 states: 3 to 6 minutes of CPU).
QUICK_STATES = 10**8


def _try_quick_board(num_players: int) -> str:
    board = QUICK_BOARDS[num_players]
    flag = "" if num_players == 1 else " --players 2"
    return f"to see it play, solve a board that takes seconds: cantstop solve '{board}'{flag}, then play with --variant '{board}'"


def _unsolved(variant: Variant, num_players: int) -> str | None:
    """Why the board of `variant` has no value file to play from, and what to run; None if it has one."""
    try:
        board = board_for(variant, num_players)
    except SolveError as error:  # not solvable by the solver at all
        return f"{error}; {_try_quick_board(num_players)}"
    path = default_path(board)
    if path.exists():
        return None
    players = f"{num_players} player{'s' * (num_players > 1)}"
    flag = "" if num_players == 1 else f" --players {num_players}"
    if board.states <= QUICK_STATES:
        return (f"{board.key} is not solved for {players} here (no value file at {path}): "
                f"cantstop solve '{board.key}'{flag} solves it ({board.states:,} in-turn states: minutes at most)")
    return (f"{board.key} is not solved for {players} here (no value file at {path}), and at "
            f"{board.states:,} in-turn states it takes far more than minutes to solve (docs/solving.md); "
            f"{_try_quick_board(num_players)}")


def fits_optimal(variant: Variant, num_players: int) -> str | None:
    """A one- or two-player game on a board solved for that many players (its value file is loaded now, once)."""
    if num_players > 2:
        return "it plays one- and two-player games only (the solver solves no more)"
    unsolved = _unsolved(variant, num_players)
    if unsolved is not None:
        return unsolved
    try:
        _policy(variant, num_players)
    except (SolveError, ImportError) as error:  # partly solved, a broken file, or no numba
        return str(error)
    return needs_fast("cantstop.solve.kernels")  # the value file loads without numba; a move would not


@register(
    "optimal",
    Level.EXPERT,
    "Perfect play from a solved board's values (cantstop solve); one- and two-player games.",
    "Optimal bot",
    fits_optimal,
    prepare=rehearse,
    needs=(Need.FAST, Need.SOLVED),
)
def play_optimal(state: State, rng: random.Random, budget: Budget) -> Action:
    return optimal_action(state)
