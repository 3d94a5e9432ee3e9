"""The compiled heart of the vector environment: whole steps of many games in one call.

Each sub-environment b is a row of a `cantstop.fast` batch plus its episode's address:
root key, episode number, the rolls and bot draws made so far. A step plays the agent's
action, then every roll and every compiled opponent's move until the agent decides
again or the game ends, drawing from the same counter addresses as the single env
(`cantstop.envs.episode`), and writes what the agent sees.

The arrays travel in four bundles, one per concern: `Setup` (what the environment was
made with: the variant's tables, the opponents, the settings), `Games` (each
sub-environment's game, episode and legal actions, kept from call to call), `Scratch`
(work space, derived afresh before it is read) and `Outputs` (what a step returns).
A bundle is a `NamedTuple`, which numba passes as one value.

A sub-environment's step is a few small steps, each the twin of the Python code its
docstring names: `step_one` (`CantStopEnv.step`, with Gymnasium's next-step autoreset)
calls `start_episode` (`CantStopEnv.reset`), `refuse` (an action the mask refuses) or
`play` (a legal action); `play` and `start_episode` go on with `to_next_decision`
(`episode.to_next_decision`), which alternates `roll_dice` and `opponent_move`;
`reward` is `episode.reward` and `encode` is `observation.encode`. The rules are
`cantstop.fast.kernels`, reading the tables built from core (`cantstop.fast.tables`).

How it is compiled, and why:
- Without reference counting (`kernels.counted_jit(False)`): nothing here allocates, so
  nothing needs counting, and a bundle costs nothing to pass. Counted, every array of a
  bundle handed to a step would be counted on and off, two atomic operations each. The
  compiled expert, which allocates, is a plain call into counted code.
- Few compiled functions, the small steps inlined into them: numba optimises each
  compiled function together with every compiled function it calls, so each layer of
  its own above the bots would compile them all over again.

This is the one place outside `table` that moves games itself, on purpose: a `Table` per
sub-environment would cost a Python call per move, and the vector env exists to run
about 50 times faster than the single env that does play through `Table`
(docs/envs.md, Speed). The tests hold its episodes equal to the single env's.
"""

from __future__ import annotations

import cantstop.fast  # noqa: F401  (sets numba's cache folder: it must come before numba's import)

# isort: split
from collections.abc import Sequence
from typing import NamedTuple

import numba as nb
import numpy as np

from cantstop.core.counter import SEAT_STREAM
from cantstop.core.variant import Variant
from cantstop.fast import expert, kernels
from cantstop.fast.act import act
from cantstop.fast.bots import heuristic_tables
from cantstop.fast.counter import DRAW_STREAM, nb_dice, nb_stream_key, nb_word
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
    compile_variant,
)

_uncounted = kernels.counted_jit(False)
_inline = nb.njit(cache=True, error_model="numpy", inline="always")


class Setup(NamedTuple):
    """What an environment is made with; no step changes it."""

    tab: np.ndarray  # int64: the variant's tables (`cantstop.fast.tables.compile_variant`)
    heur: np.ndarray  # int64: the heuristic bots' weights (`cantstop.fast.bots.heuristic_tables`)
    bots: np.ndarray  # int8: the opponents' bot codes, in seat order without the agent's seat
    scale: np.ndarray  # float32: 1 / height of each column (`column_scale`)
    players: int
    seat: int  # the agent's seat, or -1 to draw it per episode
    illegal_ends: bool  # an action the mask refuses ends the episode
    illegal_reward: float  # what an action the mask refuses pays
    total_height: int  # the sum of the column heights


class Games(NamedTuple):
    """Each sub-environment's game and episode, kept from call to call (row b: sub-environment b)."""

    rows: np.ndarray  # int32 [N, row length]: the games, as `cantstop.fast.kernels` lays them out
    masks: np.ndarray  # int8 [N, actions]: the legal actions now (every one after the end)
    seats: np.ndarray  # int64 [N]: the agent's seat in the episode
    ended: np.ndarray  # bool [N]: the episode is over; the next step starts the next one
    roots: np.ndarray  # uint64 [N]: the root key of the episodes
    episodes: np.ndarray  # int64 [N]: the episode's number
    rolls: np.ndarray  # int64 [N]: rolls made in the episode so far (the next roll's number)
    draws: np.ndarray  # int64 [N]: bot draws made in the episode so far (the next draw's number)


class Scratch(NamedTuple):
    """Work space of one game at a time, shared by the sub-environments: derived before it is read."""

    work: np.ndarray  # int64: the game's work space (`cantstop.fast.kernels`)
    dice: np.ndarray  # int32 [4]: the roll being made
    legal: np.ndarray  # bool [actions]: a game's legal actions, while its mask is derived
    ex: np.ndarray  # the compiled expert's scratch space (`cantstop.fast.expert.new_scratch`)
    exi: np.ndarray
    after: np.ndarray


class Outputs(NamedTuple):
    """What a step returns, row b for sub-environment b; rewards, terminated and illegal start at zero."""

    obs: np.ndarray  # float32 [N, observation size]
    rewards: np.ndarray  # float64 [N]
    terminated: np.ndarray  # bool [N]
    illegal: np.ndarray  # bool [N]: the action was one the mask refused


def new_setup(
    variant: Variant, bots: Sequence[int], players: int, seat: int, illegal_ends: bool, illegal_reward: float
) -> Setup:
    """The setup of an environment: `bots` are the opponents' bot codes (`cantstop.fast.act`),
    `seat` the agent's seat, or -1 to draw it per episode."""
    return Setup(
        compile_variant(variant), heuristic_tables(variant), np.array(bots, np.int8), column_scale(variant.heights),
        int(players), int(seat), bool(illegal_ends), float(illegal_reward), int(sum(variant.heights)),
    )


def new_games(setup: Setup, num_envs: int) -> Games:
    """Games not yet started: every sub-environment ended, every action marked."""
    n = num_envs
    return Games(
        rows=np.zeros((n, kernels.row_length(int(setup.tab[H_COLUMNS]), setup.players)), np.int32),
        masks=np.ones((n, int(setup.tab[H_ACTIONS])), np.int8),
        seats=np.zeros(n, np.int64),
        ended=np.ones(n, np.bool_),
        roots=np.zeros(n, np.uint64),
        episodes=np.zeros(n, np.int64),
        rolls=np.zeros(n, np.int64),
        draws=np.zeros(n, np.int64),
    )


def new_scratch(setup: Setup, variant: Variant) -> Scratch:
    """The work space of an environment, made once."""
    tab = setup.tab
    ex, exi, after = expert.new_scratch(tab, expert.fractions(variant), setup.players)
    return Scratch(
        np.zeros(kernels.work_length_of(tab), np.int64),
        np.zeros(4, np.int32), np.zeros(int(tab[H_ACTIONS]), np.bool_), ex, exi, after,
    )


def new_outputs(games: Games, size: int) -> Outputs:
    """Fresh outputs for one step of every sub-environment, `size` the observation's length."""
    n = len(games.rows)
    return Outputs(np.empty((n, size), np.float32), np.zeros(n), np.zeros(n, np.bool_), np.zeros(n, np.bool_))


def column_scale(heights: tuple[int, ...]) -> np.ndarray:
    """float32 1 / height per column, rounded as `observation.encode` rounds it."""
    return np.array([1 / h for h in heights], dtype=np.float32)


# ------------------------------------------------------------------ one game's steps
@_inline
def drawn_seat(root: np.uint64, episode: int, players: int) -> int:
    """The twin of `Episodes.seat`: `counter_below(root, SEAT_STREAM, episode, 0, players)`."""
    top = nb_word(root, np.uint64(SEAT_STREAM), episode, 0) >> np.uint64(32)
    return int(np.int64((top * np.uint64(players)) >> np.uint64(32)))  # int() of a uint64 stays one


@_inline
def new_game(tab: np.ndarray, row: np.ndarray, work: np.ndarray) -> None:
    """A game at its start, seat 0 to roll (the twin of `core.state.new_game`)."""
    nc = tab[H_COLUMNS]
    row[:] = 0
    row[R_RUNNERS + nc : R_RUNNERS + 2 * nc] = -1  # no claims
    kernels.prepare(tab, row, work)


@_inline
def roll_dice(tab: np.ndarray, row: np.ndarray, scratch: Scratch, root: np.uint64, episode: int, rolls: int) -> int:
    """Put the episode's roll number `rolls` on the table (`CounterDice.roll`, then
    `State.roll`); the next roll's number."""
    nb_dice(root, episode, rolls, tab[H_FACES], scratch.dice)
    kernels.roll(tab, row, scratch.dice, scratch.work)
    return rolls + 1


@_inline
def opponent_move(
    setup: Setup, scratch: Scratch, row: np.ndarray, seat: int, root: np.uint64, episode: int, draws: int
) -> int:
    """The opponent to move plays its compiled bot's move (the `Table` asking its
    `BotPlayer`, the bot drawing from `counter_uniform(root, episode, draw)`); the next
    draw's number. `scratch.work` lists the roll's choices."""
    player = row[R_PLAYER]
    code = setup.bots[player - (1 if player > seat else 0)]
    key = nb_stream_key(root, np.uint64(DRAW_STREAM), episode)
    action, draws = act(
        code, setup.tab, setup.heur, row, scratch.work, scratch.ex, scratch.exi, scratch.after, key, draws
    )
    kernels.apply(setup.tab, row, action, scratch.work)
    return draws


@_uncounted
def to_next_decision(setup: Setup, games: Games, scratch: Scratch, b: int) -> None:
    """Roll and let the opponents play in sub-environment b until its agent decides or the
    game ends (the twin of `episode.to_next_decision`); `scratch.work` is up to date."""
    row = games.rows[b]
    seat = games.seats[b]
    root, episode = games.roots[b], games.episodes[b]
    rolls, draws = games.rolls[b], games.draws[b]
    while True:
        while row[R_PHASE] == ROLL:
            rolls = roll_dice(setup.tab, row, scratch, root, episode, rolls)
        if row[R_PHASE] == OVER or row[R_PLAYER] == seat:
            break
        draws = opponent_move(setup, scratch, row, seat, root, episode, draws)
    games.rolls[b], games.draws[b] = rolls, draws


@_inline
def start_episode(setup: Setup, games: Games, scratch: Scratch, b: int) -> None:
    """Start episode `games.episodes[b]` of sub-environment b (`CantStopEnv.reset`): a game
    the opponents win before the agent's first decision is replayed, the dice and draws
    running on. Leaves its mask to the caller."""
    seat = setup.seat
    if seat < 0:
        seat = drawn_seat(games.roots[b], games.episodes[b], setup.players)
    games.seats[b] = seat
    games.rolls[b] = 0
    games.draws[b] = 0
    row = games.rows[b]
    while True:
        new_game(setup.tab, row, scratch.work)
        to_next_decision(setup, games, scratch, b)
        if row[R_PHASE] != OVER:
            break
    games.ended[b] = False


@_inline
def reward(setup: Setup, turn: int, row: np.ndarray, seat: int) -> float:
    """What the agent earns by a step that began on turn `turn` (the twin of `episode.reward`)."""
    if setup.players == 1:
        return float(turn - row[R_TURN])
    if row[R_PHASE] == OVER:
        return 1.0 if row[R_PLAYER] == seat else -1.0
    return 0.0


@_inline
def play(setup: Setup, games: Games, scratch: Scratch, b: int, action: int) -> tuple[float, bool]:
    """Play the agent's legal `action` (public number) in sub-environment b, then roll and
    let the opponents play (`CantStopEnv.step` after `decode`); the reward, and whether
    the game is over."""
    tab = setup.tab
    row = games.rows[b]
    seat = games.seats[b]
    turn = row[R_TURN]
    kernels.prepare(tab, row, scratch.work)
    kernels.apply(tab, row, tab[tab[O_INTERNAL] + action], scratch.work)
    to_next_decision(setup, games, scratch, b)
    return reward(setup, turn, row, seat), row[R_PHASE] == OVER


@_inline
def refuse(setup: Setup, games: Games, out: Outputs, b: int) -> None:
    """An action the mask refuses: nothing changes, it pays the illegal reward and, when the
    settings say so, ends the episode (`CantStopEnv.step`'s `except IllegalActionError`)."""
    out.illegal[b] = True
    out.rewards[b] = setup.illegal_reward
    if setup.illegal_ends:
        out.terminated[b] = True
        games.ended[b] = True


@_uncounted
def encode(setup: Setup, row: np.ndarray, seat: int, obs: np.ndarray) -> None:
    """The observation of `row` for `seat` into `obs` (the twin of `observation.encode`)."""
    tab = setup.tab
    scale = setup.scale
    nc = tab[H_COLUMNS]
    players = setup.players
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
    obs[at + 1] = row[R_STEPS] / setup.total_height
    limit = tab[H_STEP_LIMIT]
    obs[at + 2] = 1.0 if limit == NO_LIMIT else (limit - row[R_STEPS]) / limit
    at += 3
    if phase == CHOOSE:
        outcome = kernels.outcome_of(tab, row)
        for i in range(4):
            obs[at + i * faces + tab[tab[O_OUTCOMES] + 4 * outcome + i] - 1] = 1.0


@_uncounted
def derived_mask(tab: np.ndarray, row: np.ndarray, scratch: Scratch, mask: np.ndarray) -> None:
    """The int8 mask of any row, derived afresh (the twin of `CantStopEnv._current_mask`):
    every action when none is legal."""
    legal = scratch.legal
    kernels.legal(tab, row, scratch.work, legal)
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


@_inline
def step_one(setup: Setup, games: Games, scratch: Scratch, out: Outputs, b: int, action: int) -> None:
    """One step of sub-environment b (`CantStopEnv.step`): an ended episode is followed by
    the next whatever the action (Gymnasium's next-step autoreset); an action the mask
    refuses is refused; a legal one is played. Then the observation and the new mask."""
    if games.ended[b]:
        games.episodes[b] += 1
        start_episode(setup, games, scratch, b)
    elif not games.masks[b, action]:
        refuse(setup, games, out, b)
    else:
        earned, over = play(setup, games, scratch, b, action)
        out.rewards[b] = earned
        out.terminated[b] = over
        games.ended[b] = over
    row = games.rows[b]
    encode(setup, row, games.seats[b], out.obs[b])
    if games.ended[b]:
        games.masks[b, :] = 1
    elif not out.illegal[b]:  # a refused action changed nothing, its mask neither
        listed_mask(setup.tab, row, scratch.work, games.masks[b])


# ------------------------------------------------------------------ every sub-environment
@_uncounted
def batch_reset(setup: Setup, games: Games, scratch: Scratch, which: np.ndarray, obs: np.ndarray) -> None:
    """Start the episode `games.episodes[b]` of every sub-environment b with `which[b]`;
    the observation and mask of every one."""
    for b in range(len(games.rows)):
        if which[b]:
            start_episode(setup, games, scratch, b)
        encode(setup, games.rows[b], games.seats[b], obs[b])
        if games.ended[b]:
            games.masks[b, :] = 1
        else:
            derived_mask(setup.tab, games.rows[b], scratch, games.masks[b])


@_uncounted
def batch_step(setup: Setup, games: Games, scratch: Scratch, actions: np.ndarray, out: Outputs) -> None:
    """One step of every sub-environment, `actions[b]` (public numbers in the action space)
    for sub-environment b: `step_one` each."""
    for b in range(len(actions)):
        step_one(setup, games, scratch, out, b, actions[b])
