"""A straightforward dict-based Can't Stop simulator: the yardstick the engine is measured against.

Written the way most hobby implementations are: a dict of column -> space per player,
the three pairings recomputed and tried on a copy of the runners after every roll.
It follows the same rules as the engine (doubles, tops, claims, "both sums when both
fit, else either"), so both play identical games from identical dice.
"""

from __future__ import annotations

HEIGHTS = dict(zip(range(2, 13), (3, 5, 7, 9, 11, 13, 11, 9, 7, 5, 3)))


class NaiveGame:
    def __init__(self, players: int, first: int = 0) -> None:
        self.progress: list[dict[int, int]] = [{} for _ in range(players)]
        self.claimed: dict[int, int] = {}  # column -> owner
        self.runners: dict[int, int] = {}  # column -> space, this turn
        self.player = first
        self.turns = 0
        self.winner: int | None = None

    def fits(self, sums: list[int]) -> bool:
        runners = dict(self.runners)
        for s in sums:
            if s in self.claimed:
                return False
            if s in runners:
                space = runners[s] + 1
            elif len(runners) < 3:
                space = self.progress[self.player].get(s, 0) + 1
            else:
                return False
            if space > HEIGHTS[s]:
                return False
            runners[s] = space
        return True

    def options(self, dice: tuple[int, ...]) -> list[tuple[int, ...]]:
        a, b, c, d = dice
        found: list[tuple[int, ...]] = []
        for x, y in ((a + b, c + d), (a + c, b + d), (a + d, b + c)):
            if self.fits([x, y]):
                candidates = [(min(x, y), max(x, y))]
            else:
                candidates = [(s,) for s in {x, y} if self.fits([s])]
            for option in candidates:
                if option not in found:
                    found.append(option)
        return sorted(found)

    def advance(self, option: tuple[int, ...]) -> None:
        for s in option:
            self.runners[s] = self.runners.get(s, self.progress[self.player].get(s, 0)) + 1

    def bust(self) -> None:
        self.runners = {}
        self._next()

    def stop(self) -> None:
        mine = self.progress[self.player]
        for column, space in self.runners.items():
            mine[column] = space
            if space == HEIGHTS[column]:
                self.claimed[column] = self.player
                for p, other in enumerate(self.progress):
                    if p != self.player:
                        other.pop(column, None)
        self.runners = {}
        if sum(1 for owner in self.claimed.values() if owner == self.player) >= 3:
            self.turns += 1
            self.winner = self.player
            return
        self._next()

    def _next(self) -> None:
        self.turns += 1
        self.player = (self.player + 1) % len(self.progress)
