"""The rules as compiled kernels over one game: a row of the batch, plus its work space.

Each kernel names its core twin. Kernels trust their input: the Python functions in
`cantstop.fast.batch` check actions and dice before calling them, so nothing is
half-applied. Phases are core's `Phase` numbers.

A game is one int32 row: player, phase, steps, turn, the four dice (0 unless in CHOOSE),
then the runners by column, the claims by column (-1 for none), then each player's pieces
by column. Its int64 `work` holds what core's `status` holds, derived from the row and
kept up to date move by move (`prepare` derives it afresh): each column's room (capped
at the most steps one roll takes: more cannot matter) and whether a runner stands there, the runners and steps left; then the choices of the roll
on the table, as action numbers in core's option order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba as nb
import numpy as np

from cantstop.fast.tables import (
    H_CHOICES,
    H_COLUMNS,
    H_FACES,
    H_MOST,
    H_NO_STOP,
    H_ROLL_ACTION,
    H_RUNNERS,
    H_SKIP,
    H_STEP_LIMIT,
    H_STOP_ACTION,
    H_TO_WIN,
    O_ACTION_COLS,
    O_ACTION_LEN,
    O_CHOICE_TABLES,
    O_GROUP_COLS,
    O_GROUP_START,
    O_GROUP_TABLE,
    O_HEIGHTS,
    O_INTERNAL,
    O_NUMBER,
    O_ROLL_INDEX,
    O_SUB_ACTION,
)

ROLL, CHOOSE, DECIDE, OVER = 0, 1, 2, 3  # core.state.Phase
R_PLAYER, R_PHASE, R_STEPS, R_TURN, R_DICE, R_RUNNERS = 0, 1, 2, 3, 4, 8  # row slots
# Work slots after the rooms [0, nc) and runner flags [nc, 2 nc): offsets from 2 nc.
W_LEFT, W_STEPS_LEFT, W_COUNT, W_CHOICES = 0, 1, 2, 3

_jit = nb.njit(cache=True, error_model="numpy")
_inline = nb.njit(cache=True, error_model="numpy", inline="always")
_F = TypeVar("_F", bound=Callable[..., object])


def counted_jit(counted: bool, error_model: str = "numpy") -> Callable[[_F], _F]:
    """`numba.njit(cache=True)` with numba's reference counting of arrays on or off.

    Off, every array an inlined kernel takes costs nothing; on, two atomic operations per
    call. Code that allocates needs it on; a callee that leaves it unset inherits its
    caller's choice, so code called from uncounted code sets it. (`_nrt` is numba's own
    option, absent from its type stubs.)
    """
    options: dict[str, Any] = {"cache": True, "error_model": error_model, "_nrt": counted}
    return cast(Callable[[_F], _F], nb.njit(**options))


def row_length(columns: int, players: int) -> int:
    """The length of a game's row."""
    return R_RUNNERS + (2 + players) * columns


@_inline
def row_length_of(tab: np.ndarray, players: int) -> int:
    return int(R_RUNNERS + (2 + players) * tab[H_COLUMNS])


@_inline
def work_length_of(tab: np.ndarray) -> int:
    """The length of a game's `work` array."""
    return int(2 * tab[H_COLUMNS] + W_CHOICES + tab[H_CHOICES])


@_inline
def players_of(tab: np.ndarray, row: np.ndarray) -> int:
    return int((len(row) - R_RUNNERS) // tab[H_COLUMNS] - 2)


@_inline
def pieces_at(tab: np.ndarray, player: int) -> int:
    """Where `player`'s pieces start in a row."""
    return int(R_RUNNERS + (2 + player) * tab[H_COLUMNS])


@_inline
def taken(tab: np.ndarray, row: np.ndarray, player: int, j: int, space: int) -> bool:
    """Does another player's piece stand on `space` of column j?"""
    for q in range(players_of(tab, row)):
        if q != player and row[pieces_at(tab, q) + j] == space:
            return True
    return False


@_inline
def room(tab: np.ndarray, row: np.ndarray, player: int, j: int) -> int:
    """Steps column j can still take this turn (core: `_room`)."""
    if row[R_RUNNERS + tab[H_COLUMNS] + j] >= 0:  # claimed
        return 0
    height = tab[tab[O_HEIGHTS] + j]
    base = row[R_RUNNERS + j]
    if base == 0:
        base = row[pieces_at(tab, player) + j]
    if not tab[H_SKIP]:
        return int(height - base)
    free = 0
    for space in range(base + 1, height + 1):
        if not taken(tab, row, player, j, space):
            free += 1
    return free


@_inline
def prepare(tab: np.ndarray, row: np.ndarray, work: np.ndarray) -> None:
    """Derive the work space of a row afresh (core: `column_status`)."""
    nc = tab[H_COLUMNS]
    player = row[R_PLAYER]
    left = tab[H_RUNNERS]
    most = tab[H_MOST]
    for j in range(nc):
        work[j] = min(room(tab, row, player, j), most)
        has = row[R_RUNNERS + j] != 0
        work[nc + j] = has
        left -= has
    w = 2 * nc
    work[w + W_LEFT] = left
    work[w + W_STEPS_LEFT] = tab[H_STEP_LIMIT] - row[R_STEPS]
    work[w + W_COUNT] = 0


@_inline
def _offer(tab: np.ndarray, work: np.ndarray, w: int, action: int) -> None:
    """Add a choice to the list, kept in core's option order, once."""
    count = work[w + W_COUNT]
    listed = w + W_CHOICES
    for k in range(count):
        if work[listed + k] == action:
            return
    at = count
    while at > 0 and work[listed + at - 1] > action:  # kernel ids follow core's order
        work[listed + at] = work[listed + at - 1]
        at -= 1
    work[listed + at] = action
    work[w + W_COUNT] = count + 1


@_inline
def status_tail(tab: np.ndarray, work: np.ndarray) -> int:
    """The part of every group's `choice_table` key that the runners and steps left make."""
    most = tab[H_MOST]
    w = 2 * tab[H_COLUMNS]
    return int(min(work[w + W_LEFT], most) * (most + 1) + min(work[w + W_STEPS_LEFT], most))


@_inline
def group_choices(tab: np.ndarray, work: np.ndarray, g: int, tail: int) -> int:
    """Bit m set: subset mask m of group g is a choice (core: `group_choices`, read from its table).

    `tail` is `status_tail`; the key's head is the group's columns' status codes.
    """
    nc = tab[H_COLUMNS]
    most = tab[H_MOST]
    cols = tab[O_GROUP_COLS] + 3 * g
    key = 0
    for i in range(most):
        c = tab[cols + i]
        key = key * (2 * most + 2) + 2 * work[c] + work[nc + c]
    at = tab[O_CHOICE_TABLES] + tab[tab[O_GROUP_TABLE] + g]
    return int(tab[at + key * (most + 1) * (most + 1) + tail])


@_inline
def offer_choices(tab: np.ndarray, outcome: int, work: np.ndarray) -> int:
    """List the choices of roll `outcome`; return how many (core: `roll_choices`)."""
    w = 2 * tab[H_COLUMNS]
    work[w + W_COUNT] = 0
    tail = status_tail(tab, work)
    full = 1 << tab[H_MOST]
    for g in range(tab[tab[O_GROUP_START] + outcome], tab[tab[O_GROUP_START] + outcome + 1]):
        found = group_choices(tab, work, g, tail)
        subs = tab[O_SUB_ACTION] + 8 * g
        for mask in range(1, full):
            if found >> mask & 1:
                _offer(tab, work, w, tab[subs + mask])
    return int(work[w + W_COUNT])


@_inline
def outcome_of(tab: np.ndarray, row: np.ndarray) -> int:
    """The outcome number of the row's roll (core: `RollCatalog.index`)."""
    f = tab[H_FACES]
    d = R_DICE
    code = ((row[d] - 1) * f + row[d + 1] - 1) * f * f + (row[d + 2] - 1) * f + row[d + 3] - 1
    return int(tab[tab[O_ROLL_INDEX] + code])


@_inline
def may_stop(tab: np.ndarray, row: np.ndarray) -> bool:
    """False only under no-stop-on-occupied with a runner on a rival's piece (core: `may_stop`)."""
    if not tab[H_NO_STOP]:
        return True
    me = row[R_PLAYER]
    for j in range(tab[H_COLUMNS]):
        r = row[R_RUNNERS + j]
        if r and taken(tab, row, me, j, r):
            return False
    return True


@_inline
def may_place(tab: np.ndarray, work: np.ndarray) -> bool:
    """A runner left and a column without one that has room (core: `State.may_place`)."""
    nc = tab[H_COLUMNS]
    if work[2 * nc + W_LEFT] <= 0:
        return False
    for j in range(nc):  # noqa: SIM110 (numba compiles loops, not generators)
        if not work[nc + j] and work[j] > 0:
            return True
    return False


@_inline
def clear_dice(row: np.ndarray) -> None:
    """Take the dice off the table; a loop, as a slice of the row costs two atomic operations."""
    for i in range(R_DICE, R_DICE + 4):
        row[i] = 0


@_inline
def end_turn(tab: np.ndarray, row: np.ndarray, work: np.ndarray) -> None:
    """Pass the dice to the next seat (core: `State._end_turn`); also the bust."""
    nc = tab[H_COLUMNS]
    # Loops and a comparison rather than slices and a modulo: a slice is an array object,
    # counted on and off with two atomic operations, and a turn ends every six moves.
    player = row[R_PLAYER] + 1
    row[R_PLAYER] = player if player < players_of(tab, row) else 0
    for j in range(nc):
        row[R_RUNNERS + j] = 0
    row[R_STEPS] = 0
    row[R_TURN] += 1
    row[R_PHASE] = ROLL
    clear_dice(row)
    prepare(tab, row, work)


@_inline
def roll(tab: np.ndarray, row: np.ndarray, dice: np.ndarray, work: np.ndarray) -> int:
    """Put `dice` on the table; no choice busts the turn (core: `State.roll`).

    Returns the number of choices, which `work` lists. The dice go in by a loop: copying
    a slice may allocate, which code compiled without reference counting cannot.
    """
    for i in range(4):
        row[R_DICE + i] = dice[i]
    return roll_outcome(tab, row, outcome_of(tab, row), work)


@_inline
def roll_outcome(tab: np.ndarray, row: np.ndarray, outcome: int, work: np.ndarray) -> int:
    """`roll` once the outcome is known, leaving the row's dice as they are."""
    found = offer_choices(tab, outcome, work)
    if found:
        row[R_PHASE] = CHOOSE
    else:
        end_turn(tab, row, work)
    return found


@_inline
def choose(tab: np.ndarray, row: np.ndarray, action: int, work: np.ndarray) -> None:
    """Advance the runners of a choice (core: `State._advance`)."""
    nc = tab[H_COLUMNS]
    p = row[R_PLAYER]
    own = pieces_at(tab, p)
    n = tab[tab[O_ACTION_LEN] + action]
    cols = tab[O_ACTION_COLS] + 3 * action
    for i in range(n):
        j = tab[cols + i]
        space = row[R_RUNNERS + j]
        if space == 0:
            space = row[own + j]
            work[nc + j] = 1
            work[2 * nc + W_LEFT] -= 1
        space += 1
        if tab[H_SKIP]:
            while taken(tab, row, p, j, space):
                space += 1
        row[R_RUNNERS + j] = space
    for i in range(n):
        j = tab[cols + i]
        work[j] = min(room(tab, row, p, j), tab[H_MOST])
    row[R_STEPS] += n
    work[2 * nc + W_STEPS_LEFT] -= n
    row[R_PHASE] = DECIDE
    clear_dice(row)


@_inline
def stop(tab: np.ndarray, row: np.ndarray, work: np.ndarray) -> None:
    """Bank the runners, claim tops, wipe rivals there, win or pass (core: `State._stop`)."""
    nc = tab[H_COLUMNS]
    me = row[R_PLAYER]
    own = pieces_at(tab, me)
    claims = R_RUNNERS + nc
    claimed_now = False
    for j in range(nc):
        r = row[R_RUNNERS + j]
        if r:
            row[own + j] = r
            if r == tab[tab[O_HEIGHTS] + j]:
                row[claims + j] = me
                claimed_now = True
                for q in range(players_of(tab, row)):
                    if q != me:
                        row[pieces_at(tab, q) + j] = 0
    if claimed_now:
        won = 0
        for j in range(nc):
            won += row[claims + j] == me
        if won >= tab[H_TO_WIN]:
            row[R_RUNNERS : R_RUNNERS + nc] = 0
            row[R_STEPS] = 0
            row[R_TURN] += 1
            row[R_PHASE] = OVER
            return
    end_turn(tab, row, work)


@_inline
def apply(tab: np.ndarray, row: np.ndarray, action: int, work: np.ndarray) -> None:
    """Play a legal action, by kernel id (core: `State.play`)."""
    if row[R_PHASE] == CHOOSE:
        choose(tab, row, action, work)
    elif action == tab[H_ROLL_ACTION]:
        row[R_PHASE] = ROLL
    else:
        stop(tab, row, work)


@_inline
def legal(tab: np.ndarray, row: np.ndarray, work: np.ndarray, mask: np.ndarray) -> None:
    """Derive the row's work space; mark its legal actions' public numbers in `mask`.

    Core: `legal_actions`. Lists the choices in `work` as well.
    """
    prepare(tab, row, work)
    mask[:] = False
    phase = row[R_PHASE]
    if phase == CHOOSE:
        w = 2 * tab[H_COLUMNS]
        numbers = tab[O_NUMBER]
        for k in range(offer_choices(tab, outcome_of(tab, row), work)):
            mask[tab[numbers + work[w + W_CHOICES + k]]] = True
    elif phase == DECIDE:
        mask[tab[H_ROLL_ACTION]] = True  # ROLL and STOP: the same in both numberings
        mask[tab[H_STOP_ACTION]] = may_stop(tab, row)


# ------------------------------------------------------------------ whole batches
@_jit
def batch_masks(tab: np.ndarray, rows: np.ndarray, out: np.ndarray) -> None:
    """out[b, a]: action a is legal in game b."""
    work = np.zeros(work_length_of(tab), np.int64)
    for b in range(len(rows)):
        legal(tab, rows[b], work, out[b])


@_jit
def batch_apply(tab: np.ndarray, rows: np.ndarray, actions: np.ndarray) -> None:
    """Apply actions[b] (public numbers, already checked legal) to game b."""
    work = np.zeros(work_length_of(tab), np.int64)
    for b in range(len(rows)):
        prepare(tab, rows[b], work)
        apply(tab, rows[b], tab[tab[O_INTERNAL] + actions[b]], work)


@_jit
def batch_roll(tab: np.ndarray, rows: np.ndarray, dice: np.ndarray, busts: np.ndarray) -> None:
    """Roll dice[b] in game b (already checked to be in ROLL); busts[b] says it busted."""
    work = np.zeros(work_length_of(tab), np.int64)
    for b in range(len(rows)):
        prepare(tab, rows[b], work)
        busts[b] = roll(tab, rows[b], dice[b], work) == 0
