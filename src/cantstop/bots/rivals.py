"""The rivals bot: exact turns against a learned chance to win, for two to four players.

Each turn is optimised exactly by the solver's turn kernel (every roll, every choice,
roll or stop) against a value learned by self-play: every player's chance to win the
positions a turn can end in (`learned_value`, `rival_turns`). `examples/train_rivals.py`
fits the value of each board it plays (the boards and player counts `weights/rivals.npz`
holds, listed in docs/bots.md; any other game is refused with the reason); the weights are
read with numpy alone, while the turn kernel needs the `fast` extra (numba). A board's value
serves the `skip` and `no_stop_on_occupied` options too: the turn kernel plays their rules
exactly. Alone, it plays as `expert2`.

`rivals_for(variant, players)` is the turn optimiser of a game, for an analysis to read
(`rival_turns.Rivals`: every seat's chance to win, a turn's in-turn values).
"""

from __future__ import annotations

import random
from functools import cache
from typing import TYPE_CHECKING

from cantstop.bots.base import Budget, Level, Need, needs_fast, register, rehearse
from cantstop.bots.expert2 import fits_expert2, play_expert2
from cantstop.core.errors import BotUnfitError
from cantstop.core.state import Action, State
from cantstop.core.variant import Variant

if TYPE_CHECKING:
    from cantstop.bots.rival_turns import Rivals


def rivals_for(variant: Variant, players: int) -> Rivals:
    """The rivals bot's turn optimiser of `players` players (those still playing) on `variant`.

    Raises BotUnfitError with the reason when the bot has no value for that game (`fits_rivals`).
    """
    why = fits_rivals(variant, players) if players > 1 else "it needs two players or more (alone it plays as expert2)"
    if why is not None:
        raise BotUnfitError(f"the rivals bot has no value for {variant.name} with {players} players: {why}")
    return _rivals(variant, players)


@cache
def _rivals(variant: Variant, num_players: int) -> Rivals:
    from cantstop.bots.learned_value import load_models
    from cantstop.bots.rival_turns import Rivals
    from cantstop.solve.board import solver_key

    return Rivals(variant, num_players, load_models()[solver_key(variant)])


@cache  # asked at every decision: the answer is a function of the game's kind
def fits_rivals(variant: Variant, num_players: int) -> str | None:
    """A board it has learned (any skip / no-stop option), with the player counts it learned; alone, as expert2."""
    if num_players == 1:
        return fits_expert2(variant, num_players)
    missing = needs_fast("cantstop.solve.kernels")  # the turn kernel; the value is numpy's
    if missing is not None:
        return missing
    from cantstop.bots.learned_value import load_models
    from cantstop.solve.board import solver_key

    models = load_models()
    model = models.get(solver_key(variant))
    if model is None:
        boards = ", ".join(sorted(board_name(key) for key in models))
        return f"its value was learned on these boards only (with or without skip and no_stop_on_occupied): {boards}"
    if num_players not in model.players:
        counts = ", ".join(map(str, model.players))
        return f"on this board its value was learned for {counts} players, not {num_players}"
    return None


def board_name(key: str) -> str:
    """A value's board as players write it: its solver key without the one-player fields, classic for solitaire."""
    name = key.replace("+min_players=1", "").replace("+max_players=1", "")
    return "classic" + name.removeprefix("solitaire") if name.startswith("solitaire") else name


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
    playing = state.num_players - len(state.out)  # a seat that left is no longer a rival
    why = fits_rivals(state.variant, playing)
    if why is not None:
        raise ValueError(why)
    return _rivals(state.variant, playing).action(state)
