"""How a roll makes each of its choices, for people: which dice pair up and what they add to.

The engine's choices are outcomes (columns advanced), found over every pairing (or relay
captain) and every value of a wild die. A player wants to see one way the dice make a
choice; this module finds one with the engine's own rule (`group_choices`), so it can never
explain a choice the engine does not offer, nor miss one it does.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from cantstop.core.choices import Choice, group_choices
from cantstop.core.state import Phase, State
from cantstop.core.variant import Pairing

# The three ways to split four dice into two pairs, as dice positions.
PAIRS = (((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2)))
# The relay race: one captain die added to each of the three others.
CAPTAINS = tuple(tuple((c, o) for o in range(4) if o != c) for c in range(4))


@dataclass(frozen=True)
class Way:
    """One way a roll makes a choice: dice positions pairs, their sums, which sums are played,
    the value each die counts as (a wild die's chosen value), and the captain in a relay."""

    pairs: tuple[tuple[int, int], ...]
    sums: tuple[int, ...]
    used: tuple[bool, ...]
    values: tuple[int, ...]
    captain: int | None = None

    def json(self) -> dict[str, object]:
        return {
            "pairs": [list(p) for p in self.pairs],
            "sums": list(self.sums),
            "used": list(self.used),
            "values": list(self.values),
            "captain": self.captain,
        }


def roll_ways(state: State) -> list[Way]:
    """One way for each of the state's choices, in the order of `state.options`."""
    if state.phase is not Phase.CHOOSE or state.dice is None:
        return []
    v = state.variant
    dice = state.dice
    size = 2 + len(v.heights)
    room = [0, 0, *(state.room(c) for c in range(2, size))]
    has_runner = [bool(r) for r in state.runners]
    steps_left = 3 if v.step_limit is None else v.step_limit - state.steps
    captain = v.pairing is Pairing.CAPTAIN
    groupings = CAPTAINS if captain else PAIRS
    # A wild die may count as any face; its shown face first, so plain readings come first.
    options = [
        (d, *(x for x in range(1, v.faces + 1) if x != d)) if i < v.wild_dice and d == v.wild_face else (d,)
        for i, d in enumerate(dice)
    ]
    found: dict[Choice, Way] = {}
    for values in itertools.product(*options):
        for number, grouping in enumerate(groupings):
            sums = tuple(values[a] + values[b] for a, b in grouping)
            for choice in group_choices(tuple(sorted(sums)), room, has_runner, state.runners_left, steps_left):
                if choice not in found:
                    found[choice] = Way(grouping, sums, played(sums, choice), values, number if captain else None)
        if len(found) == len(state.options):
            break
    return [found[choice] for choice in state.options]


def played(sums: tuple[int, ...], choice: Choice) -> tuple[bool, ...]:
    """Which of a grouping's sums a choice plays (a sum counted as often as the choice has it)."""
    left = list(choice)
    used = []
    for s in sums:
        used.append(s in left)
        if s in left:
            left.remove(s)
    return tuple(used)
