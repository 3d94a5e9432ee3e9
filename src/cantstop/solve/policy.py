"""Play from position values: the value of every in-turn state of a turn.

For the position a turn started from, one kernel pass at the bust's worth gives every
in-turn state's value after its decision; a choice leads to the state of least value,
and rolling on beats stopping exactly when that value is below the stop's. Alone the
values are expected turns and a bust is worth the anchor's own value; against a
rival they are the mover's chance of losing and a bust is worth the rival's chance
of winning from the same position (its mirror).

The values come from a solved board's value file (optimal play), or alone from a fitted estimate
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
from typing import TYPE_CHECKING

from cantstop.core.choices import Choice
from cantstop.core.state import ROLL, STOP, Action, Phase, State
from cantstop.core.variant import Variant
from cantstop.solve.board import Board
from cantstop.solve.bundles import Estimate, TurnGraph, TurnRules
from cantstop.solve.duo import board_for
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
    graph: TurnGraph

    @property
    def stops(self) -> npt.NDArray[np.float64]:
        """What stopping in each in-turn state is worth."""
        return self.graph.stops

    def number(self, taken: Sequence[int], mask_rank: npt.NDArray[np.int64]) -> int:
        """The number of the in-turn state with `taken[c]` steps taken in column index c.

        `mask_rank` is the board's (`TurnRules.mask_rank`) the turn was laid out with.
        """
        mask, number, stride = 0, 0, 1
        for i, steps in enumerate(taken):
            if steps:
                mask |= 1 << i
                number += (steps - 1) * stride
                stride *= int(self.graph.room[i])
        return number + int(self.graph.offsets[mask_rank[mask]])

    def after(self, number: int) -> float:
        """The value of in-turn state `number` after its decision, at the bust's worth x."""
        return float(self.graph.best_a[number] + self.graph.best_b[number] * self.x)


class Policy:
    """The optimal policy of a solved board (a complete value file), or alone the best turns against an estimate."""

    def __init__(self, board: Board, value_file: ValueFile | None, estimate: Estimate | None = None) -> None:
        """Raises SolveError when the value file is only partly solved (the message says how to finish it)."""
        if value_file is not None and not value_file.header.complete:
            flag = "" if board.players == 1 else f" --players {board.players}"
            raise SolveError(
                f"the value file of {board.key} is only partly solved ({value_file.header.layers_done} of "
                f"{value_file.header.layers} layers): run `cantstop solve '{board.key}'{flag}` to finish it"
            )
        if (value_file is None) == (estimate is None):
            raise ValueError("a policy reads a value file or an estimate, one of them")
        self.board = board
        self.value_file = value_file
        self._estimate = estimate
        self._turns: OrderedDict[int, Turn] = OrderedDict()

    @staticmethod
    def estimated(board: Board, estimate: Estimate) -> Policy:
        """Exact turns against fitted anchor values (see `kernels.estimated` for `estimate`)."""
        return Policy(board, None, estimate)

    @staticmethod
    def load(variant: Variant, path: Path | None = None, players: int = 1) -> Policy:
        """The optimal policy of `variant` for `players` from its value file (by default the one in
        the data folder). Raises SolveError when the board cannot be solved for that many players,
        is not solved, or its file is refused (`ValueFile.open`, `Policy`)."""
        board = board_for(variant, players)
        path = path or default_path(board)
        if not path.exists():
            flag = "" if players == 1 else f" --players {players}"
            raise SolveError(
                f"{board.key} is not solved for {players} player{'s' * (players > 1)} (no value file at "
                f"{path}): run `cantstop solve {board.key}{flag}`"
            )
        return Policy(board, ValueFile.open(path, board))

    @cached_property
    def _rules(self) -> TurnRules:
        return self.board.rules()

    @cached_property
    def _values(self) -> npt.NDArray[np.float64]:
        import numpy as np

        return np.asarray(self.value_file.values) if self.value_file is not None else np.zeros(1)

    def value(self, progress: tuple[int, ...]) -> float:
        """Alone: expected turns to finish from an anchor (0 once the game is won)."""
        if self.value_file is not None:
            return self.value_file.value(self.board.anchor_index(progress))
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
        masks = rules.runner_masks
        graph = kernels.new_graph(b.columns, len(masks), b.most_local)
        weights = np.empty((b.columns, b.codes.code_weight.shape[2]), np.int64)
        kernels.turn_of(index, b.codes, graph.room, weights)
        kernels.layout(graph.room, masks, graph.offsets)
        values = self._values
        if self._estimate is not None:  # alone, the turn's own anchor: the fixed point against the estimated stops
            progress = np.array(b.progress(index), dtype=np.int64)
            kernels.fill_estimated_stops(progress, graph, self._estimate, masks)
            start = max(
                kernels.estimated(progress, self._estimate), kernels.neighbour_bound(graph, rules.mask_rank)
            )
            x, _ = kernels.newton_alone(graph, start, rules, ESTIMATE_TOLERANCE)
        else:
            kernels.fill_stops(graph, weights, values, masks)
            x = float(values[b.bust_index(index)])
            kernels.turn_pass(graph, x, rules)
        turn = Turn(x, graph)
        self._turns[index] = turn
        if len(self._turns) > max(4, _TURNS_BYTES // (24 * b.most_local)):
            self._turns.popitem(last=False)
        return turn

    @property
    def rules(self) -> TurnRules:
        """What the kernels read of the board's rolls."""
        return self._rules

    def locate(self, state: State) -> tuple[int, list[int]]:
        """The index of the position whose turn `state` is in, and the steps taken in each column."""
        return self.board.turn_position(state)

    def settled(self, index: int) -> Turn:
        """The turn from `index` with every value at the turn's own x (an analysis reads them all).

        Against an estimate, Newton's last pass ran at the x before the one it returned, so
        a state's value and its decision can lag x by the tolerance; one more pass settles
        them. From a value file x is the file's and the turn is settled already.
        """
        turn = self.turn(index)
        if self._estimate is None:
            return turn
        import numpy as np

        from cantstop.solve import kernels

        graph = turn.graph._replace(best_a=np.empty_like(turn.graph.best_a), best_b=np.empty_like(turn.graph.best_b))
        kernels.turn_pass(graph, turn.x, self._rules)
        return Turn(turn.x, graph)

    def _after(self, turn: Turn, taken: list[int], choice: Choice) -> float:
        moved = list(taken)
        for column in choice:
            moved[column - 2] += 1
        return turn.after(turn.number(moved, self._rules.mask_rank))

    def action(self, state: State) -> Action:
        """The optimal action of a state in CHOOSE or DECIDE phase, for the board's player count."""
        if state.num_players != self.board.players:
            raise SolveError(
                f"this value file is for {self.board.players}-player games; this game has {state.num_players} players"
            )
        index, taken = self.locate(state)
        turn = self.turn(index)
        if state.phase is Phase.DECIDE:
            if STOP not in state.legal_actions():
                return ROLL
            number = turn.number(taken, self._rules.mask_rank)
            return ROLL if turn.after(number) < turn.stops[number] else STOP
        if state.phase is not Phase.CHOOSE:
            raise SolveError(f"the optimal bot acts in CHOOSE or DECIDE, not {state.phase.name}")
        return min(state.options, key=lambda choice: self._after(turn, taken, choice))
