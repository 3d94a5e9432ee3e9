"""The roll map: what the next roll can bring, from a position about to roll.

Every roll of the variant's four dice (1,296 on six faces) grouped by what it offers:
bust, or one set of choices. Each group has its chance and the mover's value after its
best choice; the map also gives the bust's chance and the value of rolling against that
of stopping now (GNU Backgammon's "temperature map", for a game where the question is
whether to roll at all).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from cantstop.analysis.judges import AnalysisError, Judge, Units, judge_for
from cantstop.analysis.outcomes import Rolls, before_roll
from cantstop.core.choices import format_choice
from cantstop.core.notation import to_notation
from cantstop.core.state import Phase, State


@dataclass(frozen=True)
class RollGroup:
    """The rolls that offer the same choices (none: they bust)."""

    choices: tuple[str, ...]
    chance: float  # of the next roll being one of them, 0..1
    rolls: int  # how many of the faces⁴ ordered rolls
    best: str | None  # the choice to play (None: a bust)
    value: float  # the mover's value after it (points, or expected turns)
    example: str  # one roll of the group, its dice ascending


@dataclass(frozen=True)
class RollMap:
    position: str
    units: Units
    groups: tuple[RollGroup, ...]  # the likeliest first
    bust: float  # the chance that the roll busts, 0..1
    roll: float  # the mover's value of rolling (the expectation over every roll)
    stop: float | None  # of stopping now; None where stopping is not allowed (a turn's start)

    @property
    def advice(self) -> str | None:
        """"roll on" or "stop", whichever is worth more to the mover (stopping on a tie); None
        where stopping is not allowed."""
        if self.stop is None:
            return None
        better = self.roll > self.stop if self.units is Units.CHANCE else self.roll < self.stop
        return "roll on" if better else "stop"

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["units"] = self.units.value
        data["advice"] = self.advice
        return data


def not_rolling(state: State) -> str | None:
    """Why `state` has no roll map (its dice are rolled, or the game is over); None when it has one.

    A cheap check on the position alone: a caller can ask it before the value model is loaded.
    """
    if state.phase is Phase.CHOOSE:
        return "the dice are already rolled: a roll map is for a position about to roll or deciding to"
    if state.phase is Phase.OVER:
        return "the game is over: there is no next roll"
    return None


def roll_map(state: State, judge: Judge | None = None) -> RollMap:
    """The roll map of a position about to roll (ROLL) or deciding whether to (DECIDE).

    Raises `AnalysisError` for a position whose dice are already rolled or whose game is
    over, and where no value model fits the game (see `judge_for`).
    """
    why = not_rolling(state)
    if why is not None:
        raise AnalysisError(why)
    judge = judge or judge_for(state.variant, state.num_players)
    view = judge.turn(state)
    rolls = Rolls(state, view)
    rolling = before_roll(state)

    def shown(cost: float) -> float:
        if judge.units is Units.CHANCE:
            return 100.0 * (1.0 - cost)
        return rolling.turn + 1 + cost

    grouped: dict[tuple[str, ...], list[Any]] = {}
    for outcome in rolls.outcomes:
        key = tuple(format_choice(c) for c, _ in outcome.choices)
        entry = grouped.setdefault(key, [0, outcome])
        entry[0] += outcome.weight
    groups = []
    for key, (weight, outcome) in grouped.items():
        best = outcome.best
        groups.append(
            RollGroup(
                key, weight / rolls.total, weight, None if best is None else format_choice(best),
                shown(outcome.cost), "".join(map(str, sorted(outcome.dice))),
            )
        )
    groups.sort(key=lambda g: (-g.rolls, g.choices))
    bust = sum(g.chance for g in groups if not g.choices)
    stop = None
    if state.phase is Phase.DECIDE and state.may_stop():
        stop = shown(view.stop_cost(state))
    return RollMap(to_notation(state), judge.units, tuple(groups), bust, shown(rolls.expected), stop)
