"""The rivals bot's turns: one turn optimised exactly against the learned chance to win.

A turn ends in a stop (a new position, the next player to move) or a bust (the same
position, the next player to move). With every such position valued by the learned
chance to win (`learned_value`), the turn is a finite decision problem that the
solver's turn kernel (`cantstop.solve.kernels.turn_pass`) optimises exactly: every roll,
every choice, roll or stop. The kernel minimises, so it is handed chances to lose: the
stops' from `cantstop.solve.rival_stops` (compiled), the bust's from the model (numpy).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import numpy as np

from cantstop.bots.learned_value import IntArray, Model
from cantstop.core.state import ROLL, STOP, Action, Phase, State
from cantstop.core.variant import Variant

if TYPE_CHECKING:
    from cantstop.solve.policy import Turn

_TURNS_KEPT = 8  # turn graphs cached: a game asks for the same turn at each decision of it


class Rivals:
    """The turn optimiser of one game kind (board, players) against one learned value."""

    def __init__(self, variant: Variant, num_players: int, model: Model) -> None:
        from cantstop.solve.board import Board, RollClasses
        from cantstop.solve.kernels import exact

        self.variant = variant
        self.num_players = num_players
        self.model = model
        columns = len(variant.heights)
        # Rivals' claims close columns too: the kernel's roll classes must cover every set
        # of open columns a game can reach, as if one player needed all those claims.
        closed = min(columns, num_players * (variant.to_win - 1) + 1)
        alone = variant.with_options(min_players=1, max_players=1, to_win=closed)
        self.board = Board(alone)
        self.classes = RollClasses.build(self.board)
        self.rules = self.classes.rules(self.board)
        self.heights = np.array(variant.heights, dtype=np.int64)
        turns = model.turns
        if turns.exact:
            estimate = exact()
        else:
            from cantstop.bots.expert2 import estimate as expert2_estimate

            estimate = expert2_estimate(turns.heights, turns.to_win, tuple(map(tuple, turns.knots)))
        self.value = (model.coef, turns.table, turns.strides, estimate)
        self._turns: OrderedDict[tuple[Any, ...], tuple[Turn, float]] = OrderedDict()

    def action(self, state: State) -> Action:
        """The best action of a CHOOSE or DECIDE state against the learned value."""
        turn = self.turn(state)
        own = state.pieces[state.seat][2:]
        taken = [r - p if r else 0 for r, p in zip(state.runners[2:], own, strict=True)]
        if state.phase is Phase.DECIDE:
            if STOP not in state.legal_actions():
                return ROLL
            number = turn.number(taken, self.classes.mask_rank)
            return ROLL if turn.after(number) < turn.stops[number] else STOP
        if state.phase is not Phase.CHOOSE:
            raise ValueError(f"the rivals bot acts in CHOOSE or DECIDE, not {state.phase.name}")

        def after(choice: tuple[int, ...]) -> float:
            moved = list(taken)
            for column in choice:
                moved[column - 2] += 1
            return turn.after(turn.number(moved, self.classes.mask_rank))

        return min(state.options, key=after)

    def turn(self, state: State) -> Turn:
        """The in-turn values of the turn `state` is in, against the learned value (kept for its later decisions)."""
        return self.solved(state)[0]

    def solved(self, state: State) -> tuple[Turn, float]:
        """`solve`, kept for the turn's later decisions (the cache holds the last few turns)."""
        key = (state.pieces, state.claimed, state.seat)
        found = self._turns.get(key)
        if found is not None:
            self._turns.move_to_end(key)
            return found
        found = self._turns[key] = self.solve(state)
        if len(self._turns) > _TURNS_KEPT:
            self._turns.popitem(last=False)
        return found

    def solve(self, state: State) -> tuple[Turn, float]:
        """The turn from `state`'s position, and the mover's chance to win it when the turn starts."""
        from cantstop.solve import kernels
        from cantstop.solve.policy import Turn
        from cantstop.solve.rival_stops import fill_rival_stops

        progress, owner = self.position(state)
        masks = self.classes.runner_masks
        room = np.where(owner[0] >= 0, 0, self.heights - progress[0, -1])
        offsets = np.empty(len(masks) + 1, np.int64)
        size = kernels.layout(room, masks, offsets)
        stops = np.empty(size)
        fill_rival_stops(
            progress[0], owner[0], self.heights, room, masks, offsets, self.variant.to_win, self.value, stops
        )
        x = 1.0 - float(self.model.chances(progress, owner)[0, -1])  # a bust: the same position, the next to move
        best_a = np.empty(size)
        best_b = np.empty(size)
        start_a, start_b = kernels.turn_pass(room, x, self.rules, stops, best_a, best_b, offsets)
        return Turn(x, room, best_a, best_b, stops, offsets), 1.0 - (start_a + start_b * x)

    def position(self, state: State) -> tuple[IntArray, IntArray]:
        """The position between turns, players from the next to move (the mover last), as the model reads it.

        Each player's progress per column (a claimed column at its height for its owner,
        0 for the others), and the column's owner in that order (-1: open).
        """
        order = [(state.seat + 1 + k) % self.num_players for k in range(self.num_players)]
        progress = np.array([[state.pieces[p][2:] for p in order]], dtype=np.int64)
        rank = {p: k for k, p in enumerate(order)}
        owner = np.array([[rank.get(o, -1) for o in state.claimed[2:]]], dtype=np.int64)
        return progress, owner
