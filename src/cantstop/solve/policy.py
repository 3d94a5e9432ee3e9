"""Play from position values: the value of every in-turn state of a turn.

For the position a turn started from, one kernel pass at the bust's worth gives every
in-turn state's value after its decision; a choice leads to the state of least value,
and rolling on beats stopping exactly when that value is below the stop's. Alone the
values are expected turns and a bust is worth the anchor's own value; against a
rival they are the mover's chance of losing and a bust is worth the rival's chance
of winning from the same position (its mirror).

The values come from a solved table (optimal play), or alone from a fitted estimate
(`Policy.estimated`): then the turn is still optimised exactly, against the
estimate's values of the anchors a stop reaches, with the turn's own anchor worth
the fixed point x = 1 + W(x) that Newton's method finds, as the solver does.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cantstop.core.choices import Choice
from cantstop.core.state import ROLL, STOP, Action, Phase, State
from cantstop.core.variant import Variant
from cantstop.solve.board import Board
from cantstop.solve.duo import DuoBoard, board_for
from cantstop.solve.errors import SolveError
from cantstop.solve.value_file import ValueFile, default_path

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
    """The in-turn values of one position: state number -> a + b·x at the bust's worth x."""

    x: float
    room: npt.NDArray[np.int64]
    best_a: npt.NDArray[np.float64]
    best_b: npt.NDArray[np.float64]
    stops: npt.NDArray[np.float64]
    offsets: npt.NDArray[np.int64]

    def number(self, taken: Sequence[int], mask_rank: npt.NDArray[np.int64]) -> int:
        """The number of the in-turn state with `taken[c]` steps taken in column index c.

        `mask_rank` is the roll classes' (`RollClasses.mask_rank`) the turn was laid out with.
        """
        mask, number, stride = 0, 0, 1
        for i, steps in enumerate(taken):
            if steps:
                mask |= 1 << i
                number += (steps - 1) * stride
                stride *= int(self.room[i])
        return number + int(self.offsets[mask_rank[mask]])

    def after(self, number: int) -> float:
        """The value of in-turn state `number` after its decision, at the bust's worth x."""
        return float(self.best_a[number] + self.best_b[number] * self.x)


class Policy:
    """The optimal policy of a solved board (a complete table), or alone the best turns against an estimate."""

    def __init__(self, board: Board, table: ValueFile | None, estimate: tuple[Any, ...] | None = None) -> None:
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
        self._turns: OrderedDict[int, Turn] = OrderedDict()

    @staticmethod
    def estimated(board: Board, estimate: tuple[Any, ...]) -> Policy:
        """Exact turns against fitted anchor values (see `kernels.estimated` for `estimate`)."""
        return Policy(board, None, estimate)

    @staticmethod
    def load(variant: Variant, path: Path | None = None, players: int = 1) -> Policy:
        board = board_for(variant, players)
        path = path or default_path(board)
        if not path.exists():
            flag = "" if players == 1 else f" --players {players}"
            raise SolveError(
                f"{board.key} is not solved for {players} player{'s' * (players > 1)} (no table at "
                f"{path}): run `cantstop solve {board.key}{flag}`"
            )
        return Policy(board, ValueFile.open(path, board))

    @cached_property
    def _rules(self) -> tuple[Any, ...]:
        return self.board.rules()

    @property
    def mask_rank(self) -> npt.NDArray[np.int64]:
        """The roll classes' rank of each runner mask: what `Turn.number` reads."""
        rank: npt.NDArray[np.int64] = self._rules[3]
        return rank

    @property
    def rules(self) -> tuple[Any, ...]:
        """What the kernels read of the board's rolls (`RollClasses.rules`)."""
        return self._rules

    @cached_property
    def _kernel_turns(self) -> tuple[Any, ...]:
        return self.board.turns()

    @cached_property
    def _values(self) -> npt.NDArray[np.float64]:
        import numpy as np

        return np.asarray(self.table.values) if self.table is not None else np.zeros(1)

    def value(self, progress: tuple[int, ...]) -> float:
        """Alone: expected turns to finish from an anchor (0 once the game is won)."""
        if self.table is not None:
            return self.table.value(self.board.anchor_index(progress))
        return self.turn(self.board.anchor_index(progress)).x

    def turn(self, index: int) -> Turn:
        """The in-turn values of the turn from position `index`, kept for the turn's later decisions."""
        turn = self._turns.get(index)
        if turn is not None:
            self._turns.move_to_end(index)
            return turn
        import numpy as np

        from cantstop.solve import kernels

        b, rules = self.board, self._rules
        masks, mask_rank = rules[2], rules[3]
        room = np.empty(b.columns, np.int64)
        weights = np.empty((b.columns, self._kernel_turns[3].shape[2]), np.int64)
        best_a, best_b, stops = (np.empty(b.most_local, np.float64) for _ in range(3))
        offsets = np.empty(len(masks) + 1, np.int64)
        kernels.turn_of(index, self._kernel_turns, room, weights)
        kernels.layout(room, masks, offsets)
        values = self._values
        if self.table is None:  # alone, the turn's own anchor: the fixed point against the estimated stops
            progress = np.array(b.progress(index), dtype=np.int64)
            kernels.fill_estimated_stops(progress, room, self._estimate, masks, offsets, stops)
            start = max(
                kernels.estimated(progress, self._estimate), kernels.neighbour_bound(room, stops, mask_rank, offsets)
            )
            x, _ = kernels.newton_alone(room, start, rules, stops, best_a, best_b, offsets, ESTIMATE_TOLERANCE)
        else:
            kernels.fill_stops(room, weights, values, masks, offsets, stops)
            # Alone a bust costs the anchor's value again; with a rival it hands the rival the mirror.
            x = float(values[index] if b.players == 1 else values[self._duo.mirror_index(index)])
            kernels.turn_pass(room, x, rules, stops, best_a, best_b, offsets)
        turn = Turn(x, room, best_a, best_b, stops, offsets)
        self._turns[index] = turn
        if len(self._turns) > max(4, _TURNS_BYTES // (24 * b.most_local)):
            self._turns.popitem(last=False)
        return turn

    def settled(self, index: int) -> Turn:
        """The turn from `index` with every value at the turn's own x (an analysis reads them all).

        Against an estimate, Newton's last pass ran at the x before the one it returned, so
        a state's value and its decision can lag x by the tolerance; one more pass settles
        them. From a table x is the table's and the turn is settled already.
        """
        turn = self.turn(index)
        if self.table is not None:
            return turn
        import numpy as np

        from cantstop.solve import kernels

        best_a, best_b = np.empty_like(turn.best_a), np.empty_like(turn.best_b)
        kernels.turn_pass(turn.room, turn.x, self._rules, turn.stops, best_a, best_b, turn.offsets)
        return Turn(turn.x, turn.room, best_a, best_b, turn.stops, turn.offsets)

    @property
    def _duo(self) -> DuoBoard:
        assert isinstance(self.board, DuoBoard)
        return self.board

    def _after(self, turn: Turn, taken: list[int], choice: Choice) -> float:
        moved = list(taken)
        for column in choice:
            moved[column - 2] += 1
        return turn.after(turn.number(moved, self._rules[3]))

    def locate(self, state: State) -> tuple[int, list[int]]:
        """The index of the turn's position and the steps taken so far in each column."""
        b = self.board
        me = state.seat
        if isinstance(b, DuoBoard):
            rival = state.pieces[1 - me]
            taken = [
                0 if not r else r - p - (1 if b.variant.skip and p < t < r else 0)
                for r, p, t in zip(state.runners[2:], state.pieces[me][2:], rival[2:], strict=True)
            ]
            return b.position_index(state), taken
        progress = tuple(state.pieces[0][2:])
        taken = [r - p if r else 0 for r, p in zip(state.runners[2:], progress, strict=True)]
        return b.anchor_index(progress), taken

    def action(self, state: State) -> Action:
        """The optimal action of a state in CHOOSE or DECIDE phase, for the board's player count."""
        if state.num_players != self.board.players:
            raise SolveError(
                f"this table is for {self.board.players}-player games; this game has {state.num_players} players"
            )
        index, taken = self.locate(state)
        turn = self.turn(index)
        if state.phase is Phase.DECIDE:
            if STOP not in state.legal_actions():
                return ROLL
            number = turn.number(taken, self._rules[3])
            return ROLL if turn.after(number) < turn.stops[number] else STOP
        if state.phase is not Phase.CHOOSE:
            raise SolveError(f"the optimal bot acts in CHOOSE or DECIDE, not {state.phase.name}")
        return min(state.options, key=lambda choice: self._after(turn, taken, choice))
