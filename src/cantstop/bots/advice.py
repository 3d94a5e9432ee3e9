"""Advice for a person: what a bot (the expert unless told) would do, with the odds behind it in a line."""

from __future__ import annotations

import random
from dataclasses import dataclass

from cantstop.bots.base import Budget, get_bot
from cantstop.bots.heuristic import stop_wins
from cantstop.core.choices import format_choice
from cantstop.core.errors import PhaseError
from cantstop.core.odds import next_roll, percent
from cantstop.core.state import STOP, Action, Phase, State


@dataclass(frozen=True)
class Advice:
    action: Action
    bust_chance: float  # of the next roll, with the runners the advice leaves on the board
    reason: str  # one line, e.g. "stop: 38% bust, 2 columns near the top"
    bot: str  # who was asked, as people read it: "Expert bot"


def advise(state: State, bot: str = "expert", seed: int = 0) -> Advice:
    """What `bot` would play here, and why in a line. By default the expert: it answers at
    once, needs no extra and plays every game (expert2 and rivals are stronger where they
    play, but compile first and fit fewer games).

    Raises `PhaseError` outside a choice or a roll-or-stop, `UnknownBotError` for a bot no one registered."""
    if state.phase not in (Phase.CHOOSE, Phase.DECIDE):
        raise PhaseError("advice is for a player choosing or deciding, not rolling or finished")
    info = get_bot(bot)
    action = info.play(state, random.Random(seed), Budget(seconds=0.5))
    after = state.play(action) if state.phase is Phase.CHOOSE else state
    bust = float(next_roll(after).bust) if after.phase is Phase.DECIDE else 0.0
    near = sum(
        1
        for c in after.runner_columns
        if after.variant.height(c) - after.runners[c] <= 1
    )
    odds = f"{percent(bust)} bust next roll"
    if near:
        odds += f", {near} column{'s' if near > 1 else ''} at or near the top"
    if state.phase is Phase.CHOOSE:
        verb = f"play {format_choice(action)}"  # type: ignore[arg-type]
    else:
        verb = "stop" if action is STOP else "roll again"
        if action is STOP and stop_wins(state):
            odds = f"it wins the game ({odds})"
    return Advice(action, bust, f"{verb}: {odds}", info.display)
