"""What the environments share: the episodes' randomness, chance resolved inside, the rewards.

An environment's episodes are numbered from a root key: `reset(seed=s)` draws the root
from the freshly seeded generator (its first `integers(2**63)`) and starts at episode 0;
each reset without a seed moves on to the next episode. Episode e's dice are
`counter_dice(root, e, k)` for its k-th roll, its bots' draws `counter_uniform(root, e, d)`
and, when the agent's seat is drawn, the seat comes from the seat stream at (root, e)
(`cantstop.core.counter`). Everything is addressed, not drawn in sequence, so the
compiled vector environment replays exactly the episodes of the single one.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cantstop.core.counter import SEAT_STREAM, CounterDice, CounterRandom, counter_below
from cantstop.core.dice import DiceSource
from cantstop.core.notation import seat_letter
from cantstop.core.record import Record
from cantstop.core.state import Phase, State
from cantstop.core.variant import Variant
from cantstop.table import Player, Policy, Table


def root_key(np_random: np.random.Generator) -> int:
    """The root key of a run of episodes, drawn from the environment's generator."""
    return int(np_random.integers(2**63))


class Episodes:
    """Which episode an environment plays: its root key and the episode's number."""

    def __init__(self) -> None:
        self.root: int | None = None
        self.number = 0

    def start(self, np_random: np.random.Generator, seeded: bool) -> None:
        """A new episode: number 0 of a fresh root after a seed, else the next number."""
        if seeded or self.root is None:
            self.root = root_key(np_random)
            self.number = 0
        else:
            self.number += 1

    @property
    def key(self) -> int:
        if self.root is None:
            raise RuntimeError("no episode has started")
        return self.root

    def dice(self) -> CounterDice:
        return CounterDice(self.key, self.number)

    def bot_random(self) -> CounterRandom:
        return CounterRandom(self.key, self.number)

    def seat(self, players: int) -> int:
        return counter_below(self.key, SEAT_STREAM, self.number, 0, players)


def episode_table(variant: Variant, players: Sequence[Player | None], dice: DiceSource) -> Table:
    """A new game at a table, seat 0 to start: the agents' seats have no player (their moves
    are handed in), the bots' seats theirs. No narration: nobody reads it, and it costs. A bot
    that fails raises (`Policy.RAISE`): no stand-in plays an episode in its name."""
    record = Record(variant, [seat_letter(seat) for seat in range(len(players))])
    return Table(record, dice, players, policy=Policy.RAISE, narrate=False)


def to_next_decision(table: Table) -> State:
    """Roll, and let the bots play, until an agent has a decision to make or the game ends
    (a bust passes the turn on); the position reached."""
    table.run(roll_for_people=True)
    return table.state


def reward(before: State, after: State, seat: int) -> float:
    """What `seat` earns from `before` to `after`.

    Alone (solitaire), -1 per finished turn, so that an episode's return is minus the
    turns the game took; against others, +1 for a win and -1 for a loss when the game
    ends, 0 elsewhere.
    """
    if after.num_players == 1:
        return float(before.turn - after.turn)
    if after.phase is Phase.OVER:
        return 1.0 if after.winner == seat else -1.0
    return 0.0
