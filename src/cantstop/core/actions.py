"""One fixed numbering of every action a variant can offer, for the whole project.

Learners, masks and the compiled fast path need one integer range instead of the
engine's choices (sorted tuples of columns) and decisions. `action_numbering`
numbers every choice any roll of the variant can ever offer, then ROLL and STOP:

- choices are the non-empty sub-multisets of the sum groups in the variant's dice
  tables (exactly the choices some position can offer, no more), ordered by size and
  then by columns: `(2,)`, ..., `(12,)`, `(2, 2)`, `(2, 3)`, ... With pairs that is
  every single column and every pair of columns, doubles such as `(7, 7)` included:
  77 choices for classic. The relay captain adds the triples its captains can make.
- ROLL is number `n - 2`, STOP number `n - 1`.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

from cantstop.core.state import ROLL, STOP, Action
from cantstop.core.variant import Variant


@lru_cache(maxsize=64)
def action_numbering(variant: Variant) -> tuple[Action, ...]:
    """Every action of `variant` in its fixed order: `numbering[i]` is action number i."""
    choices: set[tuple[int, ...]] = set()
    for groups in variant.catalog.groups:
        for group in groups:
            for size in range(1, len(group) + 1):
                choices.update(tuple(sorted(sub)) for sub in itertools.combinations(group, size))
    return (*sorted(choices, key=lambda c: (len(c), c)), ROLL, STOP)
