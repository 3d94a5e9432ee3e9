"""Dice: the precomputed catalog of every roll, and the sources of randomness for play.

The engine never rolls by itself; a roll is a tuple of faces handed to the state.
`SeededDice` makes games reproducible; `SecureDice` is for online play. Counter-based
dice, addressed by (seed, game, roll) for simulations and environments, live in
`cantstop.core.counter`.
"""

from __future__ import annotations

import itertools
import os
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from math import factorial
from operator import itemgetter
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from cantstop.core.variant import Variant

Dice = tuple[int, ...]
Group = tuple[int, ...]  # the sums one pairing (or one captain) makes, as column numbers, sorted

# Which dice form the two pairs in each of the three ways to split four dice.
_PAIRINGS = (((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2)))


class DiceSource(Protocol):
    """Anything that can roll `n` dice of `faces` faces."""

    def roll(self, n: int, faces: int) -> Dice: ...


class SeededDice:
    """Reproducible dice: the same seed gives the same rolls on every machine.

    >>> SeededDice(7).roll(4, 6) == SeededDice(7).roll(4, 6)
    True
    """

    def __init__(self, seed: int | str | None = None) -> None:
        self.seed = seed
        self._random = random.Random(seed).random
        self._n = self._faces = 0
        self._rolls: tuple[Dice, ...] = ()

    def roll(self, n: int, faces: int) -> Dice:
        # One uniform draw picks one of the faces**n ordered rolls: fast and portable.
        if n != self._n or faces != self._faces:  # a game asks for the same dice every time
            self._rolls = _all_rolls(n, faces)
            self._n, self._faces = n, faces
        rolls = self._rolls
        return rolls[int(self._random() * len(rolls))]


@cache
def _all_rolls(n: int, faces: int) -> tuple[Dice, ...]:
    return tuple(itertools.product(range(1, faces + 1), repeat=n))


class SecureDice:
    """Unpredictable dice from the operating system, for games played for real."""

    def roll(self, n: int, faces: int) -> Dice:
        # One read of the system's randomness a roll (not one or more a die): each byte below
        # the largest multiple of `faces` is a fair die, a byte above it is drawn again.
        if not 1 <= faces <= 256:
            raise ValueError(f"a die has 1 to 256 faces, not {faces}")
        fair = 256 - 256 % faces
        dice: list[int] = []
        while len(dice) < n:
            dice += [byte % faces + 1 for byte in os.urandom(n - len(dice)) if byte < fair]
        return tuple(dice)


def _groups_of(values: Sequence[int], captain: bool) -> set[Group]:
    if captain:
        return {
            tuple(sorted(values[c] + values[o] for o in range(4) if o != c)) for c in range(4)
        }
    return {
        tuple(sorted((values[a] + values[b], values[c] + values[d])))
        for (a, b), (c, d) in _PAIRINGS
    }


def _canonical(variant: Variant, dice: Dice) -> Dice:
    """Sort plain dice and wild-carrying dice apart: the two kinds are not interchangeable."""
    w = variant.wild_dice
    return tuple(sorted(dice[:w])) + tuple(sorted(dice[w:]))


def _arrangements(part: Dice) -> int:
    count = factorial(len(part))
    for face in set(part):
        count //= factorial(part.count(face))
    return count


class RollCatalog:
    """Every distinct roll of a variant with its weight and the sum groups it offers.

    `outcomes[i]` is a canonical roll, `weights[i]` how many of the faces**4 ordered
    rolls it stands for, `groups[i]` the distinct sum groups (wild faces expanded to
    every value). `index[dice]` maps any ordered roll to its outcome number.
    """

    def __init__(self, variant: Variant) -> None:
        faces = variant.faces
        captain = variant.pairing.value == "captain"
        index: dict[Dice, int] = {}
        outcomes: list[Dice] = []
        weights: list[int] = []
        groups: list[tuple[Group, ...]] = []
        for dice in itertools.product(range(1, faces + 1), repeat=4):
            key = _canonical(variant, dice)
            if key not in index:
                index[key] = len(outcomes)
                outcomes.append(key)
                w = variant.wild_dice
                weights.append(_arrangements(key[:w]) * _arrangements(key[w:]))
                groups.append(self._expand(variant, key, captain))
            index[dice] = index[key]
        self.index = index
        self.outcomes: tuple[Dice, ...] = tuple(outcomes)
        self.weights: tuple[int, ...] = tuple(weights)
        self.total = faces**4
        self.groups: tuple[tuple[Group, ...], ...] = tuple(groups)
        # The columns each roll can make at all: the only ones its choices depend on.
        self.relevant: tuple[tuple[int, ...], ...] = tuple(
            tuple(sorted({c for g in gs for c in g})) for gs in groups
        )
        # Picks a state's status slots that a roll's choices depend on (see column_status).
        self.relevant_status = tuple(_picker((0, 1, *columns)) for columns in self.relevant)
        # The most steps one roll can take: 2 with pairs, 3 with a relay captain.
        self.most_steps = 3 if captain else 2
        # A column's status code with a runner in it, by its room (capped): see column_status.
        self.runner_code = (0, *(4 | free for free in range(1, 36)))
        # room_from[c][space]: the capped steps column c can take from `space` upwards
        # (slots 0 and 1, which are no columns, read 0 so that whole rows can be mapped).
        self.room_from: tuple[tuple[int, ...], ...] = ((0,), (0,)) + tuple(
            tuple(min(h - space, self.most_steps) for space in range(h + 1))
            for h in variant.heights
        )
        # runner_status[c][space]: column c's status code with a runner on `space`.
        self.runner_status: tuple[tuple[int, ...], ...] = tuple(
            tuple(self.runner_code[free] for free in row) for row in self.room_from
        )
        # A status code once no runner is left: only columns holding a runner stay open.
        self.closed: tuple[int, ...] = tuple(code if code & 4 else 0 for code in range(40))
        self.no_runners: tuple[int, ...] = (0,) * (2 + len(variant.heights))
        # Each column's top space by column number (-1 in slots 0 and 1, which are no columns).
        self.tops: tuple[int, ...] = (-1, -1, *variant.heights)
        # turn_start[c][space]: column c's status when a turn starts with the mover's piece on
        # `space`. Slots 0 and 1 read the runners and steps a turn starts with (a row of
        # pieces holds 0 there), so one map over the row gives the whole status.
        start_steps = self.most_steps if variant.step_limit is None else variant.step_limit
        self.turn_start: tuple[tuple[int, ...], ...] = (
            (min(self.most_steps, variant.runners),),
            (min(self.most_steps, start_steps),),
            *self.room_from[2:],
        )
        # turn_start with the rows of claimed columns zeroed, by the claims (see turn_start_for).
        self._turn_start_by_claims: dict[tuple[int, ...], tuple[tuple[int, ...], ...]] = {}
        # Filled by State.outcome_choices: per roll, the picked status slots -> choices.
        self.choice_cache: list[dict[tuple[int, ...], tuple[tuple[int, ...], ...]]] = [
            {} for _ in outcomes
        ]
        # Any ordered roll straight to its outcome's choice cache and status picker: the
        # one dictionary lookup `State.roll` makes before the cache lookup itself.
        self.by_dice: dict[Dice, tuple[dict[tuple[int, ...], tuple[tuple[int, ...], ...]], Callable[[Sequence[int]], tuple[int, ...]]]] = {
            dice: (self.choice_cache[i], self.relevant_status[i]) for dice, i in index.items()
        }

    def turn_start_for(self, claimed: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
        """`turn_start` for a board with these claims: a claimed column reads 0 from any space."""
        table = self._turn_start_by_claims.get(claimed)
        if table is None:
            table = tuple(
                (0,) * len(row) if c >= 2 and owner >= 0 else row
                for c, (row, owner) in enumerate(zip(self.turn_start, claimed, strict=True))
            )
            self._turn_start_by_claims[claimed] = table
        return table

    @staticmethod
    def _expand(variant: Variant, dice: Dice, captain: bool) -> tuple[Group, ...]:
        options = [
            range(1, variant.faces + 1) if i < variant.wild_dice and d == variant.wild_face else (d,)
            for i, d in enumerate(dice)
        ]
        found: set[Group] = set()
        for values in itertools.product(*options):
            found |= _groups_of(values, captain)
        return tuple(sorted(found))


def _picker(slots: tuple[int, ...]) -> Callable[[Sequence[int]], tuple[int, ...]]:
    """A fast function picking `slots` (at least two) out of a sequence, as a tuple."""
    return itemgetter(*slots)


@dataclass(frozen=True)
class RollOff:
    """Who starts: every round's two-dice totals, and the seat that won."""

    rounds: tuple[tuple[tuple[int, int], ...], ...]  # each round: (seat, total) pairs
    first: int


def roll_off(variant: Variant, num_players: int, source: DiceSource) -> RollOff:
    """Each player rolls two dice; the highest total starts and only tied players re-roll.

    A wild face counts as the highest face, as the Turtles box says. The player count is
    not checked here: `new_game` checks it.

    >>> from cantstop.core.variant import preset
    >>> roll_off(preset("classic"), 3, SeededDice(1))
    RollOff(rounds=(((0, 6), (1, 7), (2, 9)),), first=2)
    """
    contenders = list(range(num_players))
    rounds = []
    while True:
        totals = []
        for seat in contenders:
            dice = source.roll(2, variant.faces)
            totals.append(
                (
                    seat,
                    sum(
                        variant.faces if i < variant.wild_dice and d == variant.wild_face else d
                        for i, d in enumerate(dice)
                    ),
                )
            )
        rounds.append(tuple(totals))
        best = max(t for _, t in totals)
        contenders = [s for s, t in totals if t == best]
        if len(contenders) == 1:
            return RollOff(tuple(rounds), contenders[0])
