"""Exact odds from the variant's table of rolls: no sampling, every roll weighed.

Used by the "should I stop?" advice, by bots taking expectations, and by
`cantstop odds`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction

from cantstop.core.choices import Choice
from cantstop.core.errors import ColumnError, PhaseError
from cantstop.core.state import Phase, State, make_state
from cantstop.core.variant import Variant


def percent(value: float, places: int = 0) -> str:
    """A chance in percent, but never '0%' or '100%' for what may or may not happen."""
    text = f"{100 * value:.{places}f}%"
    if value > 0 and float(text[:-1]) == 0:
        return f"<{10**-places:g}%"
    if value < 1 and float(text[:-1]) == 100:
        return f">{100 - 10**-places:g}%"
    return text


@dataclass(frozen=True)
class RollOdds:
    """What the next roll holds for the player to move."""

    usable: Fraction  # chance the roll fits somewhere (1 - bust chance)
    choices: dict[Choice, Fraction]  # chance each choice is offered
    expected_steps: Fraction  # steps the roll gives, taking the choice with most steps

    @property
    def bust(self) -> Fraction:
        return 1 - self.usable


def next_roll(state: State) -> RollOdds:
    """Odds of the next roll from `state` (its runners, claims and tops), exactly."""
    if state.phase not in (Phase.ROLL, Phase.DECIDE):
        raise PhaseError(f"odds are for a state about to roll, not one in {state.phase.name}")
    catalog = state.variant.catalog
    usable = 0
    steps = 0
    offered: dict[Choice, int] = {}
    for outcome, weight in enumerate(catalog.weights):
        options = state.outcome_choices(outcome)
        if options:
            usable += weight
            steps += weight * max(len(o) for o in options)
            for option in options:
                offered[option] = offered.get(option, 0) + weight
    total = catalog.total
    return RollOdds(
        Fraction(usable, total),
        {c: Fraction(w, total) for c, w in sorted(offered.items())},
        Fraction(steps, total),
    )


def bust_after(state: State) -> dict[Choice, Fraction]:
    """For each choice a roll offers, the chance that the next roll busts once it is taken."""
    if state.phase is not Phase.CHOOSE:
        raise PhaseError(f"choices are offered in the choose phase, not in {state.phase.name}")
    return {option: next_roll(state.play(option)).bust for option in state.options}


def chance_to_use(variant: Variant, columns: tuple[int, ...]) -> Fraction:
    """The chance a roll makes at least one of `columns` (the classic 6-7-8 figure: 91.98%)."""
    wanted = set(columns)
    unknown = wanted - set(variant.columns)
    if unknown:
        raise ColumnError(
            f"no column {', '.join(map(str, sorted(unknown)))} in {variant.name}; "
            f"columns are {variant.columns.start}..{variant.columns.stop - 1}"
        )
    catalog = variant.catalog
    hits = sum(
        w
        for w, groups in zip(catalog.weights, catalog.groups)
        if any(wanted.intersection(g) for g in groups)
    )
    return Fraction(hits, catalog.total)


def column_sets(variant: Variant, size: int) -> list[tuple[tuple[int, ...], Fraction]]:
    """Every set of `size` columns with its chance, best first."""
    table = [
        (cols, chance_to_use(variant, cols))
        for cols in itertools.combinations(variant.columns, size)
    ]
    return sorted(table, key=lambda item: (-item[1], item[0]))


def runners_state(variant: Variant, columns: tuple[int, ...]) -> State:
    """A lone player with runners on the bottom of `columns`, about to roll."""
    size = 2 + len(variant.heights)
    runners = tuple(1 if c in columns else 0 for c in range(size))
    return make_state(variant.with_options(min_players=1), ((0,) * size,), runners, 0, Phase.ROLL, None, len(columns))
