"""The optimal bot: exact play of one-player games on a board the solver has solved.

It reads the table `cantstop solve SPEC` wrote (see docs/solving.md) and plays the
policy that minimises the expected number of turns. On a variant without a complete
table, or in a game with rivals, it refuses with a message saying what to do.
"""

from __future__ import annotations

import random

from cantstop.bots.base import Budget, Level, register
from cantstop.core.state import Action, State
from cantstop.core.variant import Variant

_POLICIES: dict[Variant, object] = {}  # one loaded table per variant, for the process


def optimal_action(state: State) -> Action:
    from cantstop.solve.policy import Policy

    policy = _POLICIES.get(state.variant)
    if not isinstance(policy, Policy):
        policy = _POLICIES[state.variant] = Policy.load(state.variant)
    return policy.action(state)


@register(
    "optimal",
    Level.EXPERT,
    "Perfect solitaire play from a solved table (cantstop solve); one-player games only.",
    "Optimal bot",
)
def play_optimal(state: State, rng: random.Random, budget: Budget) -> Action:
    return optimal_action(state)
