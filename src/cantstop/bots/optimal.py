"""The optimal bot: exact play of one- and two-player games on a board the solver has solved.

It reads the table `cantstop solve SPEC` (alone) or `cantstop solve SPEC --players 2`
wrote (see docs/solving.md) and plays its policy: the fewest expected turns alone,
the greatest chance to win against one rival. On a variant without a complete table,
or with three or more players, it refuses with a message saying what to do.
"""

from __future__ import annotations

import random

from cantstop.bots.base import Budget, Level, Need, needs_fast, register, rehearse
from cantstop.core.state import Action, State
from cantstop.core.variant import Variant
from cantstop.solve.errors import SolveError

_POLICIES: dict[tuple[Variant, int], object] = {}  # one loaded table per variant and player count


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


def fits_optimal(variant: Variant, num_players: int) -> str | None:
    """A one- or two-player game on a board solved for that many players (the table is loaded now, once)."""
    if num_players > 2:
        return "it plays one- and two-player games only (the solver solves no more)"
    try:
        _policy(variant, num_players)
    except (SolveError, ImportError) as error:  # not solved, not solvable, or no numba
        return str(error)
    return needs_fast("cantstop.solve.kernels")  # the table loads without numba; a move would not


@register(
    "optimal",
    Level.EXPERT,
    "Perfect play from a solved table (cantstop solve); one- and two-player games.",
    "Optimal bot",
    fits_optimal,
    prepare=rehearse,
    needs=(Need.FAST, Need.SOLVED),
)
def play_optimal(state: State, rng: random.Random, budget: Budget) -> Action:
    return optimal_action(state)
