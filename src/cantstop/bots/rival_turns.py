"""The rivals bot's turns: one turn optimised exactly against the learned chance to win.

A turn ends in a stop (a new position, the next player to move) or a bust (the same
position, the next player to move). With every such position valued by the learned
chance to win (`learned_value`), the turn is a finite decision problem that the
solver's turn kernel (`cantstop.solve.kernels.turn_pass`) optimises exactly: every roll,
every choice, roll or stop. The kernel minimises, so it is handed chances to lose.
"""

from __future__ import annotations

from collections import OrderedDict
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from cantstop.bots.learned_value import FloatArray, IntArray, Model, softmax
from cantstop.core.state import ROLL, STOP, Action, Phase, State
from cantstop.core.variant import Variant

if TYPE_CHECKING:
    from cantstop.solve.policy import Turn

_TURNS_KEPT = 8  # turn graphs cached: a game asks for the same turn at each decision of it


class Rivals:
    """The turn optimiser of one game kind (board, players) against one learned value."""

    def __init__(self, variant: Variant, num_players: int, model: Model) -> None:
        from cantstop.solve.board import Board, RollClasses

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
        self._turns: OrderedDict[tuple[Any, ...], Turn] = OrderedDict()

    def action(self, state: State) -> Action:
        """The best action of a CHOOSE or DECIDE state against the learned value."""
        turn = self.turn(state)
        own = state.pieces[state.seat][2:]
        spaces = [r or p for r, p in zip(state.runners[2:], own, strict=True)]
        taken = [r - p if r else 0 for r, p in zip(state.runners[2:], own, strict=True)]
        if state.phase is Phase.DECIDE:
            if STOP not in state.legal_actions():
                return ROLL
            return ROLL if self._value(turn, taken) < self._stop_losses(state, [spaces])[0] else STOP
        if state.phase is not Phase.CHOOSE:
            raise ValueError(f"the rivals bot acts in CHOOSE or DECIDE, not {state.phase.name}")

        def after(choice: tuple[int, ...]) -> float:
            moved = list(taken)
            for column in choice:
                moved[column - 2] += 1
            return self._value(turn, moved)

        return min(state.options, key=after)

    def turn(self, state: State) -> Turn:
        key = (state.pieces, state.claimed, state.seat)
        turn = self._turns.get(key)
        if turn is not None:
            self._turns.move_to_end(key)
            return turn
        from cantstop.solve import kernels
        from cantstop.solve.policy import Turn

        heights = self.variant.heights
        own = state.pieces[state.seat]
        progress = tuple(h if state.claimed[c] >= 0 else own[c] for c, h in enumerate(heights, 2))
        spaces = _turn_states(progress, heights, tuple(int(m) for m in self.classes.runner_masks))
        stops = np.empty(len(spaces))
        stops[0] = 0.0  # the turn start: no stop there
        stops[1:] = self._stop_losses(state, spaces[1:])
        x = 1.0 - float(self.model.chances(*self._bust(state), self.variant.to_win)[0, -1])
        best_a = np.empty(len(spaces))
        best_b = np.empty(len(spaces))
        room = np.array([h - p for h, p in zip(heights, progress, strict=True)], dtype=np.int64)
        offsets = np.empty(len(self.classes.runner_masks) + 1, np.int64)
        kernels.layout(room, self.classes.runner_masks, offsets)
        kernels.turn_pass(room, x, self.rules, stops, best_a, best_b, offsets)
        turn = Turn(x, room, best_a, best_b, stops, offsets)
        self._turns[key] = turn
        if len(self._turns) > _TURNS_KEPT:
            self._turns.popitem(last=False)
        return turn

    def _value(self, turn: Turn, taken: list[int]) -> float:
        """The chance to lose after the decision of the in-turn state with `taken[c]` steps taken in column index c."""
        return turn.after(turn.number(taken, self.classes.mask_rank))

    def _bust(self, state: State) -> tuple[IntArray, IntArray]:
        """The position a bust hands on, players from the next to move (the mover last)."""
        order = [(state.seat + 1 + k) % self.num_players for k in range(self.num_players)]
        progress = np.array([[state.pieces[p][2:] for p in order]], dtype=np.int64)
        rank = {p: k for k, p in enumerate(order)}
        owner = np.array([[rank.get(o, -1) for o in state.claimed[2:]]], dtype=np.int64)
        return progress, owner

    def _stop_losses(self, state: State, spaces: Any) -> FloatArray:
        """The mover's chance to lose after stopping with runners on each row of `spaces`.

        Rivals' scores change only with the columns the stop claims (their pieces there are
        wiped): they are scored once per distinct set of new claims.
        """
        heights = np.array(self.variant.heights, dtype=np.int64)
        progress, owner = (a[0] for a in self._bust(state))
        spaces = np.asarray(spaces, dtype=np.int64)
        last = self.num_players - 1  # the mover, in the order from the next to move
        claimed = owner >= 0
        won = (spaces == heights) & ~claimed
        to_win = self.variant.to_win
        mover = self.model.score(
            np.where(claimed, progress[last], spaces), won | (owner == last), claimed & (owner != last), last, to_win
        )
        codes = won @ (1 << np.arange(len(heights)))
        kinds, which = np.unique(codes, return_inverse=True)
        taken = (kinds[:, None] >> np.arange(len(heights))) & 1 == 1
        scores = [
            self.model.score(
                np.where(taken, 0, progress[k]), owner == k, taken | (claimed & (owner != k)), k, to_win
            )[which]
            for k in range(last)
        ]
        chances = softmax(np.stack([*scores, mover], axis=1))[:, last]
        finished = np.count_nonzero(won | (owner == last), axis=1) >= to_win
        return np.asarray(np.where(finished, 0.0, 1.0 - chances))


@lru_cache(maxsize=64)
def _turn_states(progress: tuple[int, ...], heights: tuple[int, ...], masks: tuple[int, ...]) -> IntArray:
    """Every in-turn state's spaces, in the kernel's numbering (see `cantstop.solve.kernels`)."""
    room = [h - p for h, p in zip(heights, progress, strict=True)]
    blocks = [np.array([progress], dtype=np.int64)]  # mask 0: the turn start alone
    for m in masks[1:]:
        cols = [i for i in range(len(heights)) if m >> i & 1]
        size = 1
        for c in cols:
            size *= room[c]
        block = np.tile(np.array(progress, dtype=np.int64), (size, 1))
        local = np.arange(size)
        for c in cols:  # mixed radix, the lowest column fastest, as the kernel numbers them
            block[:, c] += 1 + local % room[c]
            local = local // room[c]
        blocks.append(block)
    return np.concatenate(blocks)
