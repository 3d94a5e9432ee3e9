"""What the next roll can bring: every distinct roll of the variant with its best choice.

Shared by the analysis (a roll's luck is what it brought against the expectation over
all rolls) and the roll map (the rolls grouped by what they offer). The values are a
turn's costs (`judges.TurnView`): the lower the better for the mover.
"""

from __future__ import annotations

from dataclasses import dataclass

from cantstop.analysis.judges import TurnView
from cantstop.core.choices import Choice
from cantstop.core.state import ROLL, Phase, State


@dataclass(frozen=True)
class Outcome:
    """One distinct roll: its dice, how many of the faces⁴ ordered rolls it stands for, its
    choices with their costs (empty: it busts), and the cost it leads to at best."""

    dice: tuple[int, ...]
    weight: int
    choices: tuple[tuple[Choice, float], ...]
    cost: float

    @property
    def best(self) -> Choice | None:
        return min(self.choices, key=lambda item: item[1])[0] if self.choices else None


def before_roll(state: State) -> State:
    """The state about to roll: a DECIDE state rolls on, a ROLL state is one already."""
    if state.phase is Phase.DECIDE:
        return state.play(ROLL)
    if state.phase is not Phase.ROLL:
        raise ValueError(f"a roll is due in the ROLL phase (or after deciding to roll), not {state.phase.name}")
    return state


class Rolls:
    """The rolls from one state about to roll, valued against one turn (computed once)."""

    def __init__(self, state: State, view: TurnView) -> None:
        self.state = before_roll(state)
        self.view = view
        catalog = self.state.variant.catalog
        costs: dict[Choice, float] = {}  # a choice leads to the same state whatever roll offered it
        outcomes = []
        total = 0.0
        for index, (dice, weight) in enumerate(zip(catalog.outcomes, catalog.weights, strict=True)):
            options = self.state.outcome_choices(index)
            valued = []
            for choice in options:
                cost = costs.get(choice)
                if cost is None:
                    cost = costs[choice] = view.cost(self.state.roll(dice).play(choice))
                valued.append((choice, cost))
            best = min(cost for _, cost in valued) if valued else view.x
            outcomes.append(Outcome(dice, weight, tuple(valued), best))
            total += weight * best
        self.outcomes = tuple(outcomes)
        self.total = catalog.total
        self.expected = total / catalog.total  # the cost of rolling, before the dice are seen

    def of(self, dice: tuple[int, ...]) -> Outcome:
        """The outcome of the roll `dice` (in any order)."""
        return self.outcomes[self.state.variant.catalog.index[dice]]
