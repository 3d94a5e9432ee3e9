"""What a position is worth to its mover: the value models an analysis stands on.

An analysis needs, for every point of a turn, the mover's value under best play for the
rest of the turn against what the positions between turns are worth. Every model here
gives that through the solver's turn kernel, which optimises a whole turn exactly; they
differ in the worth of the positions between turns:

- `exact`: a value file `cantstop solve` wrote (one player: expected turns; two players:
  the mover's chance to win). Every value is then the game's own.
- `learned`: the rivals bot's chance to win learned by self-play, for two to four players.
  The turn is exact, the positions it ends in are valued by the model; where the next
  turn starts, its exact value and the model's differ a little: the *correction*.
- `fitted`: alone, expected turns from `expert2`'s fitted curve, each turn exact.

Values are costs, as the kernel minimises them: the mover's chance to lose, or alone the
expected turns still to come after the turn under way. `Judge.turn` hands out the turn a
state is in; `TurnView` reads it by state. Everything compiled needs the `fast` extra.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from cantstop.core.errors import CantStopError
from cantstop.core.state import State
from cantstop.core.variant import Variant
from cantstop.extras import missing_extra

if TYPE_CHECKING:
    from cantstop.bots.rival_turns import Rivals
    from cantstop.solve.bundles import TurnGraph, TurnRules
    from cantstop.solve.policy import Policy


class AnalysisError(CantStopError):
    """A game or position that cannot be analysed: says what was wrong and what can be."""


class Units(StrEnum):
    CHANCE = "chance"  # the mover's chance to win, shown in points (0 to 100)
    TURNS = "turns"  # alone: the expected number of turns the game takes


class Method(StrEnum):
    EXACT = "exact"
    LEARNED = "learned"
    FITTED = "fitted"


DESCRIPTIONS = {
    Method.EXACT: "exact values of the solved board (cantstop solve)",
    Method.LEARNED: "the rivals bot's learned chance to win, each turn solved exactly against it",
    Method.FITTED: "expected turns from the expert II bot's fitted curve, each turn solved exactly",
}


@dataclass(frozen=True)
class TurnView:
    """One turn's values, read by state: what stopping is worth, what a state is worth after
    its decision, what rolling is worth, what a bust is worth (`x`). `locate` maps a state
    of the turn to the kernel's in-turn state number; the others read by that number."""

    x: float
    locate: Callable[[State], int]
    stops: Callable[[int], float]
    after: Callable[[int], float]
    rolling: Callable[[int], float]

    def stop_cost(self, state: State) -> float:
        return self.stops(self.locate(state))

    def cost(self, state: State) -> float:
        """The value of a DECIDE state (after a choice) once its decision is taken at best."""
        return self.after(self.locate(state))

    def roll_cost(self, state: State) -> float:
        """The value of rolling from `state` (about to roll, or deciding whether to)."""
        return self.rolling(self.locate(state))


def _rolling(graph: TurnGraph, x: float, rules: TurnRules) -> Callable[[int], float]:
    """What rolling is worth in each in-turn state of a turn, asked of the kernel one state at a time."""
    from cantstop.solve import kernels

    scratch = kernels.pass_scratch(len(graph.room), rules)  # its own: a bot may be working in the turn's

    def rolling(number: int) -> float:
        return float(kernels.roll_value(graph, x, rules, number, scratch))

    return rolling


class Judge(ABC):
    """A value model for one kind of game (variant, player count)."""

    method: Method
    units: Units
    variant: Variant
    players: int

    @abstractmethod
    def turn(self, state: State) -> TurnView:
        """The values of the turn `state` is in (any phase of it but OVER)."""

    def between(self, state: State) -> tuple[float, ...] | None:
        """Every seat's chance to win at a turn's start as the model values it (learned
        models only; None when the model is exact or a player is alone)."""
        return None

    @property
    def description(self) -> str:
        return DESCRIPTIONS[self.method]


def _steps_taken(state: State) -> list[int]:
    """Steps each column's runner has climbed this turn (0: no runner), as the kernels count them."""
    own = state.pieces[state.seat]
    return [r - p if r else 0 for r, p in zip(state.runners[2:], own[2:], strict=True)]


class PolicyJudge(Judge):
    """Exact (a value file) or fitted (alone, expert2's curve): the solver's `Policy`."""

    def __init__(self, policy: Policy, method: Method, players: int) -> None:
        self.policy = policy
        self.method = method
        self.variant = policy.board.variant
        self.players = players
        self.units = Units.TURNS if players == 1 else Units.CHANCE

    def turn(self, state: State) -> TurnView:
        index, _ = self.policy.locate(state)
        turn = self.policy.settled(index)
        rank = self.policy.rules.mask_rank

        def locate(s: State) -> int:
            return turn.number(self.policy.locate(s)[1], rank)

        rolling = _rolling(turn.graph, turn.x, self.policy.rules)
        return TurnView(turn.x, locate, lambda n: float(turn.stops[n]), turn.after, rolling)

    def anchor(self, state: State) -> float:
        """The table's value of the position a turn starts from (exact only): expected turns
        alone, the mover's chance to win with a rival."""
        index, _ = self.policy.locate(state)
        assert self.policy.value_file is not None
        return self.policy.value_file.value(index)


class LearnedJudge(Judge):
    """Two to four players: the rivals bot's turns against its learned chance to win."""

    method = Method.LEARNED
    units = Units.CHANCE

    def __init__(self, rivals: Rivals) -> None:
        self.rivals = rivals
        self.variant = rivals.variant
        self.players = rivals.num_players

    def turn(self, state: State) -> TurnView:
        lazy = self.rivals.turn(state)

        def locate(s: State) -> int:
            return lazy.number(_steps_taken(s))

        rolling = _rolling(lazy.graph, lazy.x, self.rivals.rules)
        return TurnView(lazy.x, locate, lambda n: float(lazy.stops[n]), lazy.after, rolling)

    def between(self, state: State) -> tuple[float, ...]:
        chances = self.rivals.chances(state)
        return tuple(float(c) for c in chances)


def judge_for(variant: Variant, players: int) -> Judge:
    """The value model an analysis of this kind of game uses: an exact value file where this
    machine has one, else the learned (two or more players) or fitted (alone) value.

    Raises `AnalysisError` naming why none fits (and what would), e.g. a board no model
    has learned, or the `fast` extra missing.
    """
    try:
        import cantstop.solve.kernels  # noqa: F401
    except ImportError as error:  # numpy or numba missing
        raise AnalysisError(str(missing_extra("fast", "the analysis", error))) from None
    from cantstop.solve.duo import board_for
    from cantstop.solve.errors import SolveError
    from cantstop.solve.value_file import default_path

    if players <= 2:
        try:
            path = default_path(board_for(variant, players))
        except SolveError:
            path = None  # a board the solver does not take: the models below
        if path is not None and path.exists():
            return _exact(variant, players, path)
    return _model(variant, players)


@cache
def _exact(variant: Variant, players: int, path: Path) -> Judge:
    from cantstop.solve.errors import SolveError
    from cantstop.solve.policy import Policy

    try:
        return PolicyJudge(Policy.load(variant, path, players), Method.EXACT, players)
    except SolveError as error:  # partly solved, damaged, another board's: say so, never guess
        raise AnalysisError(f"the value file of {variant.name} cannot be used: {error}") from None


@cache
def _model(variant: Variant, players: int) -> Judge:
    if players == 1:
        from cantstop.bots.expert2 import fitted_policy

        policy = fitted_policy(variant)
        if policy is None:
            raise AnalysisError(
                f"no value for {variant.name} alone: the board is not solved here and has no "
                "fitted curve (solve it with `cantstop solve SPEC`, or fit one with examples/fit_expert2.py)"
            )
        return PolicyJudge(policy, Method.FITTED, 1)
    from cantstop.bots.rivals import fits_rivals, rivals_for

    why = fits_rivals(variant, players)
    if why is not None:
        raise AnalysisError(f"no value for {variant.name} with {players} players: {why}")
    return LearnedJudge(rivals_for(variant, players))
