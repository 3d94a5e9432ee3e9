"""A brute-force two-player solution written apart from the solver, to check it.

Plain value iteration over every position at once, through the core's own moves: each
sweep re-evaluates every position's whole turn (the mover maximises its chance to win;
a bust or a stop hands the game to the rival, worth one minus the rival's chance) from
the values of the last sweep, until no value moves. Nothing is shared with cantstop.solve.
"""

from __future__ import annotations

from cantstop.core.state import ROLL, STOP, Phase, State, new_game
from cantstop.core.variant import Variant

Position = tuple[tuple[int, ...], tuple[int, ...]]  # (mover's pieces, rival's pieces), columns 2..


def _key(state: State) -> Position:
    me = state.seat
    return tuple(state.pieces[me][2:]), tuple(state.pieces[1 - me][2:])


class _Turn:
    """One position's turn: its moves found through the core once and kept."""

    def __init__(self, start: State) -> None:
        self.start = start
        self.catalog = start.variant.catalog
        self.graph: dict[tuple[int, ...], list[tuple[int, State | None, list[State]]]] = {}

    def moves(self, state: State) -> list[tuple[int, State | None, list[State]]]:
        """Each roll's weight, the state a bust hands on (None if the roll offers choices), its choices' states."""
        if state.runners not in self.graph:
            found = []
            for dice, weight in zip(self.catalog.outcomes, self.catalog.weights, strict=True):
                after = state.roll(dice)
                if after.phase is Phase.CHOOSE:
                    found.append((weight, None, [after.play(c) for c in after.options]))
                else:
                    found.append((weight, after, []))
            self.graph[state.runners] = found
        return self.graph[state.runners]

    def ends(self) -> set[State]:
        """Every position the turn can hand on (busts and stops), games over included."""
        seen: set[tuple[int, ...]] = set()
        found: set[State] = set()
        todo = [self.start]
        while todo:
            state = todo.pop()
            if state.runners in seen:
                continue
            seen.add(state.runners)
            for _, bust, options in self.moves(state):
                if bust is not None:
                    found.add(bust)
                for option in options:
                    if STOP in option.legal_actions():
                        found.add(option.play(STOP))
                    todo.append(option.play(ROLL))
        return found

    def value(self, chance: dict[Position, float]) -> float:
        """The mover's best chance to win, with every other position worth `chance`."""
        memo: dict[tuple[int, ...], float] = {}

        def handed(state: State) -> float:
            return 1.0 if state.is_over else 1.0 - chance[_key(state)]

        def rolled(state: State) -> float:
            if state.runners not in memo:
                total = 0.0
                for weight, bust, options in self.moves(state):
                    if bust is not None:
                        total += weight * handed(bust)
                        continue
                    best = 0.0
                    for option in options:
                        best = max(best, rolled(option.play(ROLL)))
                        if STOP in option.legal_actions():
                            best = max(best, handed(option.play(STOP)))
                    total += weight * best
                memo[state.runners] = total / self.catalog.total
            return memo[state.runners]

        return rolled(self.start)


def brute_force_duo(variant: Variant, tolerance: float = 1e-13) -> dict[Position, float]:
    """The mover's chance to win from every position two players can reach from the empty board."""
    start = new_game(variant, 2)
    turns: dict[Position, _Turn] = {}
    todo = [start]
    while todo:
        state = todo.pop()
        if state.is_over or _key(state) in turns:
            continue
        turns[_key(state)] = turn = _Turn(state)
        todo.extend(turn.ends())
    chance = dict.fromkeys(turns, 0.5)
    while True:
        change = 0.0
        for position, turn in turns.items():
            new = turn.value(chance)
            change = max(change, abs(new - chance[position]))
            chance[position] = new
        if change <= tolerance:
            return chance
