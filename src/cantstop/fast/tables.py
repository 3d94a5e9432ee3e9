"""A variant as one integer array: what the kernels read instead of `Variant` and core `RollCatalog`.

Kernels take a handful of plain arrays, not records of many arrays: every array passed
into a compiled call costs reference counting, and a record of twenty made the hot calls
ten times slower. So the tables are packed into one int64 array `tab`: a header of sizes
and offsets (the `H_*` and `O_*` slots below), then the tables themselves.

Columns are indexed from 0 here (column number c is index c - 2). Every ordered roll
maps to its outcome (core's `RollCatalog.index`); each outcome owns a run of sum groups; each
subset of a group (a bit mask over its sums) names its action. A group's choices come from
a table (`choice_table`) indexed by its columns' capped status codes and the runners and
steps left: the kernels look them up rather than evaluate the subset rule after every roll.

Inside the kernels a choice's id is its place in core's option order (choices sorted by
columns), so a roll's choices kept sorted by id come out in core's order with no lookup;
ROLL and STOP keep their numbers. `O_NUMBER` and `O_INTERNAL` translate to and from the
one public numbering (`cantstop.core.actions.action_numbering`) at the boundary.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np

from cantstop.core.actions import action_numbering
from cantstop.core.choices import group_choices
from cantstop.core.state import ROLL, STOP, Action
from cantstop.core.variant import Variant, preset

NO_LIMIT = 1 << 30  # the step limit of a variant without one

# Header slots: scalars.
H_COLUMNS, H_RUNNERS, H_TO_WIN, H_FACES, H_SKIP, H_NO_STOP, H_STEP_LIMIT = range(7)
H_ROLL_ACTION, H_STOP_ACTION, H_ACTIONS, H_CHOICES, H_OUTCOMES, H_TOTAL, H_MOST, H_KINDS = range(7, 15)
# Header slots: where each table starts in `tab`.
O_HEIGHTS = 15  # [columns]
O_ROLL_INDEX = 16  # [faces**4]: ordered roll (base-`faces` digits) -> outcome
O_GROUP_START = 17  # [outcomes + 1]: the groups of outcome o are start[o] .. start[o+1] - 1
O_GROUP_COLS = 18  # [groups * 3]: the sums as column indices (H_MOST of them: 2, or 3 with a relay captain)
O_SUB_ACTION = 19  # [groups * 8]: kernel action id of the sums a bit mask picks
O_GROUP_TABLE = 20  # [groups]: where the group's `choice_table` starts, from O_CHOICE_TABLES
O_CHOICE_TABLES = 21  # the `choice_table` of each shape of group, one after another
O_ACTION_LEN = 22  # [actions]: steps of a choice (0 for ROLL and STOP)
O_ACTION_COLS = 23  # [actions * 3]: a choice's column indices, sorted
O_NUMBER = 24  # [actions]: the public number (the one numbering) of each kernel action id
O_WEIGHTS = 25  # [outcomes]: ordered rolls each outcome stands for
O_OUTCOMES = 26  # [outcomes * 4]: each outcome's canonical dice
O_INTERNAL = 27  # [actions]: the kernel action id of each public number
O_GROUP_KIND = 28  # [groups]: the group's kind: groups of the same sums, in any roll, are one kind
O_KIND_GROUP = 29  # [kinds]: a group of each kind
HEADER = 30


def shape_of(group: tuple[int, ...]) -> tuple[int, ...]:
    """Which of a sorted group's sums are equal: each sum as the rank of its value, (7, 7, 9) -> (0, 0, 1)."""
    values = sorted(set(group))
    return tuple(values.index(c) for c in group)


@lru_cache(maxsize=16)
def choice_table(shape: tuple[int, ...]) -> tuple[int, ...]:
    """The choices of every group of this shape in every position, as core's `group_choices` finds them.

    With n = len(shape) sums (a roll takes at most n steps), entry
    `((code_0 * 2 (n + 1) + code_1) ... * (n + 1) + runners left) * (n + 1) + steps left`,
    where a column's code is 2 * its room + 1 if a runner stands there, and the room, the
    runners and the steps left are capped at n (more cannot matter), has
    bit m set when subset mask m of the group is a choice (the lowest mask of equal
    subsets). Codes that give equal sums different statuses cannot occur and read 0.
    """
    n = len(shape)
    group = tuple(2 + k for k in shape)  # a stand-in group: its columns equal where the shape says
    table = []
    for codes in itertools.product(range(2 * (n + 1)), repeat=n):
        consistent = all(codes[i] == codes[shape.index(shape[i])] for i in range(n))
        room = [0] * (2 + n)
        has_runner = [False] * (2 + n)
        for c, code in zip(group, codes, strict=True):
            room[c], has_runner[c] = code >> 1, bool(code & 1)
        for left, steps in itertools.product(range(n + 1), repeat=2):
            found = group_choices(group, room, has_runner, left, steps) if consistent else set()
            bits = 0
            for mask in range(1 << n):
                sub = tuple(group[i] for i in range(n) if mask >> i & 1)
                if sub in found:
                    bits |= 1 << mask
                    found.discard(sub)  # the lowest mask only
            table.append(bits)
    return tuple(table)


def as_variant(variant: Variant | str) -> Variant:
    """A variant, or a preset's name or spec ('classic', 'solitaire+faces=3') read as one."""
    return preset(variant) if isinstance(variant, str) else variant


@lru_cache(maxsize=64)
def compile_variant(variant: Variant) -> np.ndarray:
    """The packed tables of `variant`. Every variant core accepts compiles; none is refused."""
    core = variant.catalog
    numbering = action_numbering(variant)
    choices = sorted(a for a in numbering if isinstance(a, tuple))  # kernel ids: core's order
    actions: list[Action] = [*choices, ROLL, STOP]
    kernel_id = {action: i for i, action in enumerate(actions)}
    public = {action: i for i, action in enumerate(numbering)}
    faces = variant.faces
    starts = [0]
    cols: list[int] = []
    subs: list[int] = []
    shapes: dict[tuple[int, ...], int] = {}  # shape -> where its table starts
    kinds: dict[tuple[int, ...], int] = {}  # sums -> kind
    group_kind: list[int] = []
    kind_group: list[int] = []
    choice_tables: list[int] = []
    group_table: list[int] = []
    for groups in core.groups:
        for group in groups:
            n = len(group)
            shape = shape_of(group)
            if shape not in shapes:
                shapes[shape] = len(choice_tables)
                choice_tables += choice_table(shape)
            if group not in kinds:
                kinds[group] = len(kind_group)
                kind_group.append(len(group_table))
            group_kind.append(kinds[group])
            group_table.append(shapes[shape])
            cols += [c - 2 for c in group] + [-1] * (3 - n)
            row = [-1] * 8
            for mask in range(1, 1 << n):
                row[mask] = kernel_id[tuple(sorted(group[i] for i in range(n) if mask >> i & 1))]
            subs += row
        starts.append(len(group_table))
    action_len = [len(a) if isinstance(a, tuple) else 0 for a in actions]
    action_cols: list[int] = []
    for a in actions:
        columns = [c - 2 for c in a] if isinstance(a, tuple) else []
        action_cols += columns + [-1] * (3 - len(columns))
    parts = {
        O_HEIGHTS: list(variant.heights),
        O_ROLL_INDEX: [core.index[d] for d in itertools.product(range(1, faces + 1), repeat=4)],
        O_GROUP_START: starts,
        O_GROUP_COLS: cols,
        O_SUB_ACTION: subs,
        O_GROUP_TABLE: group_table,
        O_CHOICE_TABLES: choice_tables,
        O_ACTION_LEN: action_len,
        O_ACTION_COLS: action_cols,
        O_NUMBER: [public[a] for a in actions],
        O_WEIGHTS: list(core.weights),
        O_OUTCOMES: [d for dice in core.outcomes for d in dice],
        O_INTERNAL: [kernel_id[a] for a in numbering],
        O_GROUP_KIND: group_kind,
        O_KIND_GROUP: kind_group,
    }
    header = [0] * HEADER
    header[H_COLUMNS] = len(variant.heights)
    header[H_RUNNERS] = variant.runners
    header[H_TO_WIN] = variant.to_win
    header[H_FACES] = faces
    header[H_SKIP] = int(variant.skip)
    header[H_NO_STOP] = int(variant.no_stop_on_occupied)
    header[H_STEP_LIMIT] = NO_LIMIT if variant.step_limit is None else variant.step_limit
    header[H_ROLL_ACTION] = kernel_id[ROLL]
    header[H_STOP_ACTION] = kernel_id[STOP]
    header[H_ACTIONS] = len(numbering)
    header[H_CHOICES] = len(choices)
    header[H_OUTCOMES] = len(core.outcomes)
    header[H_TOTAL] = core.total
    header[H_MOST] = core.most_steps
    header[H_KINDS] = len(kind_group)
    body: list[int] = []
    for slot, values in parts.items():
        header[slot] = HEADER + len(body)
        body += values
    tab = np.array(header + body, dtype=np.int64)
    tab.flags.writeable = False
    return tab
