"""The numba passes over one turn, in small steps, and the Newton solves built on them.

A turn is plain arrays: `room[c]`, the steps column c can still take this turn (0:
closed), and `stops[s]`, what stopping in in-turn state s is worth. In-turn states
are numbered locally: runner masks in the order of `RollClasses.runner_masks` (by
size, then mask), and within a mask the steps taken in each runner column, less one,
in mixed radix over the rooms (the lowest column varies fastest). Every successor of
a state has a higher number, so one pass from the top number down evaluates the whole
turn. A state's value is kept as a + b·x, x the bust's worth: b is the chance of
busting from there, which Newton's step needs. Values are minimised: expected turns
alone, the chance of losing against a rival.

The steps: `turn_of` (room and stop weights of a position, read from the board's
tables), `layout` (where each mask's states start), `fill_stops` or
`fill_estimated_stops`, `turn_pass` (the turn at one bust worth), then `newton_alone`
(x = 1 + W(x)) or `newton_pair` (u = 1 − W_P(v), v = 1 − W_Q(u)). The choice rule is
core's `group_choices`, read from the tables `cantstop.fast.tables.choice_table` builds.
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

from cantstop.fast.kernels import counted_jit
from cantstop.solve.layer import ALONE, FINISHED, SOLVED, WON

F = TypeVar("F", bound=Callable[..., Any])
jit = cast(Callable[[F], F], numba.njit(cache=True, nogil=True))
_parallel = cast(Callable[[F], F], numba.njit(cache=True, nogil=True, parallel=True))
# The turn pass allocates nothing: compiled without numba's reference counting, the arrays
# its helpers take cost nothing per call (counted, they cost two atomic operations each,
# four fifths of the pass's time). Its helpers inherit the setting.
uncounted = counted_jit(False)
_range: Any = numba.prange
# The roll of one state, inside the turn pass's loop over every state: numba's own inlining
# keeps the pass as fast as when the loop held it (a call there cost 12% of the pass).
_inlined = cast(Callable[[F], F], numba.njit(cache=True, nogil=True, inline="always"))

NEWTON_STEPS = 100  # a safety net: convergence takes 2 to 5 passes alone, 3 to 8 pairs of passes
TOLERANCE = 1e-13  # relative change of x at which the solver's Newton has converged (turns)
PAIR_TOLERANCE = 1e-14  # absolute change of a chance to win at which a pair has converged
BLOCKED = -(1 << 50)  # a stop weight: stopping is not allowed here (no_stop_on_occupied)
NO_LIMIT = 1 << 30  # steps left in a turn without a step limit


@jit
def turn_of(index: int, turns: Any, room: Any, weights: Any) -> None:
    """Fill `room` and the stop `weights` of the turn from position `index`.

    `turns` is a board's (strides, radix, code_room, code_weight): column i of the
    position holds code `index // strides[i] % radix[i]`, which allows `code_room[i, code]`
    steps; a stop with d steps taken there adds `code_weight[i, code, d]` to the index of
    the position the stop hands on (BLOCKED: no stop).
    """
    strides, radix, code_room, code_weight = turns
    for i in range(strides.shape[0]):
        code = index // strides[i] % radix[i]
        room[i] = code_room[i, code]
        for d in range(weights.shape[1]):
            weights[i, d] = code_weight[i, code, d]


@jit
def layout(room: Any, masks: Any, offsets: Any) -> int:
    """Set offsets[j] to where runner mask j's states start; return the turn's state count."""
    total = 0
    for j in range(masks.shape[0]):
        m = masks[j]
        size = 1
        for i in range(room.shape[0]):
            if m >> i & 1:
                size *= room[i]
        offsets[j] = total
        total += size
    offsets[masks.shape[0]] = total
    return total


@jit
def decode(m: int, local: int, room: Any, taken: Any) -> int:
    """Set taken[c], the steps taken in column c, for state `local` of mask m; return their sum."""
    rest = local
    steps = 0
    for i in range(room.shape[0]):
        if m >> i & 1:
            d = rest % room[i]
            rest //= room[i]
            taken[i] = d + 1
            steps += d + 1
        else:
            taken[i] = 0
    return steps


@jit
def fill_stops(room: Any, weights: Any, values: Any, masks: Any, offsets: Any, stops: Any) -> None:
    """stops[s] = values[Σ weights[c, steps taken in c]] for every in-turn state s (inf if BLOCKED)."""
    n = room.shape[0]
    taken = np.zeros(n, np.int64)
    for j in range(masks.shape[0]):
        m = masks[j]
        for local in range(offsets[j + 1] - offsets[j]):
            decode(m, local, room, taken)
            index = 0
            for i in range(n):
                index += weights[i, taken[i]]
            stops[offsets[j] + local] = values[index] if index >= 0 else np.inf


@jit
def fill_estimated_stops(progress: Any, room: Any, estimate: Any, masks: Any, offsets: Any, stops: Any) -> None:
    """stops[s] = the estimate of the anchor a stop in state s reaches (one player)."""
    n = room.shape[0]
    taken = np.zeros(n, np.int64)
    space = np.zeros(n, np.int64)
    for j in range(masks.shape[0]):
        m = masks[j]
        for local in range(offsets[j + 1] - offsets[j]):
            decode(m, local, room, taken)
            for i in range(n):
                space[i] = progress[i] + taken[i]
            stops[offsets[j] + local] = estimated(space, estimate)


@jit
def _successor(
    m: int, here: int, c1: int, c2: int, c3: int, taken: Any, room: Any, local_stride: Any,
    offsets: Any, mask_rank: Any, mask_cols: Any,
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
            taken[c] += 1
    j2 = mask_rank[m2]
    idx = offsets[j2]
    stride = 1
    for t in range(mask_cols.shape[1]):
        i = mask_cols[j2, t]
        if i < 0:
            break
        idx += (taken[i] - 1) * stride
        stride *= room[i]
    for c in (c1, c2, c3):
        if c >= 0:
            taken[c] -= 1
    return int(idx)


@jit
def _least(found: bool, va: float, vb: float, a: float, b: float, x: float) -> tuple[bool, float, float]:
    """The better (lesser at x) of the best so far (if found) and a + b·x."""
    if found and va + vb * x <= a + b * x:
        return True, va, vb
    return True, a, b


@jit
def _best_option(
    kind: int, m: int, here: int, left: int, steps_left: int, x: float, room: Any, taken: Any,
    local_stride: Any, offsets: Any, rules: Any, best_a: Any, best_b: Any,
) -> tuple[bool, float, float]:
    """The best choice a sum group of `kind` offers in state `here`: (any, a, b).

    The choices are core's `group_choices`, looked up in the group shape's table by
    each sum's code (2 · room capped + has a runner) and the runners and steps left.
    """
    mask_rank, mask_cols = rules[3], rules[4]
    kind_len, kind_cols, kind_table, choice_tables = rules[10], rules[11], rules[12], rules[13]
    length = kind_len[kind]
    base = length + 1
    key = 0
    for e in range(length):
        c = kind_cols[kind, e]
        free = min(room[c] - taken[c], length)
        key = key * (2 * base) + 2 * free + (m >> c & 1)
    key = (key * base + min(left, length)) * base + max(0, min(steps_left, length))
    options = choice_tables[kind_table[kind] + key]
    found = False
    va = 0.0
    vb = 0.0
    for sub in range(1, 1 << length):
        if options >> sub & 1:
            c1 = kind_cols[kind, 0] if sub & 1 else -1
            c2 = kind_cols[kind, 1] if sub & 2 else -1
            c3 = kind_cols[kind, 2] if sub & 4 else -1
            idx = _successor(m, here, c1, c2, c3, taken, room, local_stride, offsets, mask_rank, mask_cols)
            found, va, vb = _least(found, va, vb, best_a[idx], best_b[idx], x)
    return found, va, vb


@jit
def _played(kind: int, here: int, room: Any, taken: Any, local_stride: Any, rules: Any) -> int:
    """With every runner placed and no step limit: the state a group of `kind` leads to (-1: none).

    Its one legal choice is then every sum it can play (core's rule: no sum left that could
    still be played), each runner climbing as far as its room allows.
    """
    kind_len, kind_cols = rules[10], rules[11]
    idx = here
    previous = -1
    count = 0
    for e in range(kind_len[kind]):
        c = kind_cols[kind, e]
        if c != previous:  # a kind's sums are sorted: a column's repeats are adjacent
            previous = c
            count = 0
        if taken[c] + count < room[c]:
            count += 1
            idx += local_stride[c]
    return idx if idx != here else -1


@jit
def pass_scratch(columns: int, rules: Any) -> tuple[Any, Any, Any, Any]:
    """The work space of `turn_pass_in` for a board of `columns` columns: (ints, flags, floats, todo).

    `todo[j]` says whether runner mask j's states are evaluated (all are, as made here).
    """
    kinds = rules[10].shape[0]
    return (
        np.zeros(2 * columns + kinds, np.int64), np.zeros(kinds, np.bool_), np.zeros(2 * kinds, np.float64),
        np.ones(rules[2].shape[0], np.bool_),
    )


@jit
def turn_pass(
    room: Any, x: float, rules: Any, stops: Any, best_a: Any, best_b: Any, offsets: Any
) -> tuple[float, float]:
    """Evaluate the turn with a bust worth `x`; returns the turn start's value (a, b).

    Fills best_a/best_b with each in-turn state's value after its decision (the better
    of stopping there and rolling on; a tie stops). `offsets` must be the turn's
    `layout`, `stops` its stop values. A group of sums has its best option worked out
    once per state however many rolls offer it. (`turn_pass_in` with its own work space.)
    """
    scratch = pass_scratch(room.shape[0], rules)
    return turn_pass_in(room, x, rules, stops, best_a, best_b, offsets, scratch)


@uncounted
def turn_pass_in(
    room: Any, x: float, rules: Any, stops: Any, best_a: Any, best_b: Any, offsets: Any, scratch: Any
) -> tuple[float, float]:
    """`turn_pass` in the work space `scratch` (`pass_scratch`), which it may reuse call after call.

    Only the runner masks that `scratch`'s todo names are evaluated: for a value that only
    some states need, a set of masks closed upward (every superset of a mask in it is in
    it, or was evaluated before), since a state's successors are in its mask's supersets.
    """
    masks = rules[2]
    n = room.shape[0]
    ints, _, _, todo = scratch
    seen = ints[2 * n :]  # the state number + 1 a kind's entry is for
    seen[:] = 0
    open_mask = _open(room)
    start_a = 0.0
    start_b = 0.0
    for j in range(masks.shape[0] - 1, -1, -1):
        size = offsets[j + 1] - offsets[j]
        if size == 0 or not todo[j]:
            continue
        k, slot, placed = _mask_setup(masks[j], open_mask, room, rules, ints[n : 2 * n])
        for local in range(size - 1, -1, -1):
            here = offsets[j] + local
            ra, rb = _rolled(masks[j], k, slot, placed, here, room, x, rules, best_a, best_b, offsets, scratch)
            if k == 0:
                start_a = ra
                start_b = rb
            elif stops[here] <= ra + rb * x:  # ties stop: a sure thing over a gamble
                best_a[here] = stops[here]
                best_b[here] = 0.0
            else:
                best_a[here] = ra
                best_b[here] = rb
    return start_a, start_b


@jit
def _open(room: Any) -> int:
    """The mask of the columns with room left."""
    open_mask = 0
    for i in range(room.shape[0]):
        if room[i] > 0:
            open_mask |= 1 << i
    return open_mask


@jit
def _mask_setup(m: int, open_mask: int, room: Any, rules: Any, local_stride: Any) -> tuple[int, int, bool]:
    """For the states of runner mask m: set each runner column's stride in their numbers, and
    return the runners, the roll classes' slot and whether every runner is placed with no
    step limit (then each group has one option, `_played`)."""
    runners, step_limit, key_slot = rules[0], rules[1], rules[5]
    k = 0
    stride = 1
    for i in range(room.shape[0]):
        if m >> i & 1:
            k += 1
            local_stride[i] = stride
            stride *= room[i]
    left = runners - k
    slot = key_slot[m] if left == 0 else key_slot[open_mask]
    return k, slot, left == 0 and step_limit < 0


@_inlined
def _rolled(
    m: int, k: int, slot: int, placed: bool, here: int, room: Any, x: float, rules: Any, best_a: Any, best_b: Any,
    offsets: Any, scratch: Any,
) -> tuple[float, float]:
    """The value (a, b) of rolling in in-turn state `here` of runner mask m (`_mask_setup`
    gave k, slot and placed, and set the strides): every roll's best choice, a bust worth x."""
    runners, step_limit = rules[0], rules[1]
    slot_start, class_weight, class_start, group_kind = rules[6], rules[7], rules[8], rules[9]
    n = room.shape[0]
    ints, kind_found, floats, _ = scratch
    kinds = kind_found.shape[0]
    taken = ints[:n]
    local_stride = ints[n : 2 * n]
    seen = ints[2 * n :]
    kind_a = floats[:kinds]
    kind_b = floats[kinds:]
    left = runners - k
    steps = decode(m, here - offsets[rules[3][m]], room, taken)
    steps_left = NO_LIMIT if step_limit < 0 else step_limit - steps
    ra = 0.0
    rb = 0.0
    for cl in range(slot_start[slot], slot_start[slot + 1]):
        found = False
        va = 0.0
        vb = 0.0
        for g in range(class_start[cl], class_start[cl + 1]):
            kd = group_kind[g]
            if placed:
                idx = _played(kd, here, room, taken, local_stride, rules)
                if idx >= 0:
                    found, va, vb = _least(found, va, vb, best_a[idx], best_b[idx], x)
                continue
            if seen[kd] != here + 1:
                seen[kd] = here + 1
                kind_found[kd], kind_a[kd], kind_b[kd] = _best_option(
                    kd, m, here, left, steps_left, x, room, taken, local_stride, offsets, rules,
                    best_a, best_b,
                )
            if kind_found[kd]:
                found, va, vb = _least(found, va, vb, kind_a[kd], kind_b[kd], x)
        w = class_weight[cl]
        if found:
            ra += w * va
            rb += w * vb
        else:
            rb += w
    return ra, rb


@uncounted
def roll_value(room: Any, x: float, rules: Any, best_a: Any, best_b: Any, offsets: Any, here: int, scratch: Any) -> float:
    """The value of rolling in in-turn state `here` (0: the turn's start), its successors
    evaluated: the expectation over every roll of its best choice, a bust worth x. What
    `turn_pass` weighs against stopping, for one state (an analysis asks it of each roll)."""
    masks = rules[2]
    j = 0
    while offsets[j + 1] <= here:  # the mask the state's number falls in (masks are few)
        j += 1
    n = room.shape[0]
    k, slot, placed = _mask_setup(masks[j], _open(room), room, rules, scratch[0][n : 2 * n])
    scratch[0][2 * n :] = 0
    a, b = _rolled(masks[j], k, slot, placed, here, room, x, rules, best_a, best_b, offsets, scratch)
    return float(a + b * x)


@jit
def neighbour_bound(room: Any, stops: Any, mask_rank: Any, offsets: Any) -> float:
    """The best stop one step on (a lower bound on expected turns: progress never hurts)."""
    x = 0.0
    for i in range(room.shape[0]):
        if room[i] > 0:
            x = max(x, stops[offsets[mask_rank[1 << i]]])
    return x


@jit
def newton_alone(
    room: Any, x: float, rules: Any, stops: Any, best_a: Any, best_b: Any, offsets: Any, tolerance: float
) -> tuple[float, int]:
    """Newton's method on x = 1 + W(x) from `x`; returns x and the passes taken.

    It stops when a step changes x by at most `tolerance` (relative); the solver asks
    for TOLERANCE, a bot can take far less care (each pass is a whole turn graph).
    From a lower bound the first step lands at or above the fixed point (W is concave),
    later steps descend to it.
    """
    scratch = pass_scratch(room.shape[0], rules)
    for passes in range(1, NEWTON_STEPS + 1):
        a, b = turn_pass_in(room, x, rules, stops, best_a, best_b, offsets, scratch)
        if b >= 1.0:  # only bust-loving policies are optimal this low: start higher
            x = 2.0 * x + 1.0
            continue
        nxt = (1.0 + a) / (1.0 - b)
        if abs(nxt - x) <= tolerance * max(1.0, nxt):
            return nxt, passes
        x = nxt
    return x, NEWTON_STEPS


@jit
def newton_pair(
    room_p: Any, stops_p: Any, best_p: Any, offsets_p: Any,
    room_q: Any, stops_q: Any, best_q: Any, offsets_q: Any,
    rules: Any, alone: bool, tolerance: float,
) -> tuple[float, float, int]:
    """The movers' chances (u, v) of a position P and its mirror Q; returns them and the rounds.

    u = 1 − W_P(v) and v = 1 − W_Q(u), W the least chance of losing over the turn with
    a bust worth the rival's chance; with `alone` (P is its own mirror) u = 1 − W_P(u).
    G(u) = 1 − W_P(1 − W_Q(u)) − u falls with u (its slope b_P·b_Q − 1 ≤ 0), from
    G(0) ≥ 0 to G(1) ≤ 0: Newton's step, kept inside the bracket [lo, hi] of the root
    and replaced by bisection when it leaves it or when the bracket has not halved
    in two rounds. `best_p` and `best_q` are each (best_a, best_b) of their turn.
    """
    lo, hi, u, v = 0.0, 1.0, 0.5, 0.5
    widths = (1.0, 1.0)
    aq, bq = 0.0, 0.0
    scratch = pass_scratch(room_p.shape[0], rules)
    for rounds in range(1, NEWTON_STEPS + 1):
        if alone:
            ap, bp = turn_pass_in(room_p, u, rules, stops_p, best_p[0], best_p[1], offsets_p, scratch)
            v = u
            g = 1.0 - ap - bp * u - u
            slope = -1.0 - bp
        else:
            aq, bq = turn_pass_in(room_q, u, rules, stops_q, best_q[0], best_q[1], offsets_q, scratch)
            v = 1.0 - aq - bq * u
            ap, bp = turn_pass_in(room_p, v, rules, stops_p, best_p[0], best_p[1], offsets_p, scratch)
            g = 1.0 - ap - bp * v - u
            slope = bp * bq - 1.0
        if g == 0.0:
            return u, v, rounds
        if g > 0.0:
            lo = u
        else:
            hi = u
        nxt = u - g / slope if slope < 0.0 else -1.0
        inside = lo <= nxt <= hi
        if not (inside and abs(nxt - u) <= tolerance) and (not inside or hi - lo > 0.5 * widths[0]):
            nxt = 0.5 * (lo + hi)
        widths = (widths[1], hi - lo)
        if abs(nxt - u) <= tolerance:
            return nxt, (nxt if alone else 1.0 - aq - bq * nxt), rounds
        u = nxt
    return u, v, NEWTON_STEPS


@_parallel
def solve_alone(
    anchors: Any, kind: Any, values: Any, rules: Any, turns: Any, most_local: int, workers: int
) -> Any:
    """One player: the expected turns of `anchors` (all of one layer) as `kind` says.

    Reads `values` only for the layers above (a stop always advances), so it may be a
    read-only view of the table. A MIRRORED anchor's value is left NaN: the solver
    copies it from its mirror image once the layer is done.
    """
    masks, mask_rank = rules[2], rules[3]
    n = turns[0].shape[0]
    count = anchors.shape[0]
    out = np.full(count, np.nan)
    for w in _range(workers):
        best_a = np.empty(most_local, np.float64)
        best_b = np.empty(most_local, np.float64)
        stops = np.empty(most_local, np.float64)
        offsets = np.empty(masks.shape[0] + 1, np.int64)
        room = np.empty(n, np.int64)
        weights = np.empty((n, turns[3].shape[2]), np.int64)
        for t in range(w, count, workers):
            if kind[t] == FINISHED:
                out[t] = 0.0
            elif kind[t] == SOLVED:
                turn_of(anchors[t], turns, room, weights)
                layout(room, masks, offsets)
                fill_stops(room, weights, values, masks, offsets, stops)
                x = neighbour_bound(room, stops, mask_rank, offsets)
                out[t], _ = newton_alone(room, x, rules, stops, best_a, best_b, offsets, TOLERANCE)
    return out


@_parallel
def solve_pairs(
    anchors: Any, kind: Any, partner: Any, values: Any, rules: Any, turns: Any, most_local: int, workers: int
) -> Any:
    """Two players: the chances of `anchors` (out[:count]) and of their mirrors (out[count:]).

    `kind` is FINISHED (the player not to move has won: 0), WON (the mover has: 1),
    SOLVED (a pair with `partner`, its mirror) or ALONE (its own mirror).
    """
    masks = rules[2]
    n = turns[0].shape[0]
    count = anchors.shape[0]
    out = np.full(2 * count, np.nan)
    for w in _range(workers):
        best_p = (np.empty(most_local, np.float64), np.empty(most_local, np.float64))
        best_q = (np.empty(most_local, np.float64), np.empty(most_local, np.float64))
        stops_p = np.empty(most_local, np.float64)
        stops_q = np.empty(most_local, np.float64)
        offsets_p = np.empty(masks.shape[0] + 1, np.int64)
        offsets_q = np.empty(masks.shape[0] + 1, np.int64)
        room_p = np.empty(n, np.int64)
        room_q = np.empty(n, np.int64)
        weights = np.empty((n, turns[3].shape[2]), np.int64)
        for t in range(w, count, workers):
            if kind[t] == FINISHED or kind[t] == WON:
                out[t] = out[count + t] = 0.0 if kind[t] == FINISHED else 1.0
                continue
            turn_of(anchors[t], turns, room_p, weights)
            layout(room_p, masks, offsets_p)
            fill_stops(room_p, weights, values, masks, offsets_p, stops_p)
            if kind[t] != ALONE:
                turn_of(partner[t], turns, room_q, weights)
                layout(room_q, masks, offsets_q)
                fill_stops(room_q, weights, values, masks, offsets_q, stops_q)
            out[t], out[count + t], _ = newton_pair(
                room_p, stops_p, best_p, offsets_p, room_q, stops_q, best_q, offsets_q, rules,
                kind[t] == ALONE, PAIR_TOLERANCE,
            )
    return out


@jit
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


@jit
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



def exact() -> tuple[Any, Any, Any]:
    """The `estimate` argument that means none: every anchor's value is read from the table."""
    return np.zeros((0, 0)), np.zeros((2, 0)), np.zeros(2)


