"""Play from anchor values: the value of every in-turn state of an anchor.

For the anchor a turn started from, one kernel pass at the anchor's value gives every
in-turn state's value after its decision; a choice leads to the state of least value,
and rolling on beats stopping exactly when that value is below the stop's.

The anchor values come from a solved table (optimal play), or from a fitted estimate
(`Policy.estimated`): then the turn is still optimised exactly, against the estimate's
values of the anchors a stop reaches, with the turn's own anchor worth the fixed point
x = 1 + W(x) that Newton's method finds, as the solver does.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cantstop.core.choices import Choice
from cantstop.core.state import ROLL, STOP, Action, Phase, State
from cantstop.core.variant import Variant
from cantstop.solve.board import Board, RollClasses, SolveError, board_of
from cantstop.solve.table import Table, default_path

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

# Newton's last pass fills best_a/best_b at an x this close (relative) to the one returned:
# a fraction of a turn against estimates that are themselves off by tenths of a turn. From
# the anchor's own estimate that is two passes of the turn graph, most of the time.
ESTIMATE_TOLERANCE = 1e-2
_TURNS_BYTES = 2**28  # the turn values kept cached: 256 MiB (4,096 turns of a small board, 16 of the full one)


@dataclass(frozen=True)
class Turn:
    """The in-turn values of one anchor: state number -> a + b·x at the anchor's x."""

    progress: tuple[int, ...]
    x: float
    best_a: npt.NDArray[np.float64]
    best_b: npt.NDArray[np.float64]
    offsets: npt.NDArray[np.int64]

    def value(self, spaces: list[int], heights: tuple[int, ...], mask_rank: npt.NDArray[np.int64]) -> float:
        """Value after the decision of the in-turn state with runners on `spaces`."""
        mask, index, stride = 0, 0, 1
        for i, (space, start, h) in enumerate(zip(spaces, self.progress, heights, strict=True)):
            if space > start:
                mask |= 1 << i
                index += (space - start - 1) * stride
                stride *= h - start
        index += int(self.offsets[mask_rank[mask]])
        return float(self.best_a[index] + self.best_b[index] * self.x)


class Policy:
    """The optimal policy of a solved board (a complete table), or the best turns against an estimate."""

    def __init__(self, board: Board, table: Table | None, estimate: tuple[Any, ...] | None = None) -> None:
        if table is not None and not table.header.complete:
            raise SolveError(
                f"the table of {board.key} is only partly solved ({table.header.layers_done} of "
                f"{table.header.layers} layers): run `cantstop solve {board.key}` to finish it"
            )
        if (table is None) == (estimate is None):
            raise ValueError("a policy reads a table or an estimate, one of them")
        self.board = board
        self.table = table
        self._estimate = estimate
        self._turns: OrderedDict[tuple[int, ...], Turn] = OrderedDict()

    @staticmethod
    def estimated(board: Board, estimate: tuple[Any, ...]) -> Policy:
        """Exact turns against fitted anchor values (see `kernels.estimated` for `estimate`)."""
        return Policy(board, None, estimate)

    @staticmethod
    def load(variant: Variant, path: Path | None = None) -> Policy:
        board = board_of(variant)
        path = path or default_path(board)
        if not path.exists():
            raise SolveError(
                f"{board.key} is not solved (no table at {path}): run `cantstop solve {board.key}`"
            )
        return Policy(board, Table.open(path, board))

    @cached_property
    def _classes(self) -> RollClasses:
        return RollClasses.build(self.board)

    @cached_property
    def _rules(self) -> tuple[Any, ...]:
        return self._classes.rules(self.board)

    @cached_property
    def _values(self) -> npt.NDArray[np.float64]:
        import numpy as np

        return np.asarray(self.table.values) if self.table is not None else np.zeros(1)

    @cached_property
    def _kernel_estimate(self) -> tuple[Any, ...]:
        from cantstop.solve import kernels

        return self._estimate if self._estimate is not None else kernels.exact()

    def value(self, progress: tuple[int, ...]) -> float:
        """Expected turns to finish from an anchor (0 once the game is won)."""
        if self.table is not None:
            return self.table.value(self.board.anchor_index(progress))
        return self.turn(progress).x

    def turn(self, progress: tuple[int, ...]) -> Turn:
        turn = self._turns.get(progress)
        if turn is not None:
            self._turns.move_to_end(progress)
            return turn
        import numpy as np

        from cantstop.solve import kernels

        b = self.board
        anchor = b.anchor_index(progress)
        best_a = np.empty(b.most_local, np.float64)
        best_b = np.empty(b.most_local, np.float64)
        stops = np.empty(b.most_local, np.float64)
        offsets = np.empty(len(self._classes.runner_masks) + 1, np.int64)
        progress_array = np.array(progress, dtype=np.int64)
        values, estimate = self._values, self._kernel_estimate
        if self.table is not None:
            x = float(values[anchor])
            kernels.turn_pass(
                anchor, progress_array, x, values, self._rules, best_a, best_b, offsets, estimate, stops, True
            )
        else:  # the turn's own anchor: the fixed point against the estimated stops
            x, _ = kernels.solve_anchor(
                anchor, progress_array, values, self._rules, best_a, best_b, offsets, estimate,
                ESTIMATE_TOLERANCE, stops,
            )
        turn = Turn(progress, x, best_a, best_b, offsets)
        self._turns[progress] = turn
        if len(self._turns) > max(4, _TURNS_BYTES // (16 * b.most_local)):
            self._turns.popitem(last=False)
        return turn

    def _state_value(self, turn: Turn, spaces: list[int]) -> float:
        return turn.value(spaces, self.board.heights, self._classes.mask_rank)

    def _stop_value(self, spaces: list[int]) -> float:
        from cantstop.solve import kernels

        if self.table is not None:
            return self.table.value(self.board.anchor_index(tuple(spaces)))
        import numpy as np

        return float(kernels.estimated(np.array(spaces, dtype=np.int64), self._kernel_estimate))

    def action(self, state: State) -> Action:
        """The optimal action of a one-player state in CHOOSE or DECIDE phase."""
        if state.num_players != 1:
            raise SolveError(
                f"the optimal bot plays one-player games; this game has {state.num_players} players"
            )
        progress = tuple(state.pieces[0][2:])
        spaces = [r or p for r, p in zip(state.runners[2:], progress, strict=True)]
        turn = self.turn(progress)
        if state.phase is Phase.DECIDE:
            if STOP not in state.legal_actions():
                return ROLL
            rolling = self._state_value(turn, spaces)
            return ROLL if rolling < self._stop_value(spaces) else STOP
        if state.phase is not Phase.CHOOSE:
            raise SolveError(f"the optimal bot acts in CHOOSE or DECIDE, not {state.phase.name}")
        return min(state.options, key=lambda choice: self._after(turn, spaces, choice))

    def _after(self, turn: Turn, spaces: list[int], choice: Choice) -> float:
        moved = list(spaces)
        for column in choice:
            moved[column - 2] += 1
        return self._state_value(turn, moved)
