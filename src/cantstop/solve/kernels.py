"""The numba passes over one turn, in small steps, and the Newton solves built on them.

A turn is plain arrays (a `TurnGraph`): `room[c]`, the steps column c can still take this
turn (0: closed), and `stops[s]`, what stopping in in-turn state s is worth. In-turn states
are numbered locally: runner masks in the order of `RollClasses.runner_masks` (by
size, then mask), and within a mask the steps taken in each runner column, less one,
in mixed radix over the rooms (the lowest column varies fastest). Every successor of
a state has a higher number, so one pass from the top number down evaluates the whole
turn. A state's value is kept as a + b·x, x the bust's worth: b is the chance of
busting from there, which Newton's step needs. Values are minimised: expected turns
alone, the chance of losing against a rival.

The steps: `turn_of` (room and stop weights of a position, read from the board's
`PositionCodes`), `layout` (where each mask's states start), `fill_stops` or
`fill_estimated_stops`, `turn_pass` (the turn at one bust worth), then `newton_alone`
(x = 1 + W(x)) or `newton_pair` (u = 1 − W_P(v), v = 1 − W_Q(u)). The choice rule is
core's `group_choices`, read from the tables `cantstop.fast.tables.choice_table` builds.
The arrays travel in the named bundles of `cantstop.solve.bundles`.
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
from cantstop.solve.bundles import Estimate, Here, PassScratch, PositionCodes, TurnGraph, TurnRules
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
def turn_of(index: int, codes: PositionCodes, room: Any, weights: Any) -> None:
    """Fill `room` and the stop `weights` of the turn from position `index` (see `PositionCodes`)."""
    for i in range(codes.strides.shape[0]):
        code = index // codes.strides[i] % codes.radix[i]
        room[i] = codes.code_room[i, code]
        for d in range(weights.shape[1]):
            weights[i, d] = codes.code_weight[i, code, d]


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
def fill_stops(graph: TurnGraph, weights: Any, values: Any, masks: Any) -> None:
    """stops[s] = values[Σ weights[c, steps taken in c]] for every in-turn state s (inf if BLOCKED)."""
    room, offsets = graph.room, graph.offsets
    n = room.shape[0]
    taken = np.zeros(n, np.int64)
    for j in range(masks.shape[0]):
        m = masks[j]
        for local in range(offsets[j + 1] - offsets[j]):
            decode(m, local, room, taken)
            index = 0
            for i in range(n):
                index += weights[i, taken[i]]
            graph.stops[offsets[j] + local] = values[index] if index >= 0 else np.inf


@jit
def fill_estimated_stops(progress: Any, graph: TurnGraph, estimate: Estimate, masks: Any) -> None:
    """stops[s] = the estimate of the anchor a stop in state s reaches (one player)."""
    room, offsets = graph.room, graph.offsets
    n = room.shape[0]
    taken = np.zeros(n, np.int64)
    space = np.zeros(n, np.int64)
    for j in range(masks.shape[0]):
        m = masks[j]
        for local in range(offsets[j + 1] - offsets[j]):
            decode(m, local, room, taken)
            for i in range(n):
                space[i] = progress[i] + taken[i]
            graph.stops[offsets[j] + local] = estimated(space, estimate)


@jit
def _successor(
    here: Here, c1: int, c2: int, c3: int, graph: TurnGraph, scratch: PassScratch, rules: TurnRules
) -> int:
    """The number of the state reached by stepping columns c1, c2, c3 (-1: none) from `here`."""
    m = here.mask
    m2 = m
    for c in (c1, c2, c3):
        if c >= 0:
            m2 |= 1 << c
    if m2 == m:  # no new runner: same mask, a fixed offset per step
        idx = here.number
        for c in (c1, c2, c3):
            if c >= 0:
                idx += scratch.local_stride[c]
        return int(idx)
    taken = scratch.taken
    for c in (c1, c2, c3):
        if c >= 0:
            taken[c] += 1
    j2 = rules.mask_rank[m2]
    idx = graph.offsets[j2]
    stride = 1
    for t in range(rules.mask_cols.shape[1]):
        i = rules.mask_cols[j2, t]
        if i < 0:
            break
        idx += (taken[i] - 1) * stride
        stride *= graph.room[i]
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
    kind: int, here: Here, x: float, graph: TurnGraph, scratch: PassScratch, rules: TurnRules
) -> tuple[bool, float, float]:
    """The best choice a sum group of `kind` offers at `here`: (any, a, b).

    The choices are core's `group_choices`, looked up in the group shape's table by
    each sum's code (2 · room capped + has a runner) and the runners and steps left.
    """
    kind_cols = rules.kind_cols
    length = rules.kind_len[kind]
    base = length + 1
    key = 0
    for e in range(length):
        c = kind_cols[kind, e]
        free = min(graph.room[c] - scratch.taken[c], length)
        key = key * (2 * base) + 2 * free + (here.mask >> c & 1)
    key = (key * base + min(here.runners_left, length)) * base + max(0, min(here.steps_left, length))
    options = rules.choice_tables[rules.kind_table[kind] + key]
    found = False
    va = 0.0
    vb = 0.0
    for sub in range(1, 1 << length):
        if options >> sub & 1:
            c1 = kind_cols[kind, 0] if sub & 1 else -1
            c2 = kind_cols[kind, 1] if sub & 2 else -1
            c3 = kind_cols[kind, 2] if sub & 4 else -1
            idx = _successor(here, c1, c2, c3, graph, scratch, rules)
            found, va, vb = _least(found, va, vb, graph.best_a[idx], graph.best_b[idx], x)
    return found, va, vb


@jit
def _played(kind: int, number: int, graph: TurnGraph, scratch: PassScratch, rules: TurnRules) -> int:
    """With every runner placed and no step limit: the state a group of `kind` leads to from
    state `number` (-1: none).

    Its one legal choice is then every sum it can play (core's rule: no sum left that could
    still be played), each runner climbing as far as its room allows.
    """
    idx = number
    previous = -1
    count = 0
    for e in range(rules.kind_len[kind]):
        c = rules.kind_cols[kind, e]
        if c != previous:  # a kind's sums are sorted: a column's repeats are adjacent
            previous = c
            count = 0
        if scratch.taken[c] + count < graph.room[c]:
            count += 1
            idx += scratch.local_stride[c]
    return idx if idx != number else -1


@jit
def pass_scratch(columns: int, rules: TurnRules) -> PassScratch:
    """The work space of `turn_pass_in` for a board of `columns` columns (every mask to do)."""
    kinds = rules.kind_len.shape[0]
    return PassScratch(
        np.zeros(columns, np.int64), np.zeros(columns, np.int64), np.zeros(kinds, np.int64),
        np.zeros(kinds, np.bool_), np.zeros(kinds, np.float64), np.zeros(kinds, np.float64),
        np.ones(rules.runner_masks.shape[0], np.bool_),
    )


@jit
def turn_pass(graph: TurnGraph, x: float, rules: TurnRules) -> tuple[float, float]:
    """Evaluate the turn with a bust worth `x`; returns the turn start's value (a, b).

    Fills the graph's best_a/best_b with each in-turn state's value after its decision
    (the better of stopping there and rolling on; a tie stops). Its `offsets` must be the
    turn's `layout`, its `stops` the stop values. A group of sums has its best option
    worked out once per state however many rolls offer it. (`turn_pass_in` with its own
    work space.)
    """
    return turn_pass_in(graph, x, rules, pass_scratch(graph.room.shape[0], rules))


@uncounted
def turn_pass_in(graph: TurnGraph, x: float, rules: TurnRules, scratch: PassScratch) -> tuple[float, float]:
    """`turn_pass` in the work space `scratch` (`pass_scratch`), which it may reuse call after call.

    Only the runner masks that `scratch.todo` names are evaluated: for a value that only
    some states need, a set of masks closed upward (every superset of a mask in it is in
    it, or was evaluated before), since a state's successors are in its mask's supersets.
    """
    room, offsets, stops, best_a, best_b = graph
    masks = rules.runner_masks
    open_mask = _open(room)
    scratch.seen[:] = 0  # the state number + 1 a kind's entry is for
    start_a = 0.0
    start_b = 0.0
    for j in range(masks.shape[0] - 1, -1, -1):
        size = offsets[j + 1] - offsets[j]
        if size == 0 or not scratch.todo[j]:
            continue
        m = masks[j]
        left, slot, placed = _mask_setup(m, open_mask, room, rules, scratch)
        for local in range(size - 1, -1, -1):
            number = offsets[j] + local
            steps = decode(m, local, room, scratch.taken)
            here = Here(m, number, left, NO_LIMIT if rules.step_limit < 0 else rules.step_limit - steps)
            ra, rb = _rolled(here, slot, placed, x, graph, scratch, rules)
            if left == rules.runners:
                start_a = ra
                start_b = rb
            elif stops[number] <= ra + rb * x:  # ties stop: a sure thing over a gamble
                best_a[number] = stops[number]
                best_b[number] = 0.0
            else:
                best_a[number] = ra
                best_b[number] = rb
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
def _mask_setup(m: int, open_mask: int, room: Any, rules: TurnRules, scratch: PassScratch) -> tuple[int, int, bool]:
    """For the states of runner mask m: set each runner column's stride in their numbering;
    return the runners left, the slot of the rolls' classes, and whether every runner is placed
    with no step limit (then each group has one option, `_played`)."""
    k = 0
    stride = 1
    for i in range(room.shape[0]):
        if m >> i & 1:
            k += 1
            scratch.local_stride[i] = stride
            stride *= room[i]
    left = rules.runners - k
    slot = rules.key_slot[m] if left == 0 else rules.key_slot[open_mask]
    return left, slot, left == 0 and rules.step_limit < 0


@_inlined
def _rolled(
    here: Here, slot: int, placed: bool, x: float, graph: TurnGraph, scratch: PassScratch, rules: TurnRules
) -> tuple[float, float]:
    """The value (a, b) of rolling at `here`: every roll's best choice, a bust worth x.

    `scratch` holds the state's steps taken and its mask's strides (`decode`, `_mask_setup`).
    """
    best_a, best_b = graph.best_a, graph.best_b
    seen, kind_found, kind_a, kind_b = scratch.seen, scratch.kind_found, scratch.kind_a, scratch.kind_b
    number = here.number
    ra = 0.0
    rb = 0.0
    for cl in range(rules.slot_start[slot], rules.slot_start[slot + 1]):
        found = False
        va = 0.0
        vb = 0.0
        for g in range(rules.class_start[cl], rules.class_start[cl + 1]):
            kd = rules.group_kind[g]
            if placed:
                idx = _played(kd, number, graph, scratch, rules)
                if idx >= 0:
                    found, va, vb = _least(found, va, vb, best_a[idx], best_b[idx], x)
                continue
            if seen[kd] != number + 1:
                seen[kd] = number + 1
                kind_found[kd], kind_a[kd], kind_b[kd] = _best_option(kd, here, x, graph, scratch, rules)
            if kind_found[kd]:
                found, va, vb = _least(found, va, vb, kind_a[kd], kind_b[kd], x)
        w = rules.class_weight[cl]
        if found:
            ra += w * va
            rb += w * vb
        else:
            rb += w
    return ra, rb


@uncounted
def roll_value(graph: TurnGraph, x: float, rules: TurnRules, number: int, scratch: PassScratch) -> float:
    """The value of rolling in in-turn state `number` (0: the turn's start), its successors
    evaluated: the expectation over every roll of its best choice, a bust worth x. What
    `turn_pass` weighs against stopping, for one state (an analysis asks it of each roll)."""
    room, offsets = graph.room, graph.offsets
    j = 0
    while offsets[j + 1] <= number:  # the runner mask the number falls in
        j += 1
    m = rules.runner_masks[j]
    left, slot, placed = _mask_setup(m, _open(room), room, rules, scratch)
    steps = decode(m, number - offsets[j], room, scratch.taken)
    here = Here(m, number, left, NO_LIMIT if rules.step_limit < 0 else rules.step_limit - steps)
    scratch.seen[:] = 0
    a, b = _rolled(here, slot, placed, x, graph, scratch, rules)
    return float(a + b * x)


@jit
def neighbour_bound(graph: TurnGraph, mask_rank: Any) -> float:
    """The best stop one step on (a lower bound on expected turns: progress never hurts)."""
    x = 0.0
    for i in range(graph.room.shape[0]):
        if graph.room[i] > 0:
            x = max(x, graph.stops[graph.offsets[mask_rank[1 << i]]])
    return x


@jit
def newton_alone(graph: TurnGraph, x: float, rules: TurnRules, tolerance: float) -> tuple[float, int]:
    """Newton's method on x = 1 + W(x) from `x`; returns x and the passes taken.

    It stops when a step changes x by at most `tolerance` (relative); the solver asks
    for TOLERANCE, a bot can take far less care (each pass is a whole turn graph).
    From a lower bound the first step lands at or above the fixed point (W is concave),
    later steps descend to it.
    """
    scratch = pass_scratch(graph.room.shape[0], rules)
    for passes in range(1, NEWTON_STEPS + 1):
        a, b = turn_pass_in(graph, x, rules, scratch)
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
    p: TurnGraph, q: TurnGraph, rules: TurnRules, alone: bool, tolerance: float
) -> tuple[float, float, int]:
    """The movers' chances (u, v) of a position P and its mirror Q; returns them and the rounds.

    u = 1 − W_P(v) and v = 1 − W_Q(u), W the least chance of losing over the turn with
    a bust worth the rival's chance; with `alone` (P is its own mirror) u = 1 − W_P(u).
    G(u) = 1 − W_P(1 − W_Q(u)) − u falls with u (its slope b_P·b_Q − 1 ≤ 0), from
    G(0) ≥ 0 to G(1) ≤ 0: Newton's step, kept inside the bracket [lo, hi] of the root
    and replaced by bisection when it leaves it or when the bracket has not halved
    in two rounds. `p` and `q` are the turns of P and Q (q unused when `alone`).
    """
    lo, hi, u, v = 0.0, 1.0, 0.5, 0.5
    widths = (1.0, 1.0)
    aq, bq = 0.0, 0.0
    scratch = pass_scratch(p.room.shape[0], rules)
    for rounds in range(1, NEWTON_STEPS + 1):
        if alone:
            ap, bp = turn_pass_in(p, u, rules, scratch)
            v = u
            g = 1.0 - ap - bp * u - u
            slope = -1.0 - bp
        else:
            aq, bq = turn_pass_in(q, u, rules, scratch)
            v = 1.0 - aq - bq * u
            ap, bp = turn_pass_in(p, v, rules, scratch)
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
    anchors: Any, kind: Any, values: Any, rules: TurnRules, codes: PositionCodes, most_local: int, workers: int
) -> Any:
    """One player: the expected turns of `anchors` (all of one layer) as `kind` says.

    Reads `values` only for the layers above (a stop always advances), so it may be a
    read-only view of the value file. A MIRRORED anchor's value is left NaN: the solver
    copies it from its mirror image once the layer is done.
    """
    masks = rules.runner_masks
    n = codes.strides.shape[0]
    count = anchors.shape[0]
    out = np.full(count, np.nan)
    for w in _range(workers):
        graph = new_graph(n, masks.shape[0], most_local)
        weights = np.empty((n, codes.code_weight.shape[2]), np.int64)
        for t in range(w, count, workers):
            if kind[t] == FINISHED:
                out[t] = 0.0
            elif kind[t] == SOLVED:
                turn_of(anchors[t], codes, graph.room, weights)
                layout(graph.room, masks, graph.offsets)
                fill_stops(graph, weights, values, masks)
                x = neighbour_bound(graph, rules.mask_rank)
                out[t], _ = newton_alone(graph, x, rules, TOLERANCE)
    return out


@_parallel
def solve_pairs(
    anchors: Any, kind: Any, partner: Any, values: Any, rules: TurnRules, codes: PositionCodes, most_local: int,
    workers: int,
) -> Any:
    """Two players: the chances of `anchors` (out[:count]) and of their mirrors (out[count:]).

    `kind` is FINISHED (the player not to move has won: 0), WON (the mover has: 1),
    SOLVED (a pair with `partner`, its mirror) or ALONE (its own mirror).
    """
    masks = rules.runner_masks
    n = codes.strides.shape[0]
    count = anchors.shape[0]
    out = np.full(2 * count, np.nan)
    for w in _range(workers):
        p = new_graph(n, masks.shape[0], most_local)
        q = new_graph(n, masks.shape[0], most_local)
        weights = np.empty((n, codes.code_weight.shape[2]), np.int64)
        for t in range(w, count, workers):
            if kind[t] == FINISHED or kind[t] == WON:
                out[t] = out[count + t] = 0.0 if kind[t] == FINISHED else 1.0
                continue
            turn_of(anchors[t], codes, p.room, weights)
            layout(p.room, masks, p.offsets)
            fill_stops(p, weights, values, masks)
            if kind[t] != ALONE:
                turn_of(partner[t], codes, q.room, weights)
                layout(q.room, masks, q.offsets)
                fill_stops(q, weights, values, masks)
            out[t], out[count + t], _ = newton_pair(p, q, rules, kind[t] == ALONE, PAIR_TOLERANCE)
    return out


@jit
def new_graph(columns: int, masks: int, most_local: int) -> TurnGraph:
    """Room for a turn of up to `most_local` in-turn states on a board of `columns` columns and `masks` runner masks."""
    return TurnGraph(
        np.empty(columns, np.int64), np.empty(masks + 1, np.int64), np.empty(most_local, np.float64),
        np.empty(most_local, np.float64), np.empty(most_local, np.float64),
    )


@jit
def estimated(space: Any, estimate: Estimate) -> float:
    """The fitted value (`Estimate`) of the anchor at `space`: expected turns still needed, 0 once won."""
    worth, knots, spare, to_win = estimate
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



def exact() -> Estimate:
    """The `estimate` argument that means none: every anchor's value is read from a value file."""
    return Estimate(np.zeros((0, 0)), np.zeros((2, 0)), 0.0, 0)


