"""The rivals bot's turns: one turn optimised exactly against the learned chance to win.

A turn ends in a stop (a new position, the next player to move) or a bust (the same
position, the next player to move). With every such position valued by the learned
chance to win (`learned_value`), the turn is a finite decision problem that the
solver's turn kernel (`cantstop.solve.kernels.turn_pass`) optimises exactly: every roll,
every choice, roll or stop. The kernel minimises, so it is handed chances to lose: the
stops' from `cantstop.solve.rival_stops` (compiled), the bust's from the model (numpy).

The published options that depend on the rivals' pieces are exact here, from the position
a turn starts at (`RivalPosition`): under `skip` a column's room is its free spaces above
the mover's piece and the d-th step lands on the d-th of them; under `no_stop_on_occupied`
a stop is barred (worth infinity to the kernel) in the states where a runner shares a
space with another player's piece. The value is the board's, shared by those options.

What an analysis reads (`Rivals`): `chances(state)`, every seat's learned chance to win at
the position between turns that `state`'s turn starts from; `turn(state)`, the turn's
`LazyTurn`; `taken(state)`, the steps taken in each column, which `LazyTurn.number` turns
into the in-turn state's number; then `after(number)` (the mover's chance to lose after
that state's decision), `stops[number]` (after stopping there; infinity where a stop is
barred), `x` (after a bust) and `whole()` (the mover's chance to win at the turn's start,
the turn played best against the value).
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
    """The turn optimiser of one game kind (board, players still playing) against one learned value."""

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
        turns = model.turns
        if turns.exact:
            estimate = exact()
        else:
            from cantstop.bots.expert2 import estimate as expert2_estimate

            estimate = expert2_estimate(turns.heights, turns.to_win, tuple(map(tuple, turns.knots)))
        self.value = LearnedValue(model.coef, turns.solved, turns.strides, estimate, variant.to_win)
        self._turns: OrderedDict[tuple[Any, ...], LazyTurn] = OrderedDict()
        self._lock = threading.Lock()  # the cache is shared by the games of one kind, in any thread

    def action(self, state: State) -> Action:
        """The best action of a CHOOSE or DECIDE state against the learned value."""
        turn = self.turn(state)
        taken = self.taken(state)
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

    def chances(self, state: State) -> tuple[float, ...]:
        """Every seat's learned chance to win at the position between turns that `state`'s turn
        starts from (the pieces and claims of `state`, its seat to move), by seat; 0 for a seat
        that left the game. A finished game gives the winner 1."""
        if state.winner is not None:
            return tuple(float(p == state.winner) for p in range(state.num_players))
        order = self.order(state)
        progress, owner = self.position(state)
        # `position` starts from the next to move: rotate the mover to the front.
        found = self.model.chances(np.roll(progress, 1, axis=1), np.where(owner < 0, -1, (owner + 1) % len(order)))[0]
        chances = [0.0] * state.num_players
        for rank, seat in enumerate([order[-1], *order[:-1]]):
            chances[seat] = float(found[rank])
        return tuple(chances)

    def taken(self, state: State) -> list[int]:
        """The steps the player to move has taken in each column this turn (index 0: column 2):
        what `LazyTurn.number` reads (under `skip`, the spaces passed over are not steps)."""
        from cantstop.solve.board import steps_taken

        return steps_taken(state)

    def layout(self, room: IntArray) -> IntArray:
        """Where each runner mask's states start in a turn of these rooms (and, last, the state count)."""
        from cantstop.solve import kernels

        masks = self.rules.runner_masks
        offsets = np.empty(len(masks) + 1, np.int64)
        kernels.layout(room, masks, offsets)
        return offsets

    def bust(self, progress: IntArray, owner: IntArray) -> float:
        """The mover's chance to lose after a bust: the same position, the next player to move."""
        return 1.0 - float(self.model.chances(progress, owner)[0, -1])

    def spaces(self, progress: IntArray, owner: IntArray) -> tuple[IntArray, IntArray, npt.NDArray[np.bool_]]:
        """Each column's room (the steps the mover can take there), where the steps land and
        where a stop would be barred (`RivalPosition`).

        A column's d-th step lands on its d-th free space above the mover's piece: under
        `skip` a space holding another player's piece is not free; otherwise every space is.
        A claimed column has no room. Under `no_stop_on_occupied` a stop is barred with a
        runner on a space holding another player's piece.
        """
        heights = self.variant.heights
        mover, others = progress[0, -1], progress[0, :-1]
        room = np.zeros(len(heights), np.int64)
        spaces = np.zeros((len(heights), max(heights) + 1), np.int64)
        blocked = np.zeros(spaces.shape, np.bool_)
        for c, height in enumerate(heights):
            spaces[c, 0] = mover[c]
            if owner[0, c] >= 0:
                continue
            held = set(others[:, c].tolist())
            free = [s for s in range(mover[c] + 1, height + 1) if not (self.variant.skip and s in held)]
            room[c] = len(free)
            spaces[c, 1 : len(free) + 1] = free
            if self.variant.no_stop_on_occupied:
                blocked[c, 1 : len(free) + 1] = [s in held for s in free]
        return room, spaces, blocked

    def fill_stops(self, turn: LazyTurn, todo: npt.NDArray[np.bool_]) -> None:
        """The stop values of `turn`'s states in the runner masks `todo` names."""
        from cantstop.solve.rival_stops import fill_rival_stops

        fill_rival_stops(turn.position, turn.graph, self.rules.runner_masks, todo, self.value)

    def order(self, state: State) -> list[int]:
        """The seats still playing, from the one after the mover to the mover.

        Raises ValueError when their number is not the one this optimiser was made for.
        """
        seats = len(state.pieces)
        order = [s for s in ((state.seat + 1 + k) % seats for k in range(seats)) if s not in state.out]
        if len(order) != self.num_players:
            raise ValueError(
                f"this turn optimiser is for {self.num_players} players; {len(order)} are playing this game"
            )
        return order

    def position(self, state: State) -> tuple[IntArray, IntArray]:
        """The position between turns, players from the next to move (the mover last), as the model reads it.

        Each player's progress per column (a claimed column at its height for its owner,
        0 for the others), and the column's owner in that order (-1: open). Seats that left
        the game are not players. Raises ValueError as `order` does.
        """
        order = self.order(state)
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
        from cantstop.solve.rival_stops import RivalPosition

        self.rivals = rivals
        self.progress = progress[0]
        self.owner = owner[0]
        self.room, spaces, blocked = rivals.spaces(progress, owner)
        self.position = RivalPosition(self.progress, self.owner, spaces, blocked)
        self.offsets = rivals.layout(self.room)
        self.x = rivals.bust(progress, owner)
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
        """The mover's chance to lose from in-turn state `number` after its decision (roll on or stop)."""
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
