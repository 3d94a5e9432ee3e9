"""The rivals bot: exact turns against a learned chance to win, for two to four players.

Each turn is optimised exactly by the solver's turn kernel (every roll, every choice,
roll or stop) against a value learned by self-play: every player's chance to win the
positions a turn can end in (`learned_value`, `rival_turns`). `examples/train_rivals.py`
fits the value of each board it plays (the classic board and small solved ones); the
weights ship in `weights/rivals.npz` and are read with numpy alone, while the turn
kernel needs the `fast` extra (numba). Alone, it plays as `expert2`.
"""

from __future__ import annotations

import random
from functools import cache
from typing import TYPE_CHECKING

from cantstop.bots.base import Budget, Level, Need, needs_fast, register, rehearse
from cantstop.bots.expert2 import fits_expert2, play_expert2
from cantstop.core.state import Action, State
from cantstop.core.variant import Variant

if TYPE_CHECKING:
    from cantstop.bots.rival_turns import Rivals

@cache
def rivals_for(variant: Variant, num_players: int) -> Rivals:
    from cantstop.bots.learned_value import load_models
    from cantstop.bots.rival_turns import Rivals
    from cantstop.solve.board import solver_key

    return Rivals(variant, num_players, load_models()[solver_key(variant)])


@cache  # asked at every decision: the answer is a function of the game's kind
def fits_rivals(variant: Variant, num_players: int) -> str | None:
    """A board it has learned, with the standard rules and the player counts it learned; alone, as expert2."""
    if num_players == 1:
        return fits_expert2(variant, num_players)
    if variant.skip or variant.no_stop_on_occupied:
        return "it knows the standard rules only (not skip, not no_stop_on_occupied)"
    missing = needs_fast("cantstop.solve.kernels")  # the turn kernel; the value is numpy's
    if missing is not None:
        return missing
    from cantstop.bots.learned_value import load_models
    from cantstop.solve.board import solver_key

    models = load_models()
    model = models.get(solver_key(variant))
    if model is None:
        boards = ", ".join(sorted(key.replace("solitaire", "classic", 1) for key in models))
        return f"its value was learned on these boards only (with their rules and to_win): {boards}"
    if num_players not in model.players:
        counts = ", ".join(map(str, model.players))
        return f"on this board its value was learned for {counts} players, not {num_players}"
    return None


@register(
    "rivals",
    Level.EXPERT,
    "Exact turns against a chance to win learned by self-play (2-4 players); alone, as expert2.",
    "Rivals bot",
    fits_rivals,
    prepare=rehearse,
    needs=(Need.FAST,),
)
def play_rivals(state: State, rng: random.Random, budget: Budget) -> Action:
    if state.num_players == 1:
        return play_expert2(state, rng, budget)
    why = fits_rivals(state.variant, state.num_players)
    if why is not None:
        raise ValueError(why)
    return rivals_for(state.variant, state.num_players).action(state)
