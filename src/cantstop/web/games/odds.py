"""The odds and advice a player may ask for in a game in progress."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from cantstop.bots import get_bot
from cantstop.bots.advice import advise
from cantstop.core.errors import UnknownBotError
from cantstop.core.notation import action_json
from cantstop.core.odds import bust_after, next_roll
from cantstop.core.state import Phase, State


def percent(x: Fraction) -> float:
    return round(float(x) * 100, 2)


def odds_json(state: State) -> dict[str, Any]:
    """Bust chance of the next roll, each column's chance, each choice's risk, and advice."""
    result: dict[str, Any] = {"phase": state.phase.name.lower()}
    if state.phase in (Phase.ROLL, Phase.DECIDE):
        nxt = next_roll(state)
        result["bust"] = percent(nxt.bust)
        result["columns"] = {
            str(c): percent(sum((p for choice, p in nxt.choices.items() if c in choice), Fraction(0)))
            for c in state.variant.columns
        }
        result["expected_steps"] = round(float(nxt.expected_steps), 3)
    if state.phase is Phase.CHOOSE:
        result["choices"] = [
            {"choice": list(option), "bust_after": percent(bust)} for option, bust in bust_after(state).items()
        ]
    if state.phase in (Phase.CHOOSE, Phase.DECIDE):
        for level in ("expert", "hard", "medium", "easy"):
            try:
                advice = advise(state, get_bot(level).name)
            except UnknownBotError:
                continue
            result["advice"] = {"bot": get_bot(level).name, "action": action_json(advice.action), "reason": advice.reason}
            break
    return result
