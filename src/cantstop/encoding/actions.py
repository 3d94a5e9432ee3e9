"""A fixed, numbered action space per variant, and the masks of the legal actions.

The numbering is the project's one numbering, `cantstop.core.actions.action_numbering`
(every choice a roll of the variant can offer, by size then columns; then ROLL and
STOP last): 77 choices for classic, so ROLL is 77 and STOP 78.

Choice and decision phases share the one space; a mask marks what is legal now.
Masks are `numpy.int8` arrays of 0 and 1, the form `gymnasium.spaces.Discrete.sample`
takes.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from cantstop.core.actions import action_numbering
from cantstop.core.errors import IllegalActionError
from cantstop.core.state import ROLL, STOP, Action, Phase, State, describe_action
from cantstop.core.variant import Variant, preset

Mask = NDArray[np.int8]


@dataclass(frozen=True)
class ActionIndex:
    """The numbered actions of one variant: `actions[i]` is the engine action of index i."""

    variant: Variant
    actions: tuple[Action, ...]
    index: dict[Action, int] = field(repr=False, compare=False)

    @property
    def size(self) -> int:
        return len(self.actions)

    @property
    def roll(self) -> int:
        return self.index[ROLL]

    @property
    def stop(self) -> int:
        return self.index[STOP]

    def to_index(self, action: Action) -> int:
        """The index of an engine action; a clear error for one the variant never offers."""
        try:
            return self.index[action]
        except (KeyError, TypeError):
            raise IllegalActionError(
                f"{describe_action(action)} is no action of {self.variant.name}: actions are "
                f"choices of up to {self.variant.catalog.most_steps} of its columns, roll and stop"
            ) from None

    def in_space(self, index: object) -> bool:
        """Is `index` an action number of this numbering (legal or not)?"""
        try:
            self.to_action(index)
        except IllegalActionError:
            return False
        return True

    def to_action(self, index: object) -> Action:
        """The engine action of an index (any integer, numpy ones too; no bool, float or array)."""
        try:
            if isinstance(index, bool | np.bool_):
                raise TypeError
            i = operator.index(index)  # type: ignore[arg-type]
        except TypeError:
            what = repr(index)
            if isinstance(index, np.ndarray):
                what = f"an array of shape {index.shape} and dtype {index.dtype}"
            raise IllegalActionError(
                f"an action is one integer 0..{self.size - 1} (a scalar), not {what}"
            ) from None
        if not 0 <= i < self.size:
            raise IllegalActionError(f"action {i} is out of range: actions are 0..{self.size - 1}")
        return self.actions[i]

    def legal(self, state: State) -> tuple[int, ...]:
        """The indices of the legal actions of `state`, ascending."""
        index = self.index
        return tuple(sorted(index[a] for a in state.legal_actions()))

    def mask(self, state: State) -> Mask:
        """1 for each legal action of `state`, 0 elsewhere (all 0 at a chance node or the end)."""
        mask = np.zeros(self.size, dtype=np.int8)
        index = self.index
        for action in state.legal_actions():
            mask[index[action]] = 1
        return mask

    def describe(self, indices: tuple[int, ...]) -> str:
        """'12 (7+7), 77 (roll)': indices with the actions they stand for."""
        return ", ".join(f"{i} ({describe_action(self.actions[i])})" for i in indices) or "none"

    def decode(self, index: object, state: State) -> Action:
        """The engine action of `index` if it is legal in `state`; otherwise an error naming the legal ones."""
        if state.phase is Phase.OVER:
            raise IllegalActionError(f"action {index!r} is not legal: the game is over; reset first")
        try:
            action = self.to_action(index)
        except IllegalActionError as error:
            raise IllegalActionError(f"{error}; legal now: {self.describe(self.legal(state))}") from None
        if action not in state.legal_actions():
            raise IllegalActionError(
                f"action {index} ({describe_action(action)}) is not legal in the "
                f"{state.phase.name} phase; legal now: {self.describe(self.legal(state))}"
            )
        return action


def action_index(variant: Variant | str) -> ActionIndex:
    """The numbered actions of `variant` (a `Variant` or a spec such as 'turtles-relay')."""
    return _index_of(preset(variant) if isinstance(variant, str) else variant)


@lru_cache(maxsize=64)
def _index_of(v: Variant) -> ActionIndex:
    actions = action_numbering(v)
    return ActionIndex(v, actions, {a: i for i, a in enumerate(actions)})
