"""A two-player variant as the solver sees it: positions between turns, their layers, their turns.

A position is, column by column, the progress of the player to move (a) and of the
rival (b); a claimed column holds its owner's piece on top and nothing of the other's
(a claim wipes it). Column i of height h has h² + 2 codes: a·h + b for a, b < h, h² when
the mover has claimed it, h² + 1 when the rival has; a position's index is mixed radix
over the codes. Its value is the mover's chance to win.

A stop either claims a column (claims only grow) or adds progress without a claim, and
a bust hands the same position to the rival (its mirror: a and b swapped everywhere),
so positions are solved in decreasing (claims, total progress), each with its mirror.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from cantstop.core.state import State
from cantstop.core.variant import Variant, variant_spec
from cantstop.solve.board import Board, board_of, steps_taken, variant_of
from cantstop.solve.bundles import PositionCodes, TurnRules
from cantstop.solve.errors import SolveError
from cantstop.solve.layer import ALONE, FINISHED, SOLVED, WON, Layer

if TYPE_CHECKING:
    from cantstop.solve.board import FloatArray

MOST_ANCHORS = 1 << 33  # 64 GiB of values: a board beyond it is refused before any counting
PLAYER_COUNTS = (1, 2)  # what `board_for` solves; three or more players are refused


def duo_key(variant: Variant) -> str:
    """The spec a two-player value file is filed under: the variant's rules, whatever player counts it allows."""
    return variant_spec(variant.with_options(min_players=1, max_players=4))


@dataclass(frozen=True)
class Column:
    """One column's codes: each code's (mover, rival) progress and what a turn does from it."""

    height: int
    skip: bool
    no_stop_on_occupied: bool

    @cached_property
    def pieces(self) -> tuple[tuple[int, int], ...]:
        """(mover's progress, rival's progress) of every code."""
        h = self.height
        return (*((a, b) for a in range(h) for b in range(h)), (h, 0), (0, h))

    def code(self, a: int, b: int) -> int:
        h = self.height
        return h * h if a == h else h * h + 1 if b == h else a * h + b

    def room(self, code: int) -> int:
        """Steps the mover's runner can take: to the top, hopping the rival's piece under `skip`."""
        a, b = self.pieces[code]
        if self.height in (a, b):
            return 0
        return self.height - a - (1 if self.skip and a < b else 0)

    def space(self, code: int, steps: int) -> int:
        """The mover's space after `steps` steps from `code`."""
        a, b = self.pieces[code]
        s = a + steps
        return s + 1 if self.skip and steps and a < b <= s else s

    def handed_on(self, code: int, steps: int) -> int:
        """The code the rival sees after the mover stops with `steps` steps here; -1: no stop allowed."""
        b = self.pieces[code][1]
        s = self.space(code, steps)
        if steps and self.no_stop_on_occupied and s == b:
            return -1
        return self.code(0, self.height) if s == self.height else self.code(b, s)


@dataclass(frozen=True)
class DuoBoard(Board):
    """The solver's view of a two-player variant (see the module docstring for positions)."""

    players = 2  # the value is the mover's chance to win

    @cached_property
    def key(self) -> str:
        return duo_key(self.variant)

    @property
    def closed_most(self) -> int:
        """The most columns closed at a live position: both players' claims."""
        return min(self.columns, 2 * (self.to_win - 1))

    @cached_property
    def column_codes(self) -> tuple[Column, ...]:
        v = self.variant
        return tuple(Column(h, v.skip, v.no_stop_on_occupied) for h in self.heights)

    @cached_property
    def strides(self) -> tuple[int, ...]:
        strides, step = [], 1
        for h in self.heights:
            strides.append(step)
            step *= h * h + 2
        return tuple(strides)

    @property
    def anchors(self) -> int:
        """Every position, finished games included."""
        return math.prod(h * h + 2 for h in self.heights)

    @property
    def symmetric(self) -> bool:
        return False  # mirror pairs across the board are not used with a rival (see docs/solving.md)

    @cached_property
    def _keys(self) -> tuple[tuple[int, int], ...]:
        """Every (claims, total progress) a position has, the most advanced first: the layers."""
        found = {(0, 0)}
        for column in self.column_codes:
            h = column.height
            found = {(c + (a == h or b == h), p + a + b) for c, p in found for a, b in column.pieces}
        return tuple(sorted(found, reverse=True))

    @property
    def layers(self) -> int:
        return len(self._keys)

    @cached_property
    def _census(self) -> dict[tuple[int, int], tuple[int, int, int]]:
        """Per layer key: (positions, live positions, in-turn states of the live ones), by dynamic programming."""
        win, r = self.to_win, self.runners
        # (mover claims, rival claims, total progress, runners placed) -> positions weighted by placements
        ways: dict[tuple[int, int, int, int], int] = {(0, 0, 0, 0): 1}
        for column in self.column_codes:
            h = column.height
            grown: dict[tuple[int, int, int, int], int] = {}
            for (cm, ct, p, k), weight in ways.items():
                for code, (a, b) in enumerate(column.pieces):
                    room = column.room(code)
                    for j, more in ((0, 1), (1, room)):
                        if k + j > r or not more:
                            continue
                        key = (cm + (a == h), ct + (b == h), p + a + b, k + j)
                        grown[key] = grown.get(key, 0) + weight * more
            ways = grown
        census: dict[tuple[int, int], tuple[int, int, int]] = {}
        for (cm, ct, p, k), weight in ways.items():
            live = cm < win and ct < win
            positions, alive, states = census.get((cm + ct, p), (0, 0, 0))
            census[(cm + ct, p)] = (
                positions + weight * (k == 0), alive + weight * (k == 0 and live), states + weight * live
            )
        return census

    @cached_property
    def _counts(self) -> tuple[int, int]:
        census = self._census.values()
        return sum(alive for _, alive, _ in census), sum(states for _, _, states in census)

    @cached_property
    def layer_sizes(self) -> tuple[tuple[int, int], ...]:
        """Per layer (0: the most advanced): (positions, in-turn states the solver evaluates)."""
        return tuple((self._census[key][0], self._census[key][2]) for key in self._keys)

    def memory_bytes(self, threads: int, layers: tuple[int, int]) -> int:
        """As alone, with two turns' worth of in-turn values per thread (a position and its mirror)."""
        return super().memory_bytes(2 * threads, layers)

    def position_codes(self) -> PositionCodes:
        """The kernels' view of every position's turn (see `kernels.turn_of`)."""
        import numpy as np

        from cantstop.solve.kernels import BLOCKED

        n, top = self.columns, max(h * h + 2 for h in self.heights)
        steps = max(self.heights) + 1
        code_room = np.zeros((n, top), np.int64)
        code_weight = np.zeros((n, top, steps), np.int64)
        for i, (column, stride) in enumerate(zip(self.column_codes, self.strides, strict=True)):
            for code in range(len(column.pieces)):
                code_room[i, code] = column.room(code)
                for d in range(column.room(code) + 1):
                    seen = column.handed_on(code, d)
                    code_weight[i, code, d] = BLOCKED if seen < 0 else seen * stride
        radix = np.array([h * h + 2 for h in self.heights], np.int64)
        return PositionCodes(np.array(self.strides, np.int64), radix, code_room, code_weight)

    def layer(self, number: int) -> Layer:
        """The pairs of layer `number`: one position of each, with its mirror, in ascending order."""
        import numpy as np

        claims, progress = self._keys[number]
        index = np.zeros(1, np.int64)
        got_claims = np.zeros(1, np.int64)
        got_progress = np.zeros(1, np.int64)
        after = [sum(max(2 * h - 2, h) for h in self.heights[i + 1 :]) for i in range(self.columns)]
        for i, (column, stride) in enumerate(zip(self.column_codes, self.strides, strict=True)):
            h = column.height
            parts = [
                (index + code * stride, got_claims + (h in (a, b)), got_progress + a + b)
                for code, (a, b) in enumerate(column.pieces)
            ]
            index = np.concatenate([p[0] for p in parts])
            got_claims = np.concatenate([p[1] for p in parts])
            got_progress = np.concatenate([p[2] for p in parts])
            left = self.columns - 1 - i
            keep = (
                (got_claims <= claims) & (got_claims + left >= claims)
                & (got_progress <= progress) & (got_progress + after[i] >= progress)
            )
            index, got_claims, got_progress = index[keep], got_claims[keep], got_progress[keep]
        order = np.sort(index)
        mirror = np.zeros(len(order), np.int64)
        mover = np.zeros(len(order), np.int64)
        rival = np.zeros(len(order), np.int64)
        # In-turn states of the position's turn and of its mirror's: sums of products of rooms.
        sums = [[np.ones(len(order))] + [np.zeros(len(order)) for _ in range(self.runners)] for _ in range(2)]
        for column, stride in zip(self.column_codes, self.strides, strict=True):
            h = column.height
            code = order // stride % (h * h + 2)
            swapped = np.array([column.code(b, a) for a, b in column.pieces], np.int64)
            rooms = np.array([column.room(c) for c in range(len(column.pieces))], np.float64)
            mirror += swapped[code] * stride
            mover += code == h * h
            rival += code == h * h + 1
            for side, codes in enumerate((code, swapped[code])):
                for k in range(self.runners, 0, -1):  # elementary symmetric sums of the rooms
                    sums[side][k] += sums[side][k - 1] * rooms[codes]
        states = [np.sum(s, axis=0) for s in sums]
        kind = np.full(len(order), SOLVED, np.int8)
        kind[order == mirror] = ALONE
        kind[mover >= self.to_win] = WON
        kind[rival >= self.to_win] = FINISHED
        keep = (order <= mirror) | (kind == FINISHED) | (kind == WON)
        finished = (kind == FINISHED) | (kind == WON)
        mirror = np.where(finished, order, mirror)
        work = np.where(kind == SOLVED, states[0] + states[1], np.where(kind == ALONE, states[0], 0.0))
        return Layer(number, order[keep], kind[keep], mirror[keep], work[keep], pairs=True)

    def solve_chunk(
        self, layer: Layer, start: int, stop: int, values: FloatArray, rules: TurnRules, threads: int
    ) -> FloatArray:
        from cantstop.solve import kernels

        found: FloatArray = kernels.solve_pairs(
            layer.order[start:stop], layer.kind[start:stop], layer.mirror[start:stop], values, rules,
            self.codes, self.most_local, threads,
        )
        return found

    def position_index(self, state: State) -> int:
        """The index of the position whose turn `state` is in (the player to move first)."""
        me = state.seat
        other = 1 - me
        index = 0
        for i, (column, stride) in enumerate(zip(self.column_codes, self.strides, strict=True)):
            c = i + 2
            owner = state.claimed[c]
            a = column.height if owner == me else 0 if owner == other else state.pieces[me][c]
            b = column.height if owner == other else 0 if owner == me else state.pieces[other][c]
            index += column.code(a, b) * stride
        return index

    def parse_position(self, text: str) -> int:
        """The index of the position written `text`: the mover's progress per column and the rival's,
        joined by '/' ('0.1.0.2.0/1.0.0.0.0'). Raises SolveError naming what is wrong."""
        mover, slash, rival = text.partition("/")
        if not slash:
            zeros = ".".join("0" for _ in self.heights)
            raise SolveError(f"{text!r}: give the mover's and the rival's progress joined by '/', e.g. {zeros}/{zeros}")
        progress = self.parse_progress(mover), self.parse_progress(rival)
        try:
            return self.index_of(*progress)
        except SolveError as error:
            raise SolveError(f"{text!r}: {error}") from None

    def turn_position(self, state: State) -> tuple[int, list[int]]:
        """The index of the position the turn of `state` started from (the mover's view) and the
        steps taken so far in each column."""
        return self.position_index(state), steps_taken(state)

    def bust_index(self, index: int) -> int:
        """A bust hands the same position to the rival: its mirror."""
        return self.mirror_index(index)

    def mirror_index(self, index: int) -> int:
        total = 0
        for column, stride in zip(self.column_codes, self.strides, strict=True):
            code = index // stride % (column.height**2 + 2)
            a, b = column.pieces[code]
            total += column.code(b, a) * stride
        return total

    def describe_position(self, index: int) -> str:
        """'mover a.b.c / rival d.e.f' for a position index."""
        codes = [index // s % (col.height**2 + 2) for s, col in zip(self.strides, self.column_codes, strict=True)]
        pieces = [col.pieces[code] for code, col in zip(codes, self.column_codes, strict=True)]
        return ".".join(str(a) for a, _ in pieces) + " / " + ".".join(str(b) for _, b in pieces)

    def index_of(self, mover: tuple[int, ...], rival: tuple[int, ...]) -> int:
        """The index of a position given each player's progress per column (the top: claimed)."""
        if len(mover) != self.columns or len(rival) != self.columns:
            raise SolveError(f"give {self.columns} numbers per player, one per column")
        index = 0
        for column, stride, a, b in zip(self.column_codes, self.strides, mover, rival, strict=True):
            h = column.height
            if not (0 <= a <= h and 0 <= b <= h) or (a == h and b) or (b == h and a):
                raise SolveError(
                    f"{a} and {b} are not a column of height {h}: each 0..{h}, and beside a "
                    "claimed column (its height) the other player's progress is 0"
                )
            index += column.code(a, b) * stride
        return index


def board_for(spec_or_variant: str | Variant, players: int = 1) -> Board:
    """The solver's board of a variant for `players` players, refused clearly when it cannot be solved."""
    if players not in PLAYER_COUNTS:
        raise SolveError(
            f"the exact solver solves one- and two-player games, not {players} players "
            "(the positions of three or more players do not fit: see docs/solving.md)"
        )
    if players == 1:
        return board_of(spec_or_variant)
    variant = variant_of(spec_or_variant)
    if why := variant.players_text(2):
        # Outside min..max_players an option mends it; a game of two that could never end needs a lower to_win.
        mend = "add +max_players=2 (or +min_players=2)" if variant.most_players == variant.max_players else "two players need a lower to_win there"
        raise SolveError(f"{why}; {mend}")
    board = DuoBoard(variant)
    if board.anchors > MOST_ANCHORS:
        raise SolveError(
            f"{board.key} is too large to solve for two players: {board.anchors:,} positions, "
            f"the solver takes at most {MOST_ANCHORS:,} (a value file of {MOST_ANCHORS * 8 >> 30} GiB); "
            "try shorter columns, e.g. classic+heights=1.1.2.2.2.3.2.2.2.1.1"
        )
    return board
