"""The numba passes: one anchor's turn graph evaluated at a bust value, and Newton on it.

In-turn states of an anchor are numbered locally: runner masks in the order of
`RollClasses.runner_masks` (by size, then mask), and within a mask the runners'
spaces above the anchor in mixed radix (the lowest column varies fastest). Every
successor of a state has a higher number, so one pass from the top number down
evaluates the whole turn. A state's value is kept as a + b·x, x the bust value:
b is the chance of busting from there, which Newton's step needs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from cantstop.extras import missing_extra

try:  # first: it sets numba's cache folder, which numba reads when it is imported
    import cantstop.fast  # noqa: F401
except ImportError as error:
    raise missing_extra("fast", "the solver", error) from None

# isort: split
import numba
import numpy as np

F = TypeVar("F", bound=Callable[..., Any])
_jit = cast(Callable[[F], F], numba.njit(cache=True, nogil=True))
_parallel = cast(Callable[[F], F], numba.njit(cache=True, nogil=True, parallel=True))
_range: Any = numba.prange

FINISHED, SOLVED, MIRRORED = 0, 1, 2  # what solve_chunk does with an anchor
NEWTON_STEPS = 100  # a safety net: convergence takes 2 to 5 passes
TOLERANCE = 1e-13  # relative change of x at which the solver's Newton has converged


@_jit
def _successor(
    m: int, here: int, c1: int, c2: int, c3: int, space: Any, progress: Any, room: Any,
    local_stride: Any, offsets: Any, mask_rank: Any, mask_cols: Any,
) -> int:
    """The number of the state reached by stepping columns c1, c2, c3 (-1: none)."""
    m2 = m
    for c in (c1, c2, c3):
        if c >= 0:
            m2 |= 1 << c
    if m2 == m:  # no new runner: same mask, a fixed offset per step
        idx = here
        for c in (c1, c2, c3):
            if c >= 0:
                idx += local_stride[c]
        return int(idx)
    for c in (c1, c2, c3):
        if c >= 0:
            space[c] += 1
    j2 = mask_rank[m2]
    idx = offsets[j2]
    stride = 1
    for t in range(mask_cols.shape[1]):
        i = mask_cols[j2, t]
        if i < 0:
            break
        idx += (space[i] - progress[i] - 1) * stride
        stride *= room[i]
    for c in (c1, c2, c3):
        if c >= 0:
            space[c] -= 1
    return int(idx)


@_jit
def _playable(c: int, steps: int, m: int, left: int, free: Any, steps_left: int) -> bool:
    """Can column c take `steps` steps now (room, the turn's step limit, a runner for it)?"""
    return free[c] >= steps and steps_left >= steps and (m >> c & 1 == 1 or left > 0)


@_jit
def _least(found: bool, va: float, vb: float, a: float, b: float, x: float) -> tuple[bool, float, float]:
    """The better (lesser at x) of the best so far (if found) and a + b·x."""
    if found and va + vb * x <= a + b * x:
        return True, va, vb
    return True, a, b


@_jit
def estimated(space: Any, estimate: Any) -> float:
    """A fitted value of the anchor at `space` (expected turns still needed; 0 once won).

    `estimate` is (worth, knots, settings): worth[i, p] is column i's worth at progress
    p (1 when claimed); the `to_win` best worths count fully and the rest by `spare`
    (settings = [spare, to_win]); knots[0] -> knots[1] maps that total to turns.
    """
    worth, knots, settings = estimate
    spare, to_win = settings[0], int(settings[1])
    total = 0.0
    claims = 0
    for i in range(worth.shape[0]):
        w = worth[i, space[i]]
        total += w
        claims += w >= 1.0
    if claims >= to_win:
        return 0.0
    best = 0.0
    taken = 0
    for _ in range(to_win):  # the to_win largest worths, by selection (n is at most 11 or so)
        top = -1.0
        at = 0
        for i in range(worth.shape[0]):
            if not taken >> i & 1 and worth[i, space[i]] > top:
                top = worth[i, space[i]]
                at = i
        taken |= 1 << at
        best += top
    return _interpolate(best + spare * (total - best), knots[0], knots[1])


@_jit
def _interpolate(u: float, xs: Any, ys: Any) -> float:
    """np.interp(u, xs, ys) for one point (numba's np.interp costs as much as the rest of a state)."""
    last = xs.shape[0] - 1
    if u <= xs[0]:
        return float(ys[0])
    if u >= xs[last]:
        return float(ys[last])
    lo, hi = 0, last
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if xs[mid] <= u:
            lo = mid
        else:
            hi = mid
    return float(ys[lo] + (ys[hi] - ys[lo]) * (u - xs[lo]) / (xs[hi] - xs[lo]))


@_jit
def anchor_value(index: int, space: Any, values: Any, estimate: Any) -> float:
    """The value of the anchor `index` (progress `space`): from the table, or estimated."""
    if estimate[0].shape[0] == 0:
        return float(values[index])
    return estimated(space, estimate)


def exact() -> tuple[Any, Any, Any]:
    """The `estimate` argument that means none: every anchor's value is read from the table."""
    return np.zeros((0, 0)), np.zeros((2, 0)), np.zeros(2)


@_jit
def turn_pass(
    anchor: int, progress: Any, x: float, values: Any, rules: Any, best_a: Any, best_b: Any, offsets: Any,
    estimate: Any, stops: Any, fill: bool,
) -> tuple[float, float, int]:
    """Evaluate the turn from `anchor` with a bust worth `x`.

    Fills best_a/best_b with each in-turn state's value after its decision (the
    better of stopping there and rolling on), offsets with where each runner mask's
    states start; returns the turn start's roll value (a, b) and the state count.
    `stops` holds each state's stop value: read from the table or the estimate when
    `fill`, else kept from an earlier pass over the same anchor (they do not depend on x).
    Choices follow the core's rule: the maximal playable sub-multisets of each sum
    group. A group of one or two sums (every variant but the relay) has a number,
    and its best option is worked out once per state however many rolls share it.
    """
    heights, strides, runners, step_limit, masks, mask_rank, mask_cols, key_slot = rules[:8]
    slot_start, class_weight, class_start, group_len, group_cols, group_pair = rules[8:]
    n = heights.shape[0]
    room = np.empty(n, np.int64)
    open_mask = 0
    for i in range(n):
        room[i] = heights[i] - progress[i]
        if room[i] > 0:
            open_mask |= 1 << i
    total = 0
    for j in range(masks.shape[0]):
        m = masks[j]
        size = 1
        for i in range(n):
            if m >> i & 1:
                size *= room[i]
        offsets[j] = total
        total += size
    offsets[masks.shape[0]] = total
    space = progress.copy()
    free = room.copy()
    cols = np.empty(n, np.int64)
    local_stride = np.zeros(n, np.int64)
    count = np.zeros(n, np.int64)
    ok = np.zeros(8, np.bool_)
    pairs = (n + 1) * (n + 1)
    pair_seen = np.zeros(pairs, np.int64)  # the state number + 1 a pair's entry is for
    pair_found = np.zeros(pairs, np.bool_)
    pair_a = np.zeros(pairs, np.float64)
    pair_b = np.zeros(pairs, np.float64)
    start_a = 0.0
    start_b = 0.0
    for j in range(masks.shape[0] - 1, -1, -1):
        size = offsets[j + 1] - offsets[j]
        if size == 0:
            continue
        m = masks[j]
        k = 0
        stride = 1
        for i in range(n):
            if m >> i & 1:
                cols[k] = i
                k += 1
                local_stride[i] = stride
                stride *= room[i]
        left = runners - k
        slot = key_slot[m] if left == 0 else key_slot[open_mask]
        for local in range(size - 1, -1, -1):
            here = offsets[j] + local
            rest = local
            steps = 0
            stop_index = anchor
            for t in range(k):
                c = cols[t]
                d = rest % room[c]
                rest //= room[c]
                space[c] = progress[c] + 1 + d
                free[c] = room[c] - 1 - d
                steps += d + 1
                stop_index += (d + 1) * strides[c]
            steps_left = 99 if step_limit < 0 else step_limit - steps
            ra = 0.0
            rb = 0.0
            for cl in range(slot_start[slot], slot_start[slot + 1]):
                found = False
                va = 0.0
                vb = 0.0
                for g in range(class_start[cl], class_start[cl + 1]):
                    pid = group_pair[g]
                    if pid >= 0:
                        if pair_seen[pid] != here + 1:
                            pair_seen[pid] = here + 1
                            pair_found[pid] = False
                            # The group's options: both sums, else each that can go alone.
                            c = group_cols[g, 0]
                            e = group_cols[g, 1] if group_len[g] == 2 else -1
                            pick0 = -1
                            pick1 = -1
                            if e == c:
                                if _playable(c, 2, m, left, free, steps_left):
                                    pick0 = _successor(m, here, c, c, -1, space, progress, room, local_stride, offsets, mask_rank, mask_cols)
                                elif _playable(c, 1, m, left, free, steps_left):
                                    pick0 = _successor(m, here, c, -1, -1, space, progress, room, local_stride, offsets, mask_rank, mask_cols)
                            else:
                                pc = _playable(c, 1, m, left, free, steps_left)
                                pe = e >= 0 and _playable(e, 1, m, left, free, steps_left)
                                new = (m >> c & 1 == 0) + (e >= 0 and m >> e & 1 == 0)
                                if pc and pe and new <= left and steps_left >= 2:
                                    pick0 = _successor(m, here, c, e, -1, space, progress, room, local_stride, offsets, mask_rank, mask_cols)
                                else:
                                    if pc:
                                        pick0 = _successor(m, here, c, -1, -1, space, progress, room, local_stride, offsets, mask_rank, mask_cols)
                                    if pe:
                                        pick1 = _successor(m, here, e, -1, -1, space, progress, room, local_stride, offsets, mask_rank, mask_cols)
                            for idx in (pick0, pick1):
                                if idx >= 0:
                                    pair_found[pid], pair_a[pid], pair_b[pid] = _least(
                                        pair_found[pid], pair_a[pid], pair_b[pid], best_a[idx], best_b[idx], x
                                    )
                        if pair_found[pid]:
                            found, va, vb = _least(found, va, vb, pair_a[pid], pair_b[pid], x)
                        continue
                    # A relay group of three sums: every sub-multiset, the core's rule as is.
                    length = group_len[g]
                    top = 1 << length
                    for sm in range(1, top):
                        steps_sub = 0
                        new = 0
                        good = True
                        for e in range(length):
                            if sm >> e & 1:
                                count[group_cols[g, e]] += 1
                                steps_sub += 1
                        for e in range(length):
                            if sm >> e & 1:
                                c = group_cols[g, e]
                                if count[c] > 0:  # first sight of the column in the sub
                                    if count[c] > free[c]:
                                        good = False
                                    if not m >> c & 1:
                                        new += 1
                                    count[c] = -count[c]
                        for e in range(length):
                            if sm >> e & 1:
                                count[group_cols[g, e]] = 0
                        ok[sm] = good and new <= left and steps_sub <= steps_left
                    for sm in range(1, top):
                        if not ok[sm]:
                            continue
                        maximal = True
                        for e in range(length):
                            if not sm >> e & 1 and ok[sm | 1 << e]:
                                maximal = False
                        if maximal:
                            c1 = group_cols[g, 0] if sm & 1 else -1
                            c2 = group_cols[g, 1] if sm & 2 else -1
                            c3 = group_cols[g, 2] if sm & 4 else -1
                            idx = _successor(m, here, c1, c2, c3, space, progress, room, local_stride, offsets, mask_rank, mask_cols)
                            found, va, vb = _least(found, va, vb, best_a[idx], best_b[idx], x)
                w = class_weight[cl]
                if found:
                    ra += w * va
                    rb += w * vb
                else:
                    rb += w
            if k == 0:
                start_a = ra
                start_b = rb
            else:
                if fill:
                    stops[here] = anchor_value(stop_index, space, values, estimate)
                stop = stops[here]
                if stop <= ra + rb * x:  # ties stop: a sure thing over a gamble
                    best_a[here] = stop
                    best_b[here] = 0.0
                else:
                    best_a[here] = ra
                    best_b[here] = rb
            for t in range(k):
                c = cols[t]
                space[c] = progress[c]
                free[c] = room[c]
    return start_a, start_b, total


@_jit
def solve_anchor(
    anchor: int, progress: Any, values: Any, rules: Any, best_a: Any, best_b: Any, offsets: Any,
    estimate: Any, tolerance: float, stops: Any,
) -> tuple[float, int]:
    """Newton's method on x = 1 + W(x) for one anchor; returns x and the passes taken.

    It stops when a step changes x by at most `tolerance` (relative); the solver asks
    for TOLERANCE, a bot can take far less care (each pass is a whole turn graph).

    Starts from the best neighbour one step further on (a lower bound: progress never
    hurts), or from the anchor's own estimate when there is one (closer, so fewer
    passes); from anywhere the first step lands at or above the fixed point (W is
    concave), later steps descend to it.
    """
    heights, strides = rules[0], rules[1]
    x = 0.0 if estimate[0].shape[0] == 0 else estimated(progress, estimate)
    space = progress.copy()
    for i in range(heights.shape[0]):
        if progress[i] < heights[i]:
            space[i] += 1
            x = max(x, anchor_value(anchor + strides[i], space, values, estimate))
            space[i] -= 1
    for passes in range(1, NEWTON_STEPS + 1):
        a, b, _ = turn_pass(
            anchor, progress, x, values, rules, best_a, best_b, offsets, estimate, stops, passes == 1
        )
        if b >= 1.0:  # only bust-loving policies are optimal this low: start higher
            x = 2.0 * x + 1.0
            continue
        nxt = (1.0 + a) / (1.0 - b)
        if abs(nxt - x) <= tolerance * max(1.0, nxt):
            return nxt, passes
        x = nxt
    return x, NEWTON_STEPS


@_parallel
def solve_chunk(
    anchors: Any, kind: Any, values: Any, rules: Any, most_local: int, workers: int
) -> Any:
    """The values of `anchors` (all of one layer) as `kind` says (see FINISHED...).

    Reads `values` only for the layers above (a stop always advances), so it may be a
    read-only view of the table. A MIRRORED anchor's value is left NaN: the solver
    copies it from its mirror image once the layer is done.
    """
    heights, strides, masks = rules[0], rules[1], rules[4]
    n = heights.shape[0]
    count = anchors.shape[0]
    out = np.full(count, np.nan)
    table_only = (np.zeros((0, 0)), np.zeros((2, 0)), np.zeros(2))  # as exact() gives
    for w in _range(workers):
        best_a = np.empty(most_local, np.float64)
        best_b = np.empty(most_local, np.float64)
        stops = np.empty(most_local, np.float64)
        offsets = np.empty(masks.shape[0] + 1, np.int64)
        progress = np.empty(n, np.int64)
        for t in range(w, count, workers):
            anchor = anchors[t]
            if kind[t] == FINISHED:
                out[t] = 0.0
            elif kind[t] == SOLVED:
                for i in range(n):
                    progress[i] = anchor // strides[i] % (heights[i] + 1)
                out[t], _ = solve_anchor(
                    anchor, progress, values, rules, best_a, best_b, offsets, table_only, TOLERANCE, stops
                )
    return out
