"""The stop values of a turn with rivals, against a learned chance to win (numba).

The rivals bot (`cantstop.bots.rival_turns`) optimises a turn with the solver's kernel;
what a stop in each in-turn state is worth comes from a conditional logit over the
players (`cantstop.bots.learned_value`, its numpy twin: a test holds them equal). Here
that value is evaluated for every in-turn state of a turn at once. The players are
ordered from the one who moves after the stop; the mover is last.

The rivals' pieces shape the turn under two published options, and the turn's
`RivalPosition` carries what they do: under `skip` a runner passes the spaces holding
another player's piece, so the d-th step of a column lands on its d-th free space
(`spaces`); under `no_stop_on_occupied` a stop is barred while a runner shares a space
with another player's piece (`blocked`), and its stop value is infinite: the kernel, which
minimises, never stops there. `value` is the model as plain arrays (`LearnedValue`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from cantstop.solve.bundles import Estimate, TurnGraph
from cantstop.solve.kernels import decode, estimated, jit, uncounted

if TYPE_CHECKING:
    import numpy.typing as npt

# Features, in `learned_value.FEATURES`' order.
_TURNS, _SQUARED, _ROOT, _CLAIMS, _CANNOT, _WAITS = range(6)


class LearnedValue(NamedTuple):
    """A board's learned value (`learned_value.Model`) as the kernel reads it: the weights of its
    features, and a player's expected turns alone (`Turns`): the solitaire solver's values by
    anchor index (`solved`, with the anchor `strides`), or where those are empty the `estimate`;
    `to_win`, the claims that win."""

    coef: npt.NDArray[np.float64]
    solved: npt.NDArray[np.float64]
    strides: npt.NDArray[np.int64]
    estimate: Estimate
    to_win: int


class RivalPosition(NamedTuple):
    """The position a turn starts from, players from the one after the mover (the mover last).

    `progress[p, c]`: player p's progress in column c (a claimed column at its height for its
    owner, 0 for the others); `owner[c]`: the player who claimed column c, or -1. For the
    mover, `spaces[c, d]`: its space after d steps in column c (d up to the column's room;
    d = 0 its piece), and `blocked[c, d]`: a stop with its runner there is barred. The last
    step of an open column is its top, which no other player's piece can hold.
    """

    progress: npt.NDArray[np.int64]
    owner: npt.NDArray[np.int64]
    spaces: npt.NDArray[np.int64]
    blocked: npt.NDArray[np.bool_]


@uncounted
def turns_of(space: Any, value: LearnedValue) -> float:
    """A player's expected turns alone at progress `space` (`Turns.of`)."""
    if value.solved.shape[0] > 0:
        index = 0
        for i in range(space.shape[0]):
            index += space[i] * value.strides[i]
        return float(value.solved[index])
    return estimated(space, value.estimate)


@uncounted
def score(space: Any, claims: int, lost: int, waits: int, to_win: int, value: LearnedValue) -> float:
    """One player's score (`Model.score`): `lost` columns claimed by others, `waits` turns before moving."""
    coef = value.coef
    t = turns_of(space, value)
    s = coef[_TURNS] * t + coef[_SQUARED] * t * t / 10 + coef[_ROOT] * np.sqrt(t) + coef[_CLAIMS] * claims
    if space.shape[0] - lost < to_win:
        s += coef[_CANNOT]
    if waits > 0:
        s += coef[_WAITS + waits - 1]
    return float(s)


@jit
def fill_rival_stops(position: RivalPosition, graph: TurnGraph, masks: Any, todo: Any, value: LearnedValue) -> None:
    """graph.stops[s]: the mover's chance to lose after stopping in in-turn state s (0: the stop
    wins; inf: the stop is barred).

    Only for the states of the runner masks j with todo[j] (see `kernels.turn_pass_in`). A
    stop claims the columns whose runner stands on the top, wiping the others' pieces there.
    """
    players, n = position.progress.shape
    work = np.zeros((4, max(n, players)), np.int64)
    _fill(position, graph, masks, todo, value, work, np.zeros((2, players)))


@uncounted
def _fill(
    position: RivalPosition, graph: TurnGraph, masks: Any, todo: Any, value: LearnedValue, work: Any, floats: Any
) -> None:
    """`fill_rival_stops` in the work space `work` (ints) and `floats`, allocating nothing."""
    progress, owner, spaces, blocked = position
    room, offsets, stops = graph.room, graph.offsets, graph.stops
    to_win = value.to_win
    players, n = progress.shape
    me = players - 1
    taken, space, wiped, claims = work[0], work[1], work[2], work[3]
    base, scores = floats[0], floats[1]  # base: the others' scores when the stop claims nothing
    claims[:] = 0
    total = 0
    for i in range(n):
        if owner[i] >= 0:
            claims[owner[i]] += 1
            total += 1
    for p in range(me):
        base[p] = score(progress[p], claims[p], total - claims[p], p, to_win, value)
    for j in range(masks.shape[0]):
        m = masks[j]
        if not todo[j]:
            continue
        for local in range(offsets[j + 1] - offsets[j]):
            decode(m, local, room, taken)
            new = 0
            barred = False
            for i in range(n):
                d = taken[i]
                space[i] = spaces[i, d]
                if d > 0:
                    if blocked[i, d]:
                        barred = True
                    if d == room[i]:  # on the top
                        new += 1
            here = offsets[j] + local
            if barred:
                stops[here] = np.inf
                continue
            if claims[me] + new >= to_win:
                stops[here] = 0.0
                continue
            top = -np.inf
            for p in range(me):
                if new == 0:
                    scores[p] = base[p]
                else:
                    for i in range(n):
                        wiped[i] = 0 if taken[i] > 0 and taken[i] == room[i] else progress[p, i]
                    scores[p] = score(wiped, claims[p], total + new - claims[p], p, to_win, value)
                top = max(top, scores[p])
            scores[me] = score(space, claims[me] + new, total - claims[me], me, to_win, value)
            top = max(top, scores[me])
            odds = 0.0
            for p in range(players):
                odds += np.exp(scores[p] - top)
            stops[here] = 1.0 - np.exp(scores[me] - top) / odds
