"""The arrays the solver's kernels read, in named bundles (`NamedTuple`s numba passes as one value).

One bundle per concern: `TurnRules` (what a roll can do on a board: the same for every
turn), `PositionCodes` (how a position's index gives its turn), `Estimate` (a fitted
value of the anchors, alone), `TurnGraph` (one turn's in-turn states and their values),
`PassScratch` (a pass's work space) and `Here` (the in-turn state a pass is at). Plain
Python and numpy: building them needs no compiler.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    IntArray = npt.NDArray[np.int64]
    FloatArray = npt.NDArray[np.float64]
    BoolArray = npt.NDArray[np.bool_]


class TurnRules(NamedTuple):
    """What a roll can do on a board: its rolls grouped by what they offer, as flat arrays.

    With every runner placed only the runner columns matter; otherwise only the columns
    open at the position. For each such column mask (a *key*), rolls whose sum groups
    agree on those columns are merged into one class with their summed probability; a
    class with no group left can only bust.

    `runner_masks[j]`: every column mask with at most `runners` columns, by (size, mask),
    so a turn's successor always has a later mask; `mask_rank[mask]` is j or -1, and
    `mask_cols[j]` the columns of mask j, ascending, padded with -1. `key_slot[mask]`: the
    slot of a key (-1 if none); classes of slot s are `slot_start[s]:slot_start[s+1]`;
    the groups of class k are `class_start[k]:class_start[k+1]`, group g being of kind
    `group_kind[g]`. A *kind* is a group's sums (0-based columns, ascending): `kind_len[k]`
    of them in `kind_cols[k]`, its choices in every position at
    `choice_tables[kind_table[k]:]` (core's rule, tabled by `fast.tables.choice_table`).
    """

    runners: int
    step_limit: int  # most steps in one turn; -1: no limit
    runner_masks: IntArray
    mask_rank: IntArray
    mask_cols: IntArray
    key_slot: IntArray
    slot_start: IntArray
    class_weight: FloatArray
    class_start: IntArray
    group_kind: IntArray
    kind_len: IntArray
    kind_cols: IntArray
    kind_table: IntArray
    choice_tables: IntArray


class PositionCodes(NamedTuple):
    """Every position's turn, read from its index (`kernels.turn_of`).

    Column i of the position holds code `index // strides[i] % radix[i]`, which allows
    `code_room[i, code]` steps; a stop with d steps taken there adds
    `code_weight[i, code, d]` to the index of the position the stop hands on
    (`kernels.BLOCKED`: no stop).
    """

    strides: IntArray
    radix: IntArray
    code_room: IntArray
    code_weight: IntArray


class Estimate(NamedTuple):
    """A fitted value of the anchors alone (`kernels.estimated`): expected turns still needed.

    `worth[i, p]` is column i's worth at progress p (1 when claimed); the `to_win` best
    worths count fully and the rest by `spare`; `knots[0]` -> `knots[1]` maps that total
    to turns. Empty arrays mean no estimate (every value is read from a value file).
    """

    worth: FloatArray
    knots: FloatArray
    spare: float
    to_win: int


class TurnGraph(NamedTuple):
    """One turn: `room[c]`, the steps column c can take (0: closed); `offsets[j]`, where
    runner mask j's in-turn states start (`kernels.layout`); per in-turn state, what
    stopping there is worth (`stops`) and its value after its decision, a + b·x at a bust
    worth x (`best_a`, `best_b`)."""

    room: IntArray
    offsets: IntArray
    stops: FloatArray
    best_a: FloatArray
    best_b: FloatArray


class PassScratch(NamedTuple):
    """The work space of a turn pass (`kernels.pass_scratch`), reusable call after call.

    `todo[j]` says whether runner mask j's states are evaluated; the rest is derived before
    it is read: the steps taken per column, each column's stride in the current mask's
    numbering, and per sum-group kind the best option found for the state `seen` names.
    """

    taken: IntArray
    local_stride: IntArray
    seen: IntArray
    kind_found: BoolArray
    kind_a: FloatArray
    kind_b: FloatArray
    todo: BoolArray


class Here(NamedTuple):
    """The in-turn state a pass is at: its runner mask, its number, the runners and steps left."""

    mask: int
    number: int
    runners_left: int
    steps_left: int
