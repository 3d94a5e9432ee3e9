"""The compiled heart of the vector environment: whole steps of many games in one call.

Each sub-environment b is a row of a `cantstop.fast` batch plus its episode's address:
root key `roots[b]`, episode number `episodes[b]`, the rolls and bot draws made so far.
A step plays the agent's action, then every roll and every compiled opponent's move
until the agent decides again or the game ends: the twin of `CantStopEnv.step` and
`CantStopEnv._advance`, drawing from the same counter addresses
(`cantstop.envs.episode`). The observation is the twin of `cantstop.encoding.observation.encode`.

This is the one place outside `table` that moves games itself, on purpose: a `Table` per
sub-environment would cost a Python call per move, and the vector env exists to run
about 50 times faster than the single env that does play through `Table`
(docs/envs.md, Speed). The tests hold its episodes equal to the single env's.
"""

from __future__ import annotations

import cantstop.fast  # noqa: F401  (sets numba's cache folder: it must come before numba's import)

# isort: split
import numba as nb
import numpy as np

from cantstop.core.counter import SEAT_STREAM
from cantstop.core.variant import Variant
from cantstop.fast import kernels
from cantstop.fast.act import act
from cantstop.fast.counter import DRAW_STREAM, nb_dice, nb_stream_key, nb_word
from cantstop.fast.expert import fractions, new_scratch
from cantstop.fast.kernels import (
    CHOOSE,
    OVER,
    R_PHASE,
    R_PLAYER,
    R_RUNNERS,
    R_STEPS,
    R_TURN,
    ROLL,
    W_CHOICES,
    W_COUNT,
)
from cantstop.fast.tables import (
    H_ACTIONS,
    H_COLUMNS,
    H_FACES,
    H_ROLL_ACTION,
    H_RUNNERS,
    H_STEP_LIMIT,
    H_STOP_ACTION,
    NO_LIMIT,
    O_INTERNAL,
    O_NUMBER,
    O_OUTCOMES,
)

_jit = nb.njit(cache=True, error_model="numpy")
_inline = nb.njit(cache=True, error_model="numpy", inline="always")

# The settings a step needs, one int64 array (see `settings`).
S_PLAYERS, S_SEAT, S_ILLEGAL_ENDS, S_TOTAL_HEIGHT = range(4)


def settings(players: int, seat: int, illegal_ends: bool, total_height: int) -> np.ndarray:
    """The settings array: `seat` is the agent's seat, or -1 to draw it per episode."""
    return np.array([players, seat, int(illegal_ends), total_height], np.int64)


@_inline
def drawn_seat(root: np.uint64, episode: int, players: int) -> int:
    """The twin of `Episodes.seat`: `counter_below(root, SEAT_STREAM, episode, 0, players)`."""
    top = nb_word(root, np.uint64(SEAT_STREAM), episode, 0) >> np.uint64(32)
    return int((top * np.uint64(players)) >> np.uint64(32))


@_jit
def advance(
    tab: np.ndarray, heur: np.ndarray, bots: np.ndarray, row: np.ndarray, work: np.ndarray,
    scratch: tuple[np.ndarray, np.ndarray, np.ndarray], dice: np.ndarray, seat: int,
    root: np.uint64, episode: int, rolls: int, draws: int,
) -> tuple[int, int]:
    """Roll and let the opponents play until the agent decides or the game ends
    (`CantStopEnv._advance`); `work` is up to date. Returns the rolls and draws made so far."""
    faces = tab[H_FACES]
    while True:
        while row[R_PHASE] == ROLL:
            nb_dice(root, episode, rolls, faces, dice)
            rolls += 1
            kernels.roll(tab, row, dice, work)
        if row[R_PHASE] == OVER:
            return rolls, draws
        player = row[R_PLAYER]
        if player == seat:
            return rolls, draws
        code = bots[player - (1 if player > seat else 0)]
        ex, exi, after = scratch
        key = nb_stream_key(root, np.uint64(DRAW_STREAM), episode)
        action, draws = act(code, tab, heur, row, work, ex, exi, after, key, draws)
        kernels.apply(tab, row, action, work)


@_inline
def new_game(tab: np.ndarray, row: np.ndarray, work: np.ndarray) -> None:
    nc = tab[H_COLUMNS]
    row[:] = 0
    row[R_RUNNERS + nc : R_RUNNERS + 2 * nc] = -1  # no claims
    kernels.prepare(tab, row, work)


@_jit
def reset_one(
    tab: np.ndarray, heur: np.ndarray, bots: np.ndarray, conf: np.ndarray, b: int,
    rows: np.ndarray, roots: np.ndarray, episodes: np.ndarray, rolls: np.ndarray,
    draws: np.ndarray, seats: np.ndarray, work: np.ndarray,
    scratch: tuple[np.ndarray, np.ndarray, np.ndarray], dice: np.ndarray,
) -> None:
    """Start episode `episodes[b]` of sub-environment b (`CantStopEnv.reset`): a game the
    opponents win before the agent's first decision is replayed, the dice running on."""
    seat = conf[S_SEAT]
    if seat < 0:
        seat = drawn_seat(roots[b], episodes[b], conf[S_PLAYERS])
    seats[b] = seat
    row = rows[b]
    r, d = 0, 0
    while True:
        new_game(tab, row, work)
        r, d = advance(tab, heur, bots, row, work, scratch, dice, seat, roots[b], episodes[b], r, d)
        if row[R_PHASE] != OVER:
            break
    rolls[b], draws[b] = r, d


@_jit
def encode(tab: np.ndarray, conf: np.ndarray, scale: np.ndarray, row: np.ndarray, seat: int, obs: np.ndarray) -> None:
    """The observation of `row` for `seat` into `obs` (the twin of `observation.encode`)."""
    nc = tab[H_COLUMNS]
    players = conf[S_PLAYERS]
    faces = tab[H_FACES]
    obs[:] = 0.0
    at = 0
    for k in range(players):  # pieces, the observer first
        start = kernels.pieces_at(tab, (seat + k) % players)
        for j in range(nc):
            obs[at + j] = np.float32(row[start + j]) * scale[j]
        at += nc
    for j in range(nc):
        obs[at + j] = np.float32(row[R_RUNNERS + j]) * scale[j]
    at += nc
    claims = R_RUNNERS + nc
    for j in range(nc):
        owner = row[claims + j]
        if owner == seat:
            obs[at + j] = 1.0
        elif owner >= 0:
            obs[at + nc + j] = 1.0
    at += 2 * nc
    obs[at + (row[R_PLAYER] - seat) % players] = 1.0
    at += players
    phase = row[R_PHASE]
    obs[at + phase] = 1.0
    at += 4
    left = tab[H_RUNNERS]
    for j in range(nc):
        if row[R_RUNNERS + j] != 0:
            left -= 1
    obs[at] = left / tab[H_RUNNERS]
    obs[at + 1] = row[R_STEPS] / conf[S_TOTAL_HEIGHT]
    limit = tab[H_STEP_LIMIT]
    obs[at + 2] = 1.0 if limit == NO_LIMIT else (limit - row[R_STEPS]) / limit
    at += 3
    if phase == CHOOSE:
        outcome = kernels.outcome_of(tab, row)
        for i in range(4):
            obs[at + i * faces + tab[tab[O_OUTCOMES] + 4 * outcome + i] - 1] = 1.0


@_jit
def show(
    tab: np.ndarray, conf: np.ndarray, scale: np.ndarray, row: np.ndarray, seat: int,
    work: np.ndarray, obs: np.ndarray, legal: np.ndarray, mask: np.ndarray,
) -> None:
    """Observation and int8 mask of one sub-environment; every action when none is legal."""
    encode(tab, conf, scale, row, seat, obs)
    kernels.legal(tab, row, work, legal)
    found = False
    for a in range(len(legal)):
        mask[a] = legal[a]
        found |= legal[a]
    if not found:
        mask[:] = 1


@_inline
def listed_mask(tab: np.ndarray, row: np.ndarray, work: np.ndarray, mask: np.ndarray) -> None:
    """The int8 mask of a row where the agent decides, without deriving the choices again:
    in CHOOSE the roll that led here listed them in `work`; in DECIDE, roll and maybe stop."""
    mask[:] = 0
    if row[R_PHASE] == CHOOSE:
        w = 2 * tab[H_COLUMNS]
        numbers = tab[O_NUMBER]
        for k in range(work[w + W_COUNT]):
            mask[tab[numbers + work[w + W_CHOICES + k]]] = 1
    else:
        mask[tab[H_ROLL_ACTION]] = 1
        mask[tab[H_STOP_ACTION]] = kernels.may_stop(tab, row)


@_jit
def batch_reset(
    tab: np.ndarray, heur: np.ndarray, bots: np.ndarray, conf: np.ndarray, scale: np.ndarray,
    ex: np.ndarray, exi: np.ndarray, after: np.ndarray,
    which: np.ndarray, rows: np.ndarray, roots: np.ndarray, episodes: np.ndarray,
    rolls: np.ndarray, draws: np.ndarray, seats: np.ndarray, ended: np.ndarray,
    obs: np.ndarray, masks: np.ndarray,
) -> None:
    """Start the episode `episodes[b]` of every sub-environment b with `which[b]`."""
    work = np.zeros(kernels.work_length_of(tab), np.int64)
    dice = np.zeros(4, np.int32)
    legal = np.zeros(tab[H_ACTIONS], np.bool_)
    scratch = (ex, exi, after)
    for b in range(len(rows)):
        if which[b]:
            reset_one(tab, heur, bots, conf, b, rows, roots, episodes, rolls, draws, seats, work, scratch, dice)
            ended[b] = False
        show(tab, conf, scale, rows[b], seats[b], work, obs[b], legal, masks[b])
        if ended[b]:
            masks[b, :] = 1


@_jit
def batch_step(
    tab: np.ndarray, heur: np.ndarray, bots: np.ndarray, conf: np.ndarray, scale: np.ndarray,
    ex: np.ndarray, exi: np.ndarray, after: np.ndarray,
    illegal_reward: float, actions: np.ndarray, rows: np.ndarray, roots: np.ndarray,
    episodes: np.ndarray, rolls: np.ndarray, draws: np.ndarray, seats: np.ndarray,
    ended: np.ndarray, obs: np.ndarray, masks: np.ndarray, rewards: np.ndarray,
    terminated: np.ndarray, illegal: np.ndarray,
) -> None:
    """One step of every sub-environment (`masks` holds the masks of the last step and
    receives the new ones). An ended sub-environment starts its next episode whatever
    its action (Gymnasium's next-step autoreset); an action its mask refuses changes
    nothing and pays `illegal_reward` (ending the episode when the settings say so)."""
    work = np.zeros(kernels.work_length_of(tab), np.int64)
    dice = np.zeros(4, np.int32)
    scratch = (ex, exi, after)
    alone = conf[S_PLAYERS] == 1
    for b in range(len(rows)):
        row = rows[b]
        seat = seats[b]
        if ended[b]:
            episodes[b] += 1
            reset_one(tab, heur, bots, conf, b, rows, roots, episodes, rolls, draws, seats, work, scratch, dice)
            seat = seats[b]
            ended[b] = False
        elif not masks[b, actions[b]]:
            illegal[b] = True
            rewards[b] = illegal_reward
            if conf[S_ILLEGAL_ENDS]:
                terminated[b] = True
                ended[b] = True
        else:
            turn = row[R_TURN]
            kernels.prepare(tab, row, work)
            kernels.apply(tab, row, tab[tab[O_INTERNAL] + actions[b]], work)
            rolls[b], draws[b] = advance(
                tab, heur, bots, row, work, scratch, dice, seat, roots[b], episodes[b], rolls[b], draws[b]
            )
            over = row[R_PHASE] == OVER
            if alone:
                rewards[b] = turn - row[R_TURN]
            elif over:
                rewards[b] = 1.0 if row[R_PLAYER] == seat else -1.0
            terminated[b] = over
            ended[b] = over
        encode(tab, conf, scale, row, seat, obs[b])
        if ended[b]:
            masks[b, :] = 1
        elif not illegal[b]:  # an illegal action changed nothing, its mask neither
            listed_mask(tab, row, work, masks[b])


def scratch(tab: np.ndarray, variant: Variant, players: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The compiled expert's scratch space (ex, exi, after), made once per environment."""
    return new_scratch(tab, fractions(variant), players)


def column_scale(heights: tuple[int, ...]) -> np.ndarray:
    """float32 1 / height per column, rounded as `observation.encode` rounds it."""
    return np.array([1 / h for h in heights], dtype=np.float32)

