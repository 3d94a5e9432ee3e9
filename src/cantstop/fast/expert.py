"""The compiled twin of the expert bot (`cantstop.bots.expert`): the same value, the same picks.

Every step mirrors the Python bot in the same order of floating-point operations (sums of
sorted values, the same products and exponentials), so the two agree to the last bit in
practice; the equality tests allow a different pick only where the two actions' values
tie within 1e-9. The constants are the Python bot's own.

Scratch space: `ex` (float64) holds the variant's column worths by space (`fractions`),
then the turn's judge (see `E_*`), a sort buffer and a memo of choice values; `exi`
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
    H_MOST,
    H_OUTCOMES,
    H_ROLL_ACTION,
    H_SKIP,
    H_STOP_ACTION,
    H_TO_WIN,
    H_TOTAL,
    O_ACTION_COLS,
    O_ACTION_LEN,
    O_GROUP_START,
    O_HEIGHTS,
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

_jit = nb.njit(cache=True, error_model="numpy")
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
def _memo_at(nc: int, players: int) -> int:
    return _buffer_at(nc, players) + 4 * nc + 16


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
    ex = np.zeros(_memo_at(nc, players) + tab[H_ACTIONS])
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
def _total(ex: np.ndarray, at: int, n: int, count: int) -> float:
    """The best `count` values in full plus SPARE of the rest (core: `expert._total`)."""
    for i in range(at + 1, at + n):  # insertion sort, largest first
        v = ex[i]
        k = i
        while k > at and ex[k - 1] < v:
            ex[k] = ex[k - 1]
            k -= 1
        ex[k] = v
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
    rivals = int(ex[j0 + E_RIVALS])
    tops = 0
    for j in range(nc):
        tops += exi[at + nc + j]
    claims = int(ex[j0 + E_MINE]) + tops
    if claims >= count:
        return 1.0 if rivals else count + WIN_BONUS
    buffer = _buffer_at(nc, players)
    n = 0
    claimed = R_RUNNERS + nc
    for j in range(nc):
        if row[claimed + j] < 0 and not exi[at + nc + j]:
            ex[buffer + n] = ex[_worth_at(nc) + j * SPACES + exi[at + j]]
            n += 1
    for _ in range(claims):
        ex[buffer + n] = 1.0
        n += 1
    mine = _total(ex, buffer, n, count)
    if not rivals:
        return mine
    if tops:
        rival, threat = _rivals(tab, ex, players, exi, at + nc)
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
def _after_value(tab: np.ndarray, row: np.ndarray, action: int, ex: np.ndarray, exi: np.ndarray) -> float:
    """The value of stopping right after `action` (core: `_stop_after`, or the skip path)."""
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
    return value(tab, row, ex, exi, at)


@_jit
def roll_value(tab: np.ndarray, row: np.ndarray, ex: np.ndarray, exi: np.ndarray) -> float:
    """Expected value of rolling once more from DECIDE `row`, then stopping (core: `roll_value`)."""
    nc = tab[H_COLUMNS]
    players = kernels.players_of(tab, row)
    kernels.prepare(tab, row, exi)  # exi begins with a work space of its own
    base = kernels.work_length_of(tab)
    _spaces(tab, row, exi, base)
    memo = _memo_at(nc, players)
    for a in range(tab[H_ACTIONS]):
        ex[memo + a] = math.nan
    tail = kernels.status_tail(tab, exi)
    full = 1 << tab[H_MOST]
    total = 0.0
    bust = 0
    for outcome in range(tab[H_OUTCOMES]):
        weight = tab[tab[O_WEIGHTS] + outcome]
        # The best choice's value needs neither the choices' order nor their merging
        # across groups (`offer_choices`): each group's choices straight from its table.
        offered = False
        best = -math.inf
        for g in range(tab[tab[O_GROUP_START] + outcome], tab[tab[O_GROUP_START] + outcome + 1]):
            found = kernels.group_choices(tab, exi, g, tail)
            subs = tab[O_SUB_ACTION] + 8 * g
            for mask in range(1, full):
                if not found >> mask & 1:
                    continue
                offered = True
                a = tab[subs + mask]
                v = ex[memo + a]
                if math.isnan(v):
                    v = _after_value(tab, row, a, ex, exi)
                    ex[memo + a] = v
                if v > best:
                    best = v
        if not offered:
            bust += weight
            continue
        total += weight * best
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
