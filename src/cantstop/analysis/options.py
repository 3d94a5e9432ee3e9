"""A decision's options and what each is worth to the mover: the analysis's own numbers for
one position, asked before the decision is taken (the web's tutor) as well as after (a
game's analysis, `game.py`, values every decision through `option_values`).

A position waiting for a choice offers the roll's choices; one deciding offers rolling on
and, where the rules allow it, stopping. Each option's value is the mover's under best play
for the rest of the turn (`judges`): a chance in points, or alone the expected turns.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from cantstop.analysis.grades import Grade, grade
from cantstop.analysis.judges import AnalysisError, Judge, TurnView, Units, judge_for
from cantstop.core.choices import format_choice
from cantstop.core.notation import to_notation
from cantstop.core.state import ROLL, STOP, Phase, State


@dataclass(frozen=True)
class Option:
    """One option of a decision and the mover's value after it (points, or turns)."""

    action: str
    value: float


def shown(state: State, cost: float, units: Units) -> float:
    """A cost of the turn `state` is in (the kernel's: a chance to lose, or the turns still to
    come) as the mover's value: a chance in points, or the expected turns of the whole game."""
    if units is Units.CHANCE:
        return 100.0 * (1.0 - cost)
    return state.turn + 1 + cost


def option_values(state: State, view: TurnView, units: Units) -> list[tuple[str, float]]:
    """Each option of the decision `state` waits for, as (action, the mover's value after it),
    in the order the rules list them: a choice's value is the better of rolling on and
    stopping after it; rolling's the expectation over the next roll; stopping's the value
    of the position the stop hands on. `view` is the turn's (`Judge.turn`)."""
    if state.phase is Phase.CHOOSE:
        return [(format_choice(c), shown(state, view.cost(state.play(c)), units)) for c in state.options]
    options = [(str(ROLL), shown(state, view.roll_cost(state), units))]
    if state.may_stop():
        options.append((str(STOP), shown(state, view.stop_cost(state), units)))
    return options


def ranked(options: list[tuple[str, float]], units: Units) -> list[Option]:
    """The options best first: the highest chance, or alone the fewest turns."""
    order = sorted(options, key=lambda item: item[1], reverse=units is Units.CHANCE)
    return [Option(action, value) for action, value in order]


@dataclass(frozen=True)
class DecisionOptions:
    """The options of the decision a position waits for, best first, valued for its mover."""

    position: str  # notation
    seat: int
    turn: int  # from 1
    units: Units
    options: tuple[Option, ...]

    def loss(self, action: str) -> float:
        """What taking `action` gives up against the best option (0 for the best).

        Raises `AnalysisError` for an action that is no option here."""
        values = {o.action: o.value for o in self.options}
        if action not in values:
            raise AnalysisError(f"{action!r} is not an option here: the options are {', '.join(values)}")
        return abs(self.options[0].value - values[action])

    def grade(self, action: str) -> Grade:
        """The grade `action` would earn (forced where it is the only option)."""
        return Grade.FORCED if len(self.options) == 1 else grade(self.loss(action), self.units)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["units"] = self.units.value
        return data


def decision_options(state: State, judge: Judge | None = None) -> DecisionOptions:
    """The options of the decision `state` waits for (a choice, or rolling on against
    stopping), each valued as a game's analysis values it.

    Raises `AnalysisError` for a position with no decision to take (about to roll, or over)
    and where no value model fits the game (see `judge_for`).
    """
    if state.phase not in (Phase.CHOOSE, Phase.DECIDE):
        what = "the game is over" if state.phase is Phase.OVER else "the dice are still to be rolled"
        raise AnalysisError(f"no decision to take: {what} (a decision is a choice after a roll, or rolling on against stopping)")
    judge = judge or judge_for(state.variant, state.num_players)
    values = option_values(state, judge.turn(state), judge.units)
    return DecisionOptions(to_notation(state), state.seat, state.turn + 1, judge.units, tuple(ranked(values, judge.units)))
