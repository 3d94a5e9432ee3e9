"""The compiled twin of the expert bot (`cantstop.bots.expert`): the same value, the same picks.

Every step mirrors the Python bot in the same order of floating-point operations (sums of
sorted values, the same products and exponentials), so the two agree to the last bit in
practice; the equality tests allow a different pick only where the two actions' values
tie within 1e-9. The constants are the Python bot's own.

Scratch space: `ex` (float64) holds the variant's column worths by space (`fractions`),
then the turn's judge (see `E_*`), sort buffers, a memo of choice values and one of
the best choice by kind of group; `exi`
(int64) holds a work space for look-ahead positions, spaces and tops, then what the
Python expert's `lru_cache`s keep: whose turn the judge is of (`_judge_key_at`) and the
position whose look-ahead `E_AHEAD` holds (`_ahead_at`); `after` is a row for a position
after a choice.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numba as nb
import numpy as np

from cantstop.core.variant import Variant
from cantstop.fast import kernels
from cantstop.fast.bots import stop_wins
from cantstop.fast.kernels import CHOOSE, R_PHASE, R_PLAYER, R_RUNNERS, W_CHOICES, W_COUNT
from cantstop.fast.tables import (
    H_ACTIONS,
    H_COLUMNS,
    H_KINDS,
    H_MOST,
    H_OUTCOMES,
    H_ROLL_ACTION,
    H_SKIP,
    H_STOP_ACTION,
    H_TO_WIN,
    H_TOTAL,
    O_ACTION_COLS,
    O_ACTION_LEN,
    O_GROUP_KIND,
    O_GROUP_START,
    O_HEIGHTS,
    O_KIND_GROUP,
    O_SUB_ACTION,
    O_WEIGHTS,
)

# The Python expert's constants, copied (the fast layer imports only core); a test holds
# them equal to `cantstop.bots.expert`'s.
ALPHA = 1.5
SPARE = 0.3
RIVAL = 1.0
LEAD = 0.5
THREAT_SCALE = 0.25
WIN_BONUS = 0.5
LOOKAHEAD = 12
SHARPNESS = 2.0
SPACES = 36  # a column's spaces 0..35: rows of the worth tables
E_COUNT, E_MINE, E_RIVALS, E_BEST, E_THREAT, E_BASE = range(6)  # judge slots after the fractions
E_AHEAD = 6  # `roll_value` of the position at `_ahead_at`: the chosen choice's, the next decision's
JUDGE = 8

# Counted explicitly: the simulator's game loop, which calls `expert_act`, is not.
_jit = kernels.counted_jit(True)
_inline = nb.njit(cache=True, error_model="numpy", inline="always")


@lru_cache(maxsize=64)
def fractions(variant: Variant) -> np.ndarray:
    """float64[columns * 36]: `(space / height) ** ALPHA`, as `expert._fractions` computes it."""
    table = np.zeros(len(variant.heights) * SPACES)
    for j, h in enumerate(variant.heights):
        table[j * SPACES : j * SPACES + h + 1] = [(space / h) ** ALPHA for space in range(h + 1)]
    table.flags.writeable = False
    return table


# Offsets into `ex`, by the number of columns nc and players.
@_inline
def _judge_at(nc: int) -> int:
    return nc * SPACES


@_inline
def _worth_at(nc: int) -> int:
    return nc * SPACES + JUDGE


@_inline
def _rivals_at(nc: int) -> int:
    return 2 * nc * SPACES + JUDGE


@_inline
def _buffer_at(nc: int, players: int) -> int:
    return 2 * nc * SPACES + JUDGE + players * nc


@_inline
def _ranked_at(nc: int, players: int) -> int:
    """`roll_value`'s sorted values of the position it rolls from; then `_after_value`'s space."""
    return _buffer_at(nc, players) + nc


@_inline
def _memo_at(nc: int, players: int) -> int:
    return _ranked_at(nc, players) + 3 * nc + 6


@_inline
def _judge_key_at(tab: np.ndarray) -> int:
    return int(kernels.work_length_of(tab) + 4 * tab[H_COLUMNS])


@_inline
def _ahead_at(tab: np.ndarray, players: int) -> int:
    return int(_judge_key_at(tab) + 1 + (1 + players) * tab[H_COLUMNS])


@_jit
def new_scratch(tab: np.ndarray, fr: np.ndarray, players: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ex, exi, after) for one game of `players`: the expert's scratch space."""
    nc = tab[H_COLUMNS]
    ex = np.zeros(_memo_at(nc, players) + tab[H_ACTIONS] + tab[H_KINDS])
    ex[: fr.size] = fr
    length = kernels.row_length_of(tab, players)
    exi = np.zeros(_ahead_at(tab, players) + 1 + length, np.int64)
    after = np.zeros(length, np.int32)
    return ex, exi, after


@_inline
def _holds(exi: np.ndarray, at: int, tag: int, row: np.ndarray, start: int) -> bool:
    """Does exi[at] hold `tag` (never 0) and exi[at + 1:] a copy of row[start:]?"""
    if exi[at] != tag:
        return False
    for i in range(start, len(row)):  # noqa: SIM110 (numba compiles loops, not generators)
        if exi[at + 1 + i - start] != row[i]:
            return False
    return True


@_inline
def _hold(exi: np.ndarray, at: int, tag: int, row: np.ndarray, start: int) -> None:
    """Keep `tag` and a copy of row[start:] at exi[at] for `_holds`."""
    exi[at] = tag
    for i in range(start, len(row)):
        exi[at + 1 + i - start] = row[i]


@_inline
def _sort(ex: np.ndarray, at: int, n: int) -> None:
    """Sort ex[at:at+n], largest first (insertion sort: a dozen values at most)."""
    for i in range(at + 1, at + n):
        v = ex[i]
        k = i
        while k > at and ex[k - 1] < v:
            ex[k] = ex[k - 1]
            k -= 1
        ex[k] = v


@_inline
def _total(ex: np.ndarray, at: int, n: int, count: int) -> float:
    """The best `count` values in full plus SPARE of the rest (core: `expert._total`)."""
    _sort(ex, at, n)
    return _sum(ex, at, n, count)


@_inline
def _sum(ex: np.ndarray, at: int, n: int, count: int) -> float:
    """`_total` of values already sorted, summed in core's order."""
    first = 0.0
    rest = 0.0
    for i in range(n):
        if i < count:
            first += ex[at + i]
        else:
            rest += ex[at + i]
    return first + SPARE * rest


@_jit
def _rivals(tab: np.ndarray, ex: np.ndarray, players: int, tops: np.ndarray, tops_at: int) -> tuple[float, float]:
    """(best rival total, chance some rival wins next turn) once we claim `tops`."""
    nc = tab[H_COLUMNS]
    j0 = _judge_at(nc)
    count = ex[j0 + E_COUNT]
    buffer = _buffer_at(nc, players)
    best = 0.0
    none_wins = 1.0
    for k in range(int(ex[j0 + E_RIVALS])):
        n = 0
        for j in range(nc):
            v = ex[_rivals_at(nc) + k * nc + j]
            if not math.isnan(v) and not tops[tops_at + j]:
                ex[buffer + n] = v
                n += 1
        total = _total(ex, buffer, n, int(count))
        best = max(best, total)
        none_wins *= 1.0 - math.exp(-max(0.0, count - total) / THREAT_SCALE)
    return best, 1.0 - none_wins


@_jit
def value(tab: np.ndarray, row: np.ndarray, ex: np.ndarray, exi: np.ndarray, at: int) -> float:
    """Our value ending the turn on the spaces exi[at:at+nc], claiming tops exi[at+nc:at+2nc].

    Core: `_Judge.value`.
    """
    nc = tab[H_COLUMNS]
    players = kernels.players_of(tab, row)
    j0 = _judge_at(nc)
    count = int(ex[j0 + E_COUNT])
    tops = _tops(nc, exi, at)
    claims = int(ex[j0 + E_MINE]) + tops
    if claims >= count:
        return _won(ex, nc)
    buffer = _buffer_at(nc, players)
    mine = _total(ex, buffer, _ours(tab, row, ex, exi, at, claims, buffer), count)
    return _race(tab, ex, players, mine, exi, at + nc, tops)


@_inline
def _tops(nc: int, exi: np.ndarray, at: int) -> int:
    """How many tops the position at exi[at] claims."""
    tops = 0
    for j in range(nc):
        tops += exi[at + nc + j]
    return tops


@_inline
def _won(ex: np.ndarray, nc: int) -> float:
    """The value of a won game: 1 against rivals, alone `to_win` columns and a bonus."""
    j0 = _judge_at(nc)
    return 1.0 if ex[j0 + E_RIVALS] else ex[j0 + E_COUNT] + WIN_BONUS


@_inline
def _ours(tab: np.ndarray, row: np.ndarray, ex: np.ndarray, exi: np.ndarray, at: int, claims: int, to: int) -> int:
    """Write our worths of the open columns the position at exi[at] does not top, then 1.0 per
    claim, at ex[to:]; return how many (the values core's `_Judge.value` totals)."""
    nc = tab[H_COLUMNS]
    n = 0
    claimed = R_RUNNERS + nc
    for j in range(nc):
        if row[claimed + j] < 0 and not exi[at + nc + j]:
            ex[to + n] = ex[_worth_at(nc) + j * SPACES + exi[at + j]]
            n += 1
    for _ in range(claims):
        ex[to + n] = 1.0
        n += 1
    return n


@_inline
def _race(
    tab: np.ndarray, ex: np.ndarray, players: int, mine: float, exi: np.ndarray, tops_at: int, tops: int
) -> float:
    """Our value from our total `mine`, claiming the tops flagged at exi[tops_at] (core: the
    end of `_Judge.value`): alone the total, against rivals a chance to win."""
    j0 = _judge_at(tab[H_COLUMNS])
    if not ex[j0 + E_RIVALS]:
        return mine
    if tops:
        rival, threat = _rivals(tab, ex, players, exi, tops_at)
    else:
        rival, threat = ex[j0 + E_BEST], ex[j0 + E_THREAT]
    return (1.0 - threat) / (1.0 + math.exp(-SHARPNESS * (mine - RIVAL * rival)))


@_jit
def judge(tab: np.ndarray, row: np.ndarray, ex: np.ndarray, exi: np.ndarray) -> None:
    """Set up the turn's judge in `ex` for the player to move (core: `_Judge.__init__`)."""
    nc = tab[H_COLUMNS]
    players = kernels.players_of(tab, row)
    me = row[R_PLAYER]
    j0 = _judge_at(nc)
    claimed = R_RUNNERS + nc
    ex[j0 + E_COUNT] = tab[H_TO_WIN]
    mine = 0
    for j in range(nc):
        mine += row[claimed + j] == me
    ex[j0 + E_MINE] = mine
    ex[j0 + E_RIVALS] = players - 1
    for j in range(nc):
        if row[claimed + j] >= 0:
            continue
        lead = 0.0
        first = True
        for q in range(players):
            if q != me:
                v = ex[j * SPACES + row[kernels.pieces_at(tab, q) + j]]
                lead = v if first else max(lead, v)
                first = False
        for space in range(tab[tab[O_HEIGHTS] + j] + 1):
            v = ex[j * SPACES + space]
            ex[_worth_at(nc) + j * SPACES + space] = v * (1.0 - LEAD * max(0.0, lead - v))
    k = 0
    for q in range(players):
        if q == me:
            continue
        for j in range(nc):
            owner = row[claimed + j]
            at = _rivals_at(nc) + k * nc + j
            if owner < 0:
                ex[at] = ex[j * SPACES + row[kernels.pieces_at(tab, q) + j]]
            elif owner == q:
                ex[at] = 1.0
            else:
                ex[at] = math.nan
        k += 1
    base = kernels.work_length_of(tab)
    for j in range(nc):
        exi[base + nc + j] = 0  # no tops
    best, threat = _rivals(tab, ex, players, exi, base + nc)
    ex[j0 + E_BEST] = best
    ex[j0 + E_THREAT] = threat
    own = kernels.pieces_at(tab, me)
    for j in range(nc):
        exi[base + j] = row[own + j]
    ex[j0 + E_BASE] = value(tab, row, ex, exi, base)


@_inline
def _spaces(tab: np.ndarray, row: np.ndarray, exi: np.ndarray, at: int) -> None:
    """Spaces (runner or piece) and tops (runners on a top) of a row (core: `expert._spaces`)."""
    nc = tab[H_COLUMNS]
    own = kernels.pieces_at(tab, row[R_PLAYER])
    for j in range(nc):
        r = row[R_RUNNERS + j]
        exi[at + j] = r if r else row[own + j]
        exi[at + nc + j] = r != 0 and r == tab[tab[O_HEIGHTS] + j]


@_jit
def _after_value(
    tab: np.ndarray, row: np.ndarray, action: int, ex: np.ndarray, exi: np.ndarray, ranked: int
) -> float:
    """The value of stopping right after `action` (core: `_stop_after`, or the skip path).

    `value` of the position after, less its sort: the action changes at most three
    columns, so the `ranked` values that `roll_value` sorted for the position before
    (at `_ranked_at`) become this position's sorted values by taking out the changed
    columns' old worths and merging in their new ones. Equal values are the same
    float, so the sequence, and so its sum, is exactly the one `value` would sort.
    """
    nc = tab[H_COLUMNS]
    base = kernels.work_length_of(tab)
    at = base + 2 * nc
    for j in range(2 * nc):
        exi[at + j] = exi[base + j]
    p = row[R_PLAYER]
    cols = tab[O_ACTION_COLS] + 3 * action
    for i in range(tab[tab[O_ACTION_LEN] + action]):
        j = tab[cols + i]
        space = exi[at + j] + 1
        if tab[H_SKIP]:
            while kernels.taken(tab, row, p, j, space):
                space += 1
        exi[at + j] = space
        if space == tab[tab[O_HEIGHTS] + j]:
            exi[at + nc + j] = 1
    j0 = _judge_at(nc)
    tops = _tops(nc, exi, at)
    if int(ex[j0 + E_MINE]) + tops >= int(ex[j0 + E_COUNT]):
        return _won(ex, nc)
    players = kernels.players_of(tab, row)
    before = _ranked_at(nc, players)
    edits = before + 2 * nc  # the changed columns' old worths, then (from edits + 3) new ones
    m = 0
    previous = -1
    for i in range(tab[tab[O_ACTION_LEN] + action]):
        j = tab[cols + i]
        if j == previous:  # sorted: a column moved twice is adjacent
            continue
        previous = j
        worth = _worth_at(nc) + j * SPACES
        ex[edits + m] = ex[worth + exi[base + j]]
        ex[edits + 3 + m] = 1.0 if exi[at + nc + j] else ex[worth + exi[at + j]]
        m += 1
    _sort(ex, edits + 3, m)
    merged = before + nc
    n = k = 0
    taken_out = 0  # bit r: old worth r has been taken out
    for i in range(ranked):
        v = ex[before + i]
        out = False
        for r in range(m):
            if not taken_out >> r & 1 and ex[edits + r] == v:
                taken_out |= 1 << r
                out = True
                break
        if out:
            continue
        while k < m and ex[edits + 3 + k] > v:
            ex[merged + n] = ex[edits + 3 + k]
            n += 1
            k += 1
        ex[merged + n] = v
        n += 1
    while k < m:
        ex[merged + n] = ex[edits + 3 + k]
        n += 1
        k += 1
    mine = _sum(ex, merged, n, int(ex[j0 + E_COUNT]))
    return _race(tab, ex, players, mine, exi, at + nc, tops)


@_jit
def roll_value(tab: np.ndarray, row: np.ndarray, ex: np.ndarray, exi: np.ndarray) -> float:
    """Expected value of rolling once more from DECIDE `row`, then stopping (core: `roll_value`)."""
    nc = tab[H_COLUMNS]
    players = kernels.players_of(tab, row)
    kernels.prepare(tab, row, exi)  # exi begins with a work space of its own
    base = kernels.work_length_of(tab)
    _spaces(tab, row, exi, base)
    claims = int(ex[_judge_at(nc) + E_MINE]) + _tops(nc, exi, base)
    ranked = _ours(tab, row, ex, exi, base, claims, _ranked_at(nc, players))
    _sort(ex, _ranked_at(nc, players), ranked)
    memo = _memo_at(nc, players)
    for a in range(tab[H_ACTIONS]):
        ex[memo + a] = math.nan
    # The best choice of each kind of group (its sums), -inf for none: many rolls share a
    # kind, and the best needs neither the choices' order nor their merging across groups
    # (`offer_choices`), only each group's choices, straight from its table.
    kinds = memo + tab[H_ACTIONS]
    tail = kernels.status_tail(tab, exi)
    full = 1 << tab[H_MOST]
    for kind in range(tab[H_KINDS]):
        g = tab[tab[O_KIND_GROUP] + kind]
        found = kernels.group_choices(tab, exi, g, tail)
        subs = tab[O_SUB_ACTION] + 8 * g
        best = -math.inf
        for mask in range(1, full):
            if not found >> mask & 1:
                continue
            a = tab[subs + mask]
            v = ex[memo + a]
            if math.isnan(v):
                v = _after_value(tab, row, a, ex, exi, ranked)
                ex[memo + a] = v
            if v > best:
                best = v
        ex[kinds + kind] = best
    total = 0.0
    bust = 0
    for outcome in range(tab[H_OUTCOMES]):
        best = -math.inf
        for g in range(tab[tab[O_GROUP_START] + outcome], tab[tab[O_GROUP_START] + outcome + 1]):
            best = max(best, ex[kinds + tab[tab[O_GROUP_KIND] + g]])
        if best == -math.inf:  # no choice: a bust (values are finite)
            bust += tab[tab[O_WEIGHTS] + outcome]
            continue
        total += tab[tab[O_WEIGHTS] + outcome] * best
    return float((total + bust * ex[_judge_at(nc) + E_BASE]) / tab[H_TOTAL])


@_jit
def _stop_value(tab: np.ndarray, row: np.ndarray, ex: np.ndarray, exi: np.ndarray) -> float:
    base = kernels.work_length_of(tab)
    _spaces(tab, row, exi, base)
    return value(tab, row, ex, exi, base)


@_jit
def _play_into(tab: np.ndarray, row: np.ndarray, action: int, after: np.ndarray, exi: np.ndarray) -> None:
    """`after` = the row with choice `action` played."""
    after[:] = row
    kernels.prepare(tab, after, exi)
    kernels.choose(tab, after, action, exi)


@_jit
def expert_act(
    tab: np.ndarray, row: np.ndarray, work: np.ndarray, ex: np.ndarray, exi: np.ndarray,
    after: np.ndarray,
) -> int:
    """The expert's action, by kernel id (core: `play_expert`). In CHOOSE, `work` lists the choices.

    Like the Python expert's caches, it keeps the judge while the turn's mover, claims and
    pieces stay the same, and the chosen choice's look-ahead for the next decision.
    """
    nc = tab[H_COLUMNS]
    j0 = _judge_at(nc)
    key = _judge_key_at(tab)
    if not _holds(exi, key, row[R_PLAYER] + 1, row, R_RUNNERS + nc):  # claims and pieces
        judge(tab, row, ex, exi)
        _hold(exi, key, row[R_PLAYER] + 1, row, R_RUNNERS + nc)
    ahead = _ahead_at(tab, kernels.players_of(tab, row))
    if row[R_PHASE] != CHOOSE:  # core: decide
        if not kernels.may_stop(tab, row):
            return int(tab[H_ROLL_ACTION])
        if stop_wins(tab, row):
            return int(tab[H_STOP_ACTION])
        stop = _stop_value(tab, row, ex, exi)
        rolling = ex[j0 + E_AHEAD] if _holds(exi, ahead, 1, row, 0) else roll_value(tab, row, ex, exi)
        return int(tab[H_ROLL_ACTION] if rolling > stop else tab[H_STOP_ACTION])
    listed = 2 * nc + W_CHOICES
    n = work[2 * nc + W_COUNT]
    if n == 1:
        return int(work[listed])
    for k in range(n):  # core: choose
        _play_into(tab, row, work[listed + k], after, exi)
        if stop_wins(tab, after):
            return int(work[listed + k])
    keep = np.ones(n, np.bool_)
    if n > LOOKAHEAD:
        # Look ahead from the LOOKAHEAD choices whose stop is worth most (ties: the earlier).
        worth = np.empty(n)
        for k in range(n):
            _play_into(tab, row, work[listed + k], after, exi)
            worth[k] = _stop_value(tab, after, ex, exi)
        for k in range(n):
            ahead = 0
            for i in range(n):
                if worth[i] > worth[k] or (worth[i] == worth[k] and i < k):
                    ahead += 1
            keep[k] = ahead < LOOKAHEAD
    best = work[listed]
    best_value = -math.inf
    for k in range(n):
        if not keep[k]:
            continue
        _play_into(tab, row, work[listed + k], after, exi)
        rolling = roll_value(tab, after, ex, exi)
        v = rolling
        if kernels.may_stop(tab, after):
            v = max(v, _stop_value(tab, after, ex, exi))
        if v > best_value:
            best, best_value = work[listed + k], v
            ex[j0 + E_AHEAD] = rolling
            _hold(exi, ahead, 1, after, 0)
    return int(best)
