"""A variant as numeric tables: what the kernels read instead of `Variant` and core `Tables`.

Columns are indexed from 0 here (column number c is index c - 2). Every roll of the
variant's dice maps to its outcome (core's `Tables.index`); each outcome owns a run of
sum groups; each subset of a group (a bit mask over its sums) names its action number in
the one numbering (`cantstop.core.actions.action_numbering`).
"""

from __future__ import annotations

import itertools
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from cantstop.core.actions import action_numbering
from cantstop.core.state import ROLL, STOP
from cantstop.core.variant import Variant

NO_LIMIT = 1 << 30  # the step limit of a variant without one

I32 = np.int32


class FastTables(NamedTuple):
    """The numeric form of one variant (all integers; arrays are read-only in kernels)."""

    heights: np.ndarray  # int32[columns]
    runners: int
    to_win: int
    faces: int
    skip: bool
    no_stop_on_occupied: bool
    step_limit: int  # NO_LIMIT when the variant has none
    roll_index: np.ndarray  # int32[faces**4]: ordered roll (base-`faces` digits) -> outcome
    group_start: np.ndarray  # int32[outcomes + 1]: the groups of outcome o are start[o]..start[o+1]
    group_len: np.ndarray  # int32[groups]: 2 sums, or 3 with a relay captain
    group_cols: np.ndarray  # int32[groups, 3]: the sums as column indices
    sub_action: np.ndarray  # int32[groups, 8]: action number of the sums picked by a bit mask
    action_len: np.ndarray  # int32[actions]: steps of a choice (0 for ROLL and STOP)
    action_cols: np.ndarray  # int32[actions, 3]: a choice's column indices, sorted
    lex_order: np.ndarray  # int32[choices]: choice actions in core's option order (by columns)
    roll_action: int
    stop_action: int
    weights: np.ndarray  # float64[outcomes]: ordered rolls each outcome stands for
    total: int  # faces**4
    outcomes: np.ndarray  # int32[outcomes, 4]: each outcome's canonical dice


@lru_cache(maxsize=64)
def compile_variant(variant: Variant) -> FastTables:
    """The tables of `variant`. Every variant core accepts compiles; none is refused."""
    core = variant.tables
    numbering = action_numbering(variant)
    number = {action: i for i, action in enumerate(numbering)}
    faces = variant.faces
    roll_index = np.array(
        [core.index[dice] for dice in itertools.product(range(1, faces + 1), repeat=4)], dtype=I32
    )
    starts = [0]
    lengths: list[int] = []
    cols: list[list[int]] = []
    subs: list[list[int]] = []
    for groups in core.groups:
        for group in groups:
            n = len(group)
            lengths.append(n)
            cols.append([c - 2 for c in group] + [-1] * (3 - n))
            row = [-1] * 8
            for mask in range(1, 1 << n):
                row[mask] = number[tuple(sorted(group[i] for i in range(n) if mask >> i & 1))]
            subs.append(row)
        starts.append(len(lengths))
    choices = [a for a in numbering if isinstance(a, tuple)]
    action_len = np.zeros(len(numbering), dtype=I32)
    action_cols = np.full((len(numbering), 3), -1, dtype=I32)
    for i, choice in enumerate(choices):
        action_len[i] = len(choice)
        action_cols[i, : len(choice)] = [c - 2 for c in choice]
    lex = sorted(range(len(choices)), key=lambda i: choices[i])
    return FastTables(
        heights=np.array(variant.heights, dtype=I32),
        runners=variant.runners,
        to_win=variant.to_win,
        faces=faces,
        skip=variant.skip,
        no_stop_on_occupied=variant.no_stop_on_occupied,
        step_limit=NO_LIMIT if variant.step_limit is None else variant.step_limit,
        roll_index=roll_index,
        group_start=np.array(starts, dtype=I32),
        group_len=np.array(lengths, dtype=I32),
        group_cols=np.array(cols, dtype=I32).reshape(-1, 3),
        sub_action=np.array(subs, dtype=I32).reshape(-1, 8),
        action_len=action_len,
        action_cols=action_cols,
        lex_order=np.array(lex, dtype=I32),
        roll_action=number[ROLL],
        stop_action=number[STOP],
        weights=np.array(core.weights, dtype=np.float64),
        total=core.total,
        outcomes=np.array(core.outcomes, dtype=I32).reshape(-1, 4),
    )

