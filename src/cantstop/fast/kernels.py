"""The rules as compiled kernels over one game `b` of a batch (`StateArrays`).

Each kernel names its core twin. Kernels trust their input: the Python functions in
`cantstop.fast.batch` check actions and dice before calling them, so nothing is
half-applied. Phases are core's `Phase` numbers.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from cantstop.fast.tables import FastTables

ROLL, CHOOSE, DECIDE, OVER = 0, 1, 2, 3  # core.state.Phase


class StateArrays(NamedTuple):
    """A batch of positions, struct-of-arrays; the leading axis is the game.

    Columns are indexed from 0 (column number c is index c - 2); spaces as in core.
    """

    pieces: np.ndarray  # int8[games, players, columns]
    runners: np.ndarray  # int8[games, columns]: 0 or the runner's space
    claimed: np.ndarray  # int8[games, columns]: owner or -1
    player: np.ndarray  # int8[games]: to move (the winner once over)
    phase: np.ndarray  # int8[games]
    dice: np.ndarray  # int8[games, 4]: the roll in CHOOSE, else 0
    steps: np.ndarray  # int16[games]: steps taken this turn
    turn: np.ndarray  # int32[games]: finished turns


class Scratch(NamedTuple):
    """Work space of one game's decisions, allocated once per game, not per call."""

    rooms: np.ndarray  # int32[columns]
    has: np.ndarray  # bool[columns]: a runner stands there
    flags: np.ndarray  # bool[actions]: the choices of the roll on the table


@nb.njit(cache=True)
def new_scratch(t: FastTables) -> Scratch:
    n = len(t.heights)
    return Scratch(
        np.zeros(n, np.int32), np.zeros(n, np.bool_), np.zeros(len(t.action_len), np.bool_)
    )


@nb.njit(cache=True)
def room(t: FastTables, s: StateArrays, b: int, player: int, j: int) -> int:
    """Steps column j can still take this turn (core: `_room`)."""
    if s.claimed[b, j] >= 0:
        return 0
    height = t.heights[j]
    base = s.runners[b, j]
    if base == 0:
        base = s.pieces[b, player, j]
    if not t.skip:
        return int(height - base)
    free = 0
    for space in range(base + 1, height + 1):
        taken = False
        for q in range(s.pieces.shape[1]):
            if q != player and s.pieces[b, q, j] == space:
                taken = True
        if not taken:
            free += 1
    return free


@nb.njit(cache=True)
def prepare(t: FastTables, s: StateArrays, b: int, w: Scratch) -> tuple[int, int]:
    """Fill rooms and runner flags; return (runners left, steps left) (core: `column_status`)."""
    player = s.player[b]
    left = t.runners
    for j in range(len(t.heights)):
        w.rooms[j] = room(t, s, b, player, j)
        w.has[j] = s.runners[b, j] != 0
        if w.has[j]:
            left -= 1
    return left, t.step_limit - s.steps[b]


@nb.njit(cache=True)
def _applicable(t: FastTables, g: int, mask: int, w: Scratch, left: int, steps_left: int) -> bool:
    """Can every step of the group's sums picked by `mask` be taken? (core: `applicable`)"""
    n = t.group_len[g]
    count = 0
    for i in range(n):
        count += mask >> i & 1
    if count > steps_left:
        return False
    new = 0
    for i in range(n):
        if not mask >> i & 1:
            continue
        c = t.group_cols[g, i]
        first = True
        for k in range(i):
            if mask >> k & 1 and t.group_cols[g, k] == c:
                first = False
        if not first:
            continue
        same = 0
        for k in range(n):
            if mask >> k & 1 and t.group_cols[g, k] == c:
                same += 1
        if w.rooms[c] < same:
            return False
        if not w.has[c]:
            new += 1
    return new <= left


@nb.njit(cache=True)
def outcome_flags(t: FastTables, outcome: int, w: Scratch, left: int, steps_left: int) -> int:
    """Mark the choices of roll `outcome` in `w.flags` (cleared first); return how many.

    Core: `roll_choices` — per group, the applicable subsets no applicable superset extends.
    """
    w.flags[:] = False
    found = 0
    for g in range(t.group_start[outcome], t.group_start[outcome + 1]):
        n = t.group_len[g]
        full = (1 << n) - 1
        ok = 0
        for mask in range(1, full + 1):
            if _applicable(t, g, mask, w, left, steps_left):
                ok |= 1 << mask
        for mask in range(1, full + 1):
            if not ok >> mask & 1:
                continue
            maximal = True
            for i in range(n):
                if not mask >> i & 1 and ok >> (mask | 1 << i) & 1:
                    maximal = False
            if maximal:
                a = t.sub_action[g, mask]
                if not w.flags[a]:
                    w.flags[a] = True
                    found += 1
    return found


@nb.njit(cache=True)
def outcome_of(t: FastTables, dice: np.ndarray) -> int:
    """The outcome number of an ordered roll (core: `Tables.index`)."""
    f = t.faces
    return int(t.roll_index[((dice[0] - 1) * f + dice[1] - 1) * f * f + (dice[2] - 1) * f + dice[3] - 1])


@nb.njit(cache=True)
def may_stop(t: FastTables, s: StateArrays, b: int) -> bool:
    """False only under no-stop-on-occupied with a runner on a rival's piece (core: `may_stop`)."""
    if not t.no_stop_on_occupied:
        return True
    me = s.player[b]
    for j in range(len(t.heights)):
        r = s.runners[b, j]
        if r:
            for q in range(s.pieces.shape[1]):
                if q != me and s.pieces[b, q, j] == r:
                    return False
    return True


@nb.njit(cache=True)
def may_place(t: FastTables, s: StateArrays, b: int, w: Scratch) -> bool:
    """A runner left and a column without one that has room (core: `State.may_place`)."""
    left, _ = prepare(t, s, b, w)
    if left <= 0:
        return False
    for j in range(len(t.heights)):  # noqa: SIM110 (numba compiles loops, not generators)
        if not w.has[j] and w.rooms[j] > 0:
            return True
    return False


@nb.njit(cache=True)
def end_turn(s: StateArrays, b: int) -> None:
    """Pass the dice to the next seat (core: `State._end_turn`); also the bust."""
    s.player[b] = (s.player[b] + 1) % s.pieces.shape[1]
    s.runners[b, :] = 0
    s.steps[b] = 0
    s.turn[b] += 1
    s.phase[b] = ROLL
    s.dice[b, :] = 0


@nb.njit(cache=True)
def roll(t: FastTables, s: StateArrays, b: int, dice: np.ndarray, w: Scratch) -> int:
    """Put `dice` on the table; no choice busts the turn (core: `State.roll`).

    Returns the number of choices; `w.flags` holds them.
    """
    left, steps_left = prepare(t, s, b, w)
    found = outcome_flags(t, outcome_of(t, dice), w, left, steps_left)
    if found:
        s.phase[b] = CHOOSE
        s.dice[b, :] = dice
    else:
        end_turn(s, b)
    return found


@nb.njit(cache=True)
def choose(t: FastTables, s: StateArrays, b: int, action: int) -> None:
    """Advance the runners of a choice (core: `State._advance`)."""
    p = s.player[b]
    n = t.action_len[action]
    for i in range(n):
        j = t.action_cols[action, i]
        space = s.runners[b, j]
        if space == 0:
            space = s.pieces[b, p, j]
        space += 1
        if t.skip:
            hopping = True
            while hopping:
                hopping = False
                for q in range(s.pieces.shape[1]):
                    if q != p and s.pieces[b, q, j] == space:
                        hopping = True
                if hopping:
                    space += 1
        s.runners[b, j] = space
    s.steps[b] += n
    s.phase[b] = DECIDE
    s.dice[b, :] = 0


@nb.njit(cache=True)
def stop(t: FastTables, s: StateArrays, b: int) -> None:
    """Bank the runners, claim tops, wipe rivals there, win or pass (core: `State._stop`)."""
    me = s.player[b]
    claimed_now = False
    for j in range(len(t.heights)):
        r = s.runners[b, j]
        if r:
            s.pieces[b, me, j] = r
            if r == t.heights[j]:
                s.claimed[b, j] = me
                claimed_now = True
                for q in range(s.pieces.shape[1]):
                    if q != me:
                        s.pieces[b, q, j] = 0
    if claimed_now:
        won = 0
        for j in range(len(t.heights)):
            if s.claimed[b, j] == me:
                won += 1
        if won >= t.to_win:
            s.runners[b, :] = 0
            s.steps[b] = 0
            s.turn[b] += 1
            s.phase[b] = OVER
            s.dice[b, :] = 0
            return
    end_turn(s, b)


@nb.njit(cache=True)
def apply(t: FastTables, s: StateArrays, b: int, action: int) -> None:
    """Play a legal action of the one numbering (core: `State.play`)."""
    if s.phase[b] == CHOOSE:
        choose(t, s, b, action)
    elif action == t.roll_action:
        s.phase[b] = ROLL
    else:
        stop(t, s, b)


@nb.njit(cache=True)
def legal(t: FastTables, s: StateArrays, b: int, w: Scratch) -> int:
    """Mark game b's legal actions in `w.flags`; return how many (core: `legal_actions`)."""
    phase = s.phase[b]
    if phase == CHOOSE:
        left, steps_left = prepare(t, s, b, w)
        return outcome_flags(t, outcome_of(t, s.dice[b]), w, left, steps_left)
    w.flags[:] = False
    if phase == DECIDE:
        w.flags[t.roll_action] = True
        if may_stop(t, s, b):
            w.flags[t.stop_action] = True
            return 2
        return 1
    return 0


# ------------------------------------------------------------------ whole batches
@nb.njit(cache=True)
def batch_masks(t: FastTables, s: StateArrays, out: np.ndarray) -> None:
    """out[b, a]: action a is legal in game b."""
    w = new_scratch(t)
    for b in range(len(s.phase)):
        legal(t, s, b, w)
        out[b, :] = w.flags


@nb.njit(cache=True)
def batch_apply(t: FastTables, s: StateArrays, actions: np.ndarray) -> None:
    """Apply actions[b] to game b (already checked legal); a negative action skips the game."""
    for b in range(len(s.phase)):
        if actions[b] >= 0:
            apply(t, s, b, actions[b])


@nb.njit(cache=True)
def batch_roll(t: FastTables, s: StateArrays, dice: np.ndarray, busts: np.ndarray) -> None:
    """Roll dice[b] in game b (already checked to be in ROLL); busts[b] says it busted."""
    w = new_scratch(t)
    for b in range(len(s.phase)):
        busts[b] = roll(t, s, b, dice[b], w) == 0
