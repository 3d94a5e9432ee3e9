"""A one-player variant as the solver sees it: checked, measured and turned into flat arrays.

Everything here is plain Python except the arrays the kernels read (`turn_rules`,
`Board.position_codes`, `Board.layer`), built with numpy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from itertools import combinations
from typing import TYPE_CHECKING

from cantstop.core.errors import VariantError
from cantstop.core.state import State
from cantstop.core.variant import Variant, preset, variant_spec
from cantstop.solve.bundles import PositionCodes, TurnRules
from cantstop.solve.errors import SolveError
from cantstop.solve.layer import FINISHED, MIRRORED, SOLVED, Layer
from cantstop.solve.value_file import HEADER_BYTES

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    IntArray = npt.NDArray[np.int64]
    FloatArray = npt.NDArray[np.float64]


# Fields that change nothing when a player is alone: no rival's piece to skip or share.
_SOLITAIRE_NEUTRAL = {"skip": False, "no_stop_on_occupied": False}


def solver_key(variant: Variant) -> str:
    """The spec a value file is filed under: the variant's one-player rules and nothing else."""
    alone = variant.with_options(min_players=1, max_players=1, **_SOLITAIRE_NEUTRAL)
    return variant_spec(alone)


@dataclass(frozen=True)
class Board:
    """The solver's view of a one-player variant.

    Column i (0-based; column number i + 2) has progress 0..heights[i], the top
    meaning claimed. An anchor's index is mixed radix: sum of progress[i] * strides[i].
    """

    variant: Variant
    # The variant's numbers as the kernels read them (plain integers), set from `variant`.
    heights: tuple[int, ...] = field(init=False, compare=False)
    columns: int = field(init=False, compare=False)
    runners: int = field(init=False, compare=False)
    to_win: int = field(init=False, compare=False)
    step_limit: int = field(init=False, compare=False)  # most steps in one turn; -1: no limit

    players = 1  # the value is the expected turns to finish

    def __post_init__(self) -> None:
        v = self.variant
        numbers = {
            "heights": v.heights,
            "columns": len(v.heights),
            "runners": v.runners,
            "to_win": v.to_win,
            "step_limit": -1 if v.step_limit is None else v.step_limit,
        }
        for name, value in numbers.items():
            object.__setattr__(self, name, value)  # a frozen dataclass's own fields, once

    @property
    def closed_most(self) -> int:
        """The most columns closed at a live anchor: its claims."""
        return self.to_win - 1

    @property
    def symmetric(self) -> bool:
        """Is the board its own mirror image (column c as column 2·faces + 2 - c)?

        Plain dice are: face f as faces + 1 - f maps every roll to one as likely and
        every sum to its mirror. A wild face breaks it (1 does not mirror to 1).
        """
        return self.heights == self.heights[::-1] and self.variant.wild_dice == 0

    @cached_property
    def key(self) -> str:
        return solver_key(self.variant)

    @cached_property
    def strides(self) -> tuple[int, ...]:
        strides, step = [], 1
        for h in self.heights:
            strides.append(step)
            step *= h + 1
        return tuple(strides)

    @property
    def anchors(self) -> int:
        """Every anchor, finished games included (they hold 0)."""
        return math.prod(h + 1 for h in self.heights)

    @property
    def layers(self) -> int:
        """Layers by total progress: 0 .. sum of heights."""
        return sum(self.heights) + 1

    @cached_property
    def _counts(self) -> tuple[int, int]:
        """(live anchors, in-turn roll states over live anchors), by dynamic programming.

        A live anchor has fewer than to_win claims; its in-turn states are the runner
        placements: at most `runners` columns, each on a space above the anchor.
        """
        r, win = self.runners, self.to_win
        ways: dict[tuple[int, int], int] = {(0, 0): 1}  # (claims, runners) -> weighted count
        for h in self.heights:
            grown: dict[tuple[int, int], int] = {}
            for (claims, k), count in ways.items():
                for space in range(h + 1):
                    if space == h:
                        key = (min(claims + 1, win), k)
                        grown[key] = grown.get(key, 0) + count
                        continue
                    grown[(claims, k)] = grown.get((claims, k), 0) + count
                    if k < r:
                        grown[(claims, k + 1)] = grown.get((claims, k + 1), 0) + count * (h - space)
            ways = grown
        live = sum(v for (claims, k), v in ways.items() if claims < win and k == 0)
        states = sum(v for (claims, _), v in ways.items() if claims < win)
        return live, states

    @property
    def live_anchors(self) -> int:
        return self._counts[0]

    @property
    def states(self) -> int:
        """In-turn states (turn start included) summed over the live anchors."""
        return self._counts[1]

    @cached_property
    def most_local(self) -> int:
        """In-turn states of the empty board's anchor: the largest turn graph."""
        sums = [1] + [0] * self.runners
        for h in self.heights:
            for k in range(self.runners, 0, -1):
                sums[k] += sums[k - 1] * h
        return sum(sums)

    @cached_property
    def layer_sizes(self) -> tuple[tuple[int, int], ...]:
        """Per layer (0: the most advanced): (anchors, in-turn states the solver evaluates).

        The solver evaluates the turns of live anchors, and on a symmetric board only one
        anchor of each mirror pair: (all + palindromes) / 2 of the work, since a pair's two
        anchors have the same rooms. Counted by dynamic programming over the columns (on
        the full board a layer holds up to 2.7 × 10^8 anchors: enumerating is not an option).
        """
        r, win = self.runners, self.to_win
        n = self.columns

        def count(units: list[tuple[int, int]]) -> list[list[int]]:
            # A unit is a column (copies 1) or a mirror pair moving together (copies 2).
            # ways[(deficit, claims, runners)] = anchors weighted by their runner placements.
            ways: dict[tuple[int, int, int], int] = {(0, 0, 0): 1}
            for h, copies in units:
                grown: dict[tuple[int, int, int], int] = {}
                for (deficit, claims, k), weight in ways.items():
                    for room in range(h + 1):
                        placed = [1] if room == 0 else [math.comb(copies, j) * room**j for j in range(copies + 1)]
                        for j, ways_j in enumerate(placed):
                            if k + j > r:
                                break
                            key = (deficit + copies * room, min(claims + (copies if room == 0 else 0), win), k + j)
                            grown[key] = grown.get(key, 0) + weight * ways_j
                ways = grown
            anchors = [0] * self.layers
            work = [0] * self.layers
            for (deficit, claims, k), weight in ways.items():
                if k == 0:
                    anchors[deficit] += weight
                if claims < win:
                    work[deficit] += weight
            return [anchors, work]

        anchors, work = count([(h, 1) for h in self.heights])
        if self.symmetric:
            units = [(self.heights[i], 2) for i in range(n // 2)] + [(self.heights[n // 2], 1)] * (n % 2)
            _, palindromes = count(units)
            work = [(w + p) // 2 for w, p in zip(work, palindromes, strict=True)]
        return tuple(zip(anchors, work, strict=True))

    def memory_bytes(self, threads: int, layers: tuple[int, int]) -> int:
        """Resident memory a solve of `layers` (first, stop) needs at its peak, beyond the value file's pages.

        The value file is memory-mapped (the system pages it in and out). Enumerating a
        layer peaks at about 200 bytes per anchor (measured on the full board's layers
        18 and 24: 7.8 and 46 million anchors, 1.65 and 9.1 GB); numba's compiler and
        the interpreter take about 200 MiB; each thread keeps three floats per in-turn
        state of a turn.
        """
        widest = max(anchors for anchors, _ in self.layer_sizes[layers[0] : layers[1]])
        return 200 * widest + 200 * 2**20 + threads * 24 * self.most_local

    def disk_bytes(self) -> int:
        return HEADER_BYTES + 8 * self.anchors

    def layer(self, number: int) -> Layer:
        """The anchors `number` steps short of every column claimed (layer 0 the most advanced).

        On a symmetric board only one anchor of each mirror pair is solved; the other
        (`kind` MIRRORED) is copied from it when its layer is done.
        """
        import numpy as np

        # Every way to leave `number` steps undone: column by column, keeping the
        # partial totals that the columns still to come can complete.
        index = np.zeros(1, dtype=np.int64)
        short = np.zeros(1, dtype=np.int64)
        after = sum(self.heights)
        for stride, h in zip(self.strides, self.heights, strict=True):
            after -= h
            grown = [(index + (h - d) * stride, short + d) for d in range(min(h, number) + 1)]
            index = np.concatenate([i for i, _ in grown])
            short = np.concatenate([s for _, s in grown])
            keep = (short <= number) & (short + after >= number)
            index, short = index[keep], short[keep]
        order = np.sort(index)
        claims = np.zeros(len(order), dtype=np.int64)
        mirror = np.zeros(len(order), dtype=np.int64)
        sums = [np.ones(len(order))] + [np.zeros(len(order)) for _ in range(self.runners)]
        for stride, h, opposite in zip(self.strides, self.heights, self.strides[::-1], strict=True):
            digit = order // stride % (h + 1)
            claims += digit == h
            mirror += digit * opposite
            room = (h - digit).astype(np.float64)
            for k in range(self.runners, 0, -1):  # elementary symmetric sums of the rooms
                sums[k] += sums[k - 1] * room
        kind = np.where(claims < self.to_win, SOLVED, FINISHED).astype(np.int8)
        if self.symmetric:
            kind[(kind == SOLVED) & (mirror < order)] = MIRRORED
        work = np.where(kind == SOLVED, np.sum(sums, axis=0), 0.0)
        return Layer(number, order, kind, mirror, work)

    def position_codes(self) -> PositionCodes:
        """The kernels' view of every anchor's turn (see `kernels.turn_of`): a column's code is its progress."""
        import numpy as np

        n, top = self.columns, max(self.heights)
        code_room = np.zeros((n, top + 1), np.int64)
        code_weight = np.zeros((n, top + 1, top + 1), np.int64)
        for i, (h, stride) in enumerate(zip(self.heights, self.strides, strict=True)):
            for p in range(h + 1):
                code_room[i, p] = h - p
                code_weight[i, p, : h - p + 1] = [(p + d) * stride for d in range(h - p + 1)]
        radix = np.array([h + 1 for h in self.heights], np.int64)
        return PositionCodes(np.array(self.strides, np.int64), radix, code_room, code_weight)

    @cached_property
    def codes(self) -> PositionCodes:
        return self.position_codes()

    def rules(self) -> TurnRules:
        return turn_rules(self)

    def solve_chunk(
        self, layer: Layer, start: int, stop: int, values: FloatArray, rules: TurnRules, threads: int
    ) -> FloatArray:
        """The values of positions `start:stop` of the layer's order, for `Layer.store`."""
        from cantstop.solve import kernels

        found: FloatArray = kernels.solve_alone(
            layer.order[start:stop], layer.kind[start:stop], values, rules, self.codes, self.most_local, threads
        )
        return found

    def anchor_index(self, progress: tuple[int, ...]) -> int:
        return sum(p * s for p, s in zip(progress, self.strides, strict=True))

    def progress(self, index: int) -> tuple[int, ...]:
        return tuple(index // s % (h + 1) for s, h in zip(self.strides, self.heights, strict=True))

    def parse_position(self, text: str) -> int:
        """The index of the position written `text`: alone, the progress per column joined by
        dots ('0.1.0.2.0'). Raises SolveError naming what is wrong and what is allowed."""
        return self.anchor_index(self.parse_progress(text))

    def parse_progress(self, text: str) -> tuple[int, ...]:
        """'0.1.0.2.0' -> the progress per column, checked against the heights (SolveError if not)."""
        try:
            progress = tuple(int(p) for p in text.split("."))
        except ValueError:
            raise SolveError(
                f"{text!r}: write one whole number per column joined by dots, e.g. "
                + ".".join("0" for _ in self.heights)
            ) from None
        if len(progress) != self.columns or any(not 0 <= p <= h for p, h in zip(progress, self.heights, strict=True)):
            raise SolveError(
                f"{text!r}: give {self.columns} numbers, column by column, each from 0 to its "
                f"height ({'.'.join(map(str, self.heights))})"
            )
        return progress

    def turn_position(self, state: State) -> tuple[int, list[int]]:
        """The index of the position the turn of `state` started from, and the steps taken so far
        in each column (the kernels' in-turn state)."""
        return self.anchor_index(tuple(state.pieces[state.seat][2:])), steps_taken(state)

    def bust_index(self, index: int) -> int:
        """The position whose value a bust from `index` is worth: alone, the same anchor (its
        turns start over)."""
        return index


def steps_taken(state: State) -> list[int]:
    """The steps the player to move has taken in each column this turn (index 0: column 2).

    A step is a move up: under `skip` the spaces holding another player's piece are passed
    over without a step, so the steps are the free spaces between the piece and the runner.
    """
    me = state.seat
    own = state.pieces[me]
    taken = []
    for c in state.variant.columns:
        runner = state.runners[c]
        if not runner:
            taken.append(0)
        elif state.variant.skip:
            others = {row[c] for p, row in enumerate(state.pieces) if p != me}
            taken.append(sum(1 for space in range(own[c] + 1, runner + 1) if space not in others))
        else:
            taken.append(runner - own[c])
    return taken


def variant_of(spec_or_variant: str | Variant) -> Variant:
    """The variant of a spec (a SolveError naming the fault if it is not one), or the variant itself."""
    if not isinstance(spec_or_variant, str):
        return spec_or_variant
    try:
        return preset(spec_or_variant)
    except VariantError as error:
        raise SolveError(str(error)) from None


def board_of(spec_or_variant: str | Variant) -> Board:
    """The solver's board of a variant (or spec), refused clearly when one player cannot play it."""
    variant = variant_of(spec_or_variant)
    if variant.min_players > 1:
        raise SolveError(
            f"the solver solves one-player games, but {variant.name!r} has min_players="
            f"{variant.min_players}; add +min_players=1 (the wild-die, relay and step-limit "
            "rules all fit the solver)"
        )
    return Board(variant)


@lru_cache(maxsize=8)  # a tenth of a second on 11 columns; every layer of a solve asks again
def turn_rules(board: Board) -> TurnRules:
    """What a roll can do on `board` (see `TurnRules`): the rolls of its variant grouped by what
    they offer on every set of columns that can be open at once, or hold every runner."""
    import numpy as np

    from cantstop.fast.tables import choice_table, shape_of

    n, r = board.columns, board.runners
    masks = sorted(
        (m for m in range(1 << n) if m.bit_count() <= r), key=lambda m: (m.bit_count(), m)
    )
    rank = np.full(1 << n, -1, dtype=np.int64)
    rank[masks] = np.arange(len(masks))
    # Keys: full runner sets, and the open columns of any live position.
    full = (1 << n) - 1
    keys = {sum(1 << i for i in cols) for cols in combinations(range(n), r)}
    for missing in range(board.closed_most + 1):
        keys |= {full - sum(1 << i for i in cols) for cols in combinations(range(n), missing)}
    catalog = board.variant.catalog
    total = catalog.total
    # Each roll's sum groups as 0-based columns, and what a group keeps of itself on the open
    # columns of a key, by the key's bits on the group's own columns (at most three): a
    # dictionary lookup per group and key instead of a sort (the wild dice of the Turtles
    # make hundreds of thousands of them).
    rolls = [tuple(tuple(sorted(c - 2 for c in group)) for group in groups) for groups in catalog.groups]
    group_mask = {g: sum(1 << c for c in set(g)) for groups in rolls for g in groups}
    kept_of = {
        g: {sub: tuple(c for c in g if sub >> c & 1) for sub in _submasks(mask)} for g, mask in group_mask.items()
    }
    key_slot = np.full(1 << n, -1, dtype=np.int64)
    slot_start, weights, class_start, group_kind = [0], [], [0], []
    kinds: dict[tuple[int, ...], int] = {}
    shapes: dict[tuple[int, ...], int] = {}
    choice_tables: list[int] = []
    kind_table: list[int] = []
    for slot, key in enumerate(sorted(keys)):
        key_slot[key] = slot
        merged: dict[tuple[tuple[int, ...], ...], int] = {}
        for groups, weight in zip(rolls, catalog.weights, strict=True):
            kept = {kept_of[group][key & group_mask[group]] for group in groups}
            kept.discard(())
            signature = tuple(sorted(kept))
            merged[signature] = merged.get(signature, 0) + weight
        for signature, weight in sorted(merged.items()):
            weights.append(weight / total)
            for group in signature:
                if group not in kinds:
                    kinds[group] = len(kinds)
                    shape = shape_of(group)
                    if shape not in shapes:
                        shapes[shape] = len(choice_tables)
                        choice_tables += choice_table(shape)
                    kind_table.append(shapes[shape])
                group_kind.append(kinds[group])
            class_start.append(len(group_kind))
        slot_start.append(len(weights))
    return TurnRules(
        runners=board.runners,
        step_limit=board.step_limit,
        runner_masks=np.array(masks, dtype=np.int64),
        mask_rank=rank,
        key_slot=key_slot,
        slot_start=np.array(slot_start, dtype=np.int64),
        class_weight=np.array(weights, dtype=np.float64),
        class_start=np.array(class_start, dtype=np.int64),
        group_kind=np.array(group_kind, dtype=np.int64),
        mask_cols=np.array(
            [[i for i in range(n) if m >> i & 1] + [-1] * (max(r, 1) - m.bit_count()) for m in masks],
            dtype=np.int64,
        ).reshape(len(masks), max(r, 1)),
        kind_len=np.array([len(k) for k in kinds], dtype=np.int64),
        kind_cols=np.array([k + (-1,) * (3 - len(k)) for k in kinds], dtype=np.int64).reshape(-1, 3),
        kind_table=np.array(kind_table, dtype=np.int64),
        choice_tables=np.array(choice_tables, dtype=np.int64),
    )


def _submasks(mask: int) -> list[int]:
    """Every mask whose bits are among `mask`'s, itself and 0 included."""
    found, sub = [], mask
    while True:
        found.append(sub)
        if sub == 0:
            return found
        sub = (sub - 1) & mask
