"""The optimal bot: exact play of one-player games on a board the solver has solved.

It reads the table `cantstop solve SPEC` wrote (see docs/solving.md) and plays the
policy that minimises the expected number of turns. On a variant without a complete
table, or in a game with rivals, it refuses with a message saying what to do.
"""

from __future__ import annotations

import random

from cantstop.bots.base import Budget, Level, importable, register
from cantstop.core.state import Action, State
from cantstop.core.variant import Variant
from cantstop.solve.board import SolveError

_POLICIES: dict[Variant, object] = {}  # one loaded table per variant, for the process


def _policy(variant: Variant) -> object:
    from cantstop.solve.policy import Policy

    policy = _POLICIES.get(variant)
    if not isinstance(policy, Policy):
        policy = _POLICIES[variant] = Policy.load(variant)
    return policy


def optimal_action(state: State) -> Action:
    from cantstop.solve.policy import Policy

    policy = _policy(state.variant)
    assert isinstance(policy, Policy)
    return policy.action(state)


def fits_optimal(variant: Variant, num_players: int) -> str | None:
    """A one-player game on a solved board (the table is loaded now, once)."""
    if num_players != 1:
        return "it plays one-player games only"
    try:
        _policy(variant)
    except (SolveError, ImportError) as error:  # not solved, not solvable, or no numba
        return str(error)
    return importable("cantstop.solve.kernels")  # the table loads without numba; a move would not


@register(
    "optimal",
    Level.EXPERT,
    "Perfect solitaire play from a solved table (cantstop solve); one-player games only.",
    "Optimal bot",
    fits_optimal,
)
def play_optimal(state: State, rng: random.Random, budget: Budget) -> Action:
    return optimal_action(state)
