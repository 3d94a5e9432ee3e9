"""A brute-force solution written apart from the solver, to check it.

Plain value iteration through the core's own moves: for each anchor, from the most
advanced down, iterate x <- 1 + (the best expected value of a turn whose bust is worth
x) until x stops changing. Nothing is shared with cantstop.solve.
"""

from __future__ import annotations

import itertools

from cantstop.core.state import ROLL, STOP, Phase, State, make_state
from cantstop.core.variant import Variant

Anchor = tuple[int, ...]


class _Turn:
    """One anchor's turn, its moves found through the core once and kept."""

    def __init__(self, variant: Variant, anchor: Anchor, value: dict[Anchor, float]) -> None:
        self.catalog = variant.catalog
        self.value = value
        size = 2 + len(variant.heights)
        self.start = make_state(variant, ((0, 0, *anchor),), (0,) * size, 0, Phase.ROLL)
        self.graph: dict[tuple[int, ...], list[tuple[int, list[State]]]] = {}

    def moves(self, state: State) -> list[tuple[int, list[State]]]:
        """Each roll's weight and the DECIDE states its choices lead to (none: a bust)."""
        if state.runners not in self.graph:
            found = []
            for dice, weight in zip(self.catalog.outcomes, self.catalog.weights, strict=True):
                after = state.roll(dice)
                options = [after.play(c) for c in after.options] if after.phase is Phase.CHOOSE else []
                found.append((weight, options))
            self.graph[state.runners] = found
        return self.graph[state.runners]

    def stop_value(self, state: State) -> float:
        stopped = state.play(STOP)
        return 0.0 if stopped.is_over else self.value[tuple(stopped.pieces[0][2:])]

    def roll_value(self, state: State, x: float, memo: dict[tuple[int, ...], float]) -> float:
        if state.runners not in memo:
            total = 0.0
            for weight, options in self.moves(state):
                if not options:
                    total += weight * x
                    continue
                total += weight * min(
                    min(self.stop_value(o), self.roll_value(o.play(ROLL), x, memo)) for o in options
                )
            memo[state.runners] = total / self.catalog.total
        return memo[state.runners]


def brute_force(variant: Variant, tolerance: float = 1e-14) -> dict[Anchor, float]:
    """Expected turns to finish from every anchor (progress per column, top = claimed)."""
    anchors = sorted(
        itertools.product(*(range(h + 1) for h in variant.heights)), key=sum, reverse=True
    )
    value: dict[Anchor, float] = {}
    for anchor in anchors:
        claimed = sum(p == h for p, h in zip(anchor, variant.heights, strict=True))
        if claimed >= variant.to_win:
            value[anchor] = 0.0
            continue
        turn = _Turn(variant, anchor, value)
        x = 0.0
        while True:
            nxt = 1.0 + turn.roll_value(turn.start, x, {})
            if abs(nxt - x) <= tolerance * nxt:
                break
            x = nxt
        value[anchor] = nxt
    return value
