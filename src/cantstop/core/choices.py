"""The legal choices of a roll: distinct multisets of columns advanced.

One generic rule serves both pairings and the relay captain: a sub-multiset of a
group's sums is a legal choice when it can be applied and no remaining sum of the
same group could still be applied after it. Doubles fall out of it (7+7 one step
below the top is the choice {7}), and so does "one runner left, two new columns".
"""

from __future__ import annotations

from collections.abc import Sequence

from cantstop.core.dice import Group
from cantstop.core.errors import NotationError

Choice = tuple[int, ...]  # column numbers advanced, sorted; (7, 7) moves column 7 twice


def applicable(
    sub: Sequence[int],
    room: Sequence[int],
    has_runner: Sequence[bool],
    runners_left: int,
    steps_left: int,
) -> bool:
    """Can every step of `sub` be taken? `room[c]` is how many steps column c can still take."""
    if len(sub) > steps_left:
        return False
    new = 0
    previous = -1
    for column in sub:  # sorted, so equal columns are adjacent
        if column != previous:
            if room[column] < sub.count(column):
                return False
            if not has_runner[column]:
                new += 1
            previous = column
    return new <= runners_left


def group_choices(
    group: Group,
    room: Sequence[int],
    has_runner: Sequence[bool],
    runners_left: int,
    steps_left: int,
) -> set[Choice]:
    """The maximal applicable sub-multisets of one group of sums."""
    n = len(group)
    if n == 2:  # a pair: both sums if they go together, else each sum that goes alone
        if applicable(group, room, has_runner, runners_left, steps_left):
            return {group}
        return {
            (c,) for c in group if applicable((c,), room, has_runner, runners_left, steps_left)
        }
    full = (1 << n) - 1
    ok = [False] * (full + 1)
    subs: list[Choice] = [()] * (full + 1)
    for mask in range(1, full + 1):
        sub = tuple(group[i] for i in range(n) if mask >> i & 1)
        subs[mask] = sub
        ok[mask] = applicable(sub, room, has_runner, runners_left, steps_left)
    found = set()
    for mask in range(1, full + 1):
        if ok[mask] and not any(
            ok[mask | 1 << i] for i in range(n) if not mask >> i & 1
        ):
            found.add(subs[mask])
    return found


def roll_choices(
    groups: Sequence[Group],
    room: Sequence[int],
    has_runner: Sequence[bool],
    runners_left: int,
    steps_left: int,
) -> tuple[Choice, ...]:
    """All distinct choices over every group of a roll, in a stable order (by columns)."""
    found: set[Choice] = set()
    for group in groups:
        found |= group_choices(group, room, has_runner, runners_left, steps_left)
    return tuple(sorted(found))


def format_choice(choice: Choice) -> str:
    """`(6, 10)` as '6+10', `(7,)` as '7'."""
    return "+".join(str(c) for c in choice)


def parse_choice(text: str) -> Choice:
    """'6+10' or '6,10' or '6 10' back to `(6, 10)`; raises `NotationError` naming the fault.

    >>> parse_choice("10+6"), format_choice((7, 7))
    ((6, 10), '7+7')
    >>> parse_choice("six")
    Traceback (most recent call last):
    ...
    cantstop.core.errors.NotationError: bad choice 'six': write the columns joined by '+', e.g. 6+10 or 7
    """
    parts = text.replace(",", "+").replace(" ", "+").split("+")
    try:
        columns = tuple(sorted(int(p) for p in parts if p))
    except ValueError:
        raise NotationError(
            f"bad choice {text!r}: write the columns joined by '+', e.g. 6+10 or 7"
        ) from None
    if not columns:
        raise NotationError(f"bad choice {text!r}: name at least one column, e.g. 7")
    return columns
