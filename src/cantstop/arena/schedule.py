"""Which games a match plays: deals × seat orders, and the dice and seeds of each.

A *deal* is one stream of dice. Every deal is played once in every seat order
(all permutations of the bots), so each bot sits in each seat equally often and
meets exactly the dice the others met in that seat: luck largely cancels.

The dice are addressed, not drawn in sequence over the game: the k-th roll of
turn t of deal d comes from a generator seeded with (seed, d, t), drawn k times.
Turn t is the same seat's turn in every seat order, so whichever bot sits there
sees the same rolls, and one bot rolling more or less in a turn cannot shift the
dice of any later turn.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from itertools import permutations

from cantstop.core.dice import Dice, SeededDice
from cantstop.core.variant import Variant

Order = tuple[int, ...]  # bot indices by seat: order[seat] is the bot sitting there


def seat_orders(bots: int) -> tuple[Order, ...]:
    """Every seating of `bots` bots, in a fixed (lexicographic) order."""
    return tuple(permutations(range(bots)))


@dataclass(frozen=True)
class Task:
    """One game of a match: its number, its deal and its seat order."""

    index: int
    deal: int
    order: Order


def schedule(bots: int, games: int) -> tuple[Task, ...]:
    """At least `games` games, rounded up to whole deals so every order is played equally."""
    if games < 1:
        raise ValueError(f"a match needs at least 1 game, not {games}")
    orders = seat_orders(bots)
    deals = math.ceil(games / len(orders))
    return tuple(
        Task(deal * len(orders) + k, deal, order)
        for deal in range(deals)
        for k, order in enumerate(orders)
    )


def derive_seed(*parts: object) -> int:
    """A 31-bit seed from the parts' text: the same on every machine and Python version."""
    digest = hashlib.blake2b("/".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") % 2**31


class DealDice:
    """The dice of one deal, addressed by (turn, roll of the turn); see the module doc."""

    def __init__(self, seed: int, deal: int, variant: Variant) -> None:
        self.seed = seed
        self.deal = deal
        self.variant = variant
        self._turn = -1
        self._rolled = 0
        self._source = SeededDice(0)

    def roll(self, turn: int, index: int) -> Dice:
        """Roll number `index` (0 first) of `turn`; rolls of a turn are asked for in order."""
        if turn != self._turn:
            self._turn, self._rolled = turn, 0
            self._source = SeededDice(derive_seed("dice", self.seed, self.deal, turn))
        if index != self._rolled:
            raise ValueError(f"roll {index} of turn {turn} asked for after roll {self._rolled - 1}")
        self._rolled += 1
        return self._source.roll(self.variant.dice, self.variant.faces)
