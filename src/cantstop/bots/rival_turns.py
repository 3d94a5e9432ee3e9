"""The rivals bot's turns: one turn optimised exactly against the learned chance to win.

A turn ends in a stop (a new position, the next player to move) or a bust (the same
position, the next player to move). With every such position valued by the learned
chance to win (`learned_value`), the turn is a finite decision problem that the
solver's turn kernel (`cantstop.solve.kernels.turn_pass`) optimises exactly: every roll,
every choice, roll or stop. The kernel minimises, so it is handed chances to lose: the
stops' from `cantstop.solve.rival_stops` (compiled), the bust's from the model (numpy).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

import numpy as np
import numpy.typing as npt

from cantstop.bots.learned_value import IntArray, Model
from cantstop.core.state import ROLL, STOP, Action, Phase, State
from cantstop.core.variant import Variant

_TURNS_KEPT = 8  # turn graphs cached: a game asks for the same turn at each decision of it


class Rivals:
    """The turn optimiser of one game kind (board, players) against one learned value."""

    def __init__(self, variant: Variant, num_players: int, model: Model) -> None:
        from cantstop.solve.board import Board, turn_rules
        from cantstop.solve.kernels import exact
        from cantstop.solve.rival_stops import LearnedValue

        self.variant = variant
        self.num_players = num_players
        self.model = model
        columns = len(variant.heights)
        # Rivals' claims close columns too: the kernel's roll classes must cover every set
        # of open columns a game can reach, as if one player needed all those claims.
        closed = min(columns, num_players * (variant.to_win - 1) + 1)
        alone = variant.with_options(min_players=1, max_players=1, to_win=closed)
        self.board = Board(alone)
        self.rules = turn_rules(self.board)
        self.heights = np.array(variant.heights, dtype=np.int64)
        turns = model.turns
        if turns.exact:
            estimate = exact()
        else:
            from cantstop.bots.expert2 import estimate as expert2_estimate

            estimate = expert2_estimate(turns.heights, turns.to_win, tuple(map(tuple, turns.knots)))
        self.value = LearnedValue(model.coef, turns.solved, turns.strides, estimate)
        self._turns: OrderedDict[tuple[Any, ...], LazyTurn] = OrderedDict()
        self._lock = threading.Lock()  # the cache is shared by the games of one kind, in any thread

    def action(self, state: State) -> Action:
        """The best action of a CHOOSE or DECIDE state against the learned value."""
        turn = self.turn(state)
        own = state.pieces[state.seat][2:]
        taken = [r - p if r else 0 for r, p in zip(state.runners[2:], own, strict=True)]
        if state.phase is Phase.DECIDE:
            if STOP not in state.legal_actions():
                return ROLL
            number = turn.number(taken)
            return ROLL if turn.after(number) < turn.stops[number] else STOP
        if state.phase is not Phase.CHOOSE:
            raise ValueError(f"the rivals bot acts in CHOOSE or DECIDE, not {state.phase.name}")

        def after(choice: tuple[int, ...]) -> float:
            moved = list(taken)
            for column in choice:
                moved[column - 2] += 1
            return turn.after(turn.number(moved))

        return min(state.options, key=after)

    def turn(self, state: State) -> LazyTurn:
        """The turn `state` is in, against the learned value (kept for its later decisions)."""
        key = (state.pieces, state.claimed, state.seat)
        with self._lock:
            turn = self._turns.get(key)
            if turn is not None:
                self._turns.move_to_end(key)
                return turn
            turn = self._turns[key] = LazyTurn(self, *self.position(state))
            if len(self._turns) > _TURNS_KEPT:
                self._turns.popitem(last=False)
            return turn

    def start_chance(self, state: State) -> float:
        """The mover's chance to win the turn `state` is in when it starts, by the exact turn against the value."""
        return self.turn(state).whole()

    def layout(self, progress: IntArray, owner: IntArray) -> tuple[IntArray, IntArray, float]:
        """The turn's rooms, where each runner mask's states start, and the bust's chance to lose."""
        from cantstop.solve import kernels

        masks = self.rules.runner_masks
        room = np.where(owner[0] >= 0, 0, self.heights - progress[0, -1])
        offsets = np.empty(len(masks) + 1, np.int64)
        kernels.layout(room, masks, offsets)
        x = 1.0 - float(self.model.chances(progress, owner)[0, -1])  # a bust: the same position, the next to move
        return room, offsets, x

    def fill_stops(self, turn: LazyTurn, todo: npt.NDArray[np.bool_]) -> None:
        """The stop values of `turn`'s states in the runner masks `todo` names."""
        from cantstop.solve.rival_stops import fill_rival_stops

        masks, to_win = self.rules.runner_masks, self.variant.to_win
        fill_rival_stops(
            turn.progress, turn.owner, self.heights, turn.room, masks, turn.offsets, to_win, self.value, turn.stops, todo
        )

    def chances(self, state: State) -> list[float]:
        """Every seat's learned chance to win with `state.seat` to move, by seat (the analysis's
        view of the players who are not moving; the mover's own is the turn's, `start_chance`)."""
        n = self.num_players
        before = state._replace(seat=(state.seat - 1) % n)  # position() orders from the seat after
        progress, owner = self.position(before)
        chances = self.model.chances(progress, owner)[0]
        return [float(chances[(seat - state.seat) % n]) for seat in range(n)]

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


class LazyTurn:
    """One turn's in-turn values against the learned value, worked out as decisions need them.

    A decision needs the states it can lead to and everything after them: the states whose
    runner mask contains the mask of a choice (or of the state deciding). Only those are
    evaluated (the turn kernel and the stop values, for those masks); a turn's first choice
    needs about a fifth of them on the classic board's empty one.
    """

    def __init__(self, rivals: Rivals, progress: IntArray, owner: IntArray) -> None:
        from cantstop.solve import kernels
        from cantstop.solve.bundles import TurnGraph

        self.rivals = rivals
        self.progress = progress[0]
        self.owner = owner[0]
        self.room, self.offsets, self.x = rivals.layout(progress, owner)
        size = int(self.offsets[-1])
        self.stops = np.empty(size)
        self.best_a = np.empty(size)
        self.best_b = np.empty(size)
        self.graph = TurnGraph(self.room, self.offsets, self.stops, self.best_a, self.best_b)
        self.scratch = kernels.pass_scratch(len(self.room), rivals.rules)
        self.done = np.zeros(len(self.offsets) - 1, np.bool_)
        self.start: float | None = None  # the chance at the turn's start, once `whole` worked it out
        self._lock = threading.Lock()

    def number(self, taken: list[int]) -> int:
        """The number of the in-turn state with `taken[c]` steps taken in column index c, evaluated."""
        masks = self.rivals.rules.runner_masks
        mask = sum(1 << i for i, steps in enumerate(taken) if steps)
        with self._lock:  # games in threads (the web's bot seats) may share a turn: evaluate it once
            todo = ((masks & mask) == mask) & ~self.done
            if todo.any():
                self._evaluate(todo)
        number, stride = 0, 1
        for i, steps in enumerate(taken):
            if steps:
                number += (steps - 1) * stride
                stride *= int(self.room[i])
        return number + int(self.offsets[self.rivals.rules.mask_rank[mask]])

    def after(self, number: int) -> float:
        """The chance to lose of in-turn state `number` after its decision."""
        return float(self.best_a[number] + self.best_b[number] * self.x)

    def whole(self) -> float:
        """Evaluate every state; the mover's chance to win at the turn's start."""
        with self._lock:
            if self.start is None:
                self.start = self._evaluate(~self.done | (np.arange(len(self.done)) == 0))
            return self.start

    def _evaluate(self, todo: npt.NDArray[np.bool_]) -> float:
        """Evaluate the masks `todo` names; the start's chance to win if the start was one of them."""
        from cantstop.solve import kernels

        r = self.rivals
        r.fill_stops(self, todo)
        self.scratch.todo[:] = todo
        a, b = kernels.turn_pass_in(self.graph, self.x, r.rules, self.scratch)
        self.done |= todo
        return 1.0 - (a + b * self.x)
