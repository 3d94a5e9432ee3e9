"""Whole games in compiled loops, many at once: `simulate` and the chunks it is made of.

Game g plays deal g // orders in seat order g % orders, where the orders are every
seating of the bots (as the arena deals them): each bot meets the same dice in each
seat. Seat 0 rolls first. A deal's dice are `counter_dice(seed, deal, k)`; game g's bot
draws are `counter_uniform(seed, g, k)`. So a game's result depends on (seed, g) alone,
never on the batch, the chunk or the number of threads.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from itertools import pairwise, permutations

import numba as nb
import numpy as np

from cantstop.core.errors import SetupError, UnknownBotError
from cantstop.core.variant import Variant
from cantstop.fast import kernels
from cantstop.fast.act import BOT_CODES, EXPERT, light_act
from cantstop.fast.bots import heuristic_tables
from cantstop.fast.counter import DICE_STREAM, DRAW_STREAM, MASK, nb_roll_number, nb_stream_key
from cantstop.fast.expert import expert_act, fractions, new_scratch
from cantstop.fast.kernels import OVER, R_PHASE, R_PLAYER, R_RUNNERS, R_TURN, ROLL
from cantstop.fast.memory import check_count, check_fits
from cantstop.fast.tables import H_COLUMNS, H_FACES, O_ROLL_INDEX, as_variant, compile_variant

MAX_TURNS = 10_000  # a game still going after this many turns is a draw (winner -1)
MAX_THREADS = 1024  # more threads than cores only take turns; this many is surely a slip
CHUNK = 1 << 16  # games per kernel call: the grain of progress reports and of Ctrl-C


@dataclass(frozen=True)
class Simulation:
    """Games `first`, `first + 1`, ... of a run: one row per game."""

    bots: tuple[str, ...]
    first: int
    turns: np.ndarray  # int32[games]: turns played (in solitaire, the score)
    winner: np.ndarray  # int8[games]: index into `bots` of the winner, -1 for a draw
    seats: np.ndarray  # int8[games, players]: index into `bots` of each seat; seat 0 starts

    @property
    def games(self) -> int:
        return len(self.turns)


# Uncounted: counting the arrays every inlined kernel takes was a third of a random
# game's time. Nothing here allocates; the row and work space belong to `_play`, which
# outlives the game. The expert, which allocates, is a plain call into counted code.
@kernels.counted_jit(False, error_model="python")
def _one_game(
    tab: np.ndarray, heur: np.ndarray, bots: np.ndarray, seed: np.uint64, deal: int, game: int,
    max_turns: int, row: np.ndarray, work: np.ndarray, ex: np.ndarray, exi: np.ndarray,
    after: np.ndarray,
) -> tuple[int, int]:
    """Play one game to its end in `row` (cleared here); (turns, winning seat or -1).

    The row never holds the dice: nothing in a game reads them once the roll's outcome
    is known, and splitting the roll's number into faces would cost four divisions a roll.
    """
    nc = tab[H_COLUMNS]
    faces = tab[H_FACES]
    row[:] = 0
    row[R_RUNNERS + nc : R_RUNNERS + 2 * nc] = -1  # no claims
    kernels.prepare(tab, row, work)
    dice_key = nb_stream_key(seed, np.uint64(DICE_STREAM), deal)
    draw_key = nb_stream_key(seed, np.uint64(DRAW_STREAM), game)
    rolls = draws = 0
    while row[R_PHASE] != OVER and row[R_TURN] < max_turns:
        if row[R_PHASE] == ROLL:
            outcome = tab[tab[O_ROLL_INDEX] + nb_roll_number(dice_key, rolls, faces)]
            rolls += 1
            kernels.roll_outcome(tab, row, outcome, work)  # leaves the choices listed for the bot
        else:
            bot = bots[row[R_PLAYER]]
            if bot == EXPERT:  # `act`, split: the light bots then take none of the expert's arrays
                action = expert_act(tab, row, work, ex, exi, after)
            else:
                action, draws = light_act(bot, tab, heur, row, work, draw_key, draws)
            kernels.apply(tab, row, action, work)
    return row[R_TURN], (row[R_PLAYER] if row[R_PHASE] == OVER else -1)


@nb.njit(cache=True, nogil=True)
def _play(
    tab: np.ndarray, heur: np.ndarray, fr: np.ndarray, orders: np.ndarray, seed: np.uint64,
    first: int, max_turns: int, turns: np.ndarray, winner: np.ndarray,
) -> None:
    """Games first .. first + len(turns) - 1 (without the GIL: threads share a chunk).

    `orders[k]` holds the bot codes by seat of seat order k; `winner` gets the winning seat.
    """
    count = len(orders)
    row = np.zeros(kernels.row_length_of(tab, orders.shape[1]), np.int32)
    work = np.zeros(kernels.work_length_of(tab), np.int64)
    ex, exi, after = new_scratch(tab, fr, orders.shape[1])
    for i in range(len(turns)):
        game = first + i
        turns[i], winner[i] = _one_game(
            tab, heur, orders[game % count], seed, game // count, game, max_turns, row, work, ex,
            exi, after,
        )


def check_bots(variant: Variant, bots: Sequence[str]) -> np.ndarray:
    """Bot codes by bot, or a clear error: an unknown bot, or a player count the variant refuses."""
    unknown = [b for b in bots if b not in BOT_CODES]
    if unknown:
        raise UnknownBotError(
            f"no compiled bot {unknown[0]!r}; compiled bots: {', '.join(BOT_CODES)}"
        )
    if why := variant.players_text(len(bots)):
        raise SetupError(why)
    return np.array([BOT_CODES[b] for b in bots], np.int8)


def thread_count(threads: int | None) -> int:
    """`threads`, or every core when None; a clear error for a count that makes no sense."""
    most = os.cpu_count() or 1
    if threads is None:
        return most
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= MAX_THREADS:
        raise SetupError(f"threads must be 1..{MAX_THREADS} (this machine has {most} cores), not {threads!r}")
    return threads


def chunks(
    variant: Variant | str,
    bots: Sequence[str],
    games: int,
    seed: int,
    threads: int | None = None,
    max_turns: int = MAX_TURNS,
    chunk: int = CHUNK,
) -> Iterator[Simulation]:
    """`simulate`, one chunk of games at a time: for progress bars and for stopping early."""
    v = as_variant(variant)
    codes = check_bots(v, bots)
    check_count(games, "the number of games")
    check_count(max_turns, "max_turns")
    workers = thread_count(threads)
    tab = compile_variant(v)
    heur = heuristic_tables(v)
    fr = fractions(v)
    seat_orders = np.array(list(permutations(range(len(bots)))), np.int8)
    orders = codes[seat_orders]
    key = np.uint64(seed & MASK)
    with ThreadPoolExecutor(workers) as pool:
        yield from _run(pool, workers, tab, heur, fr, orders, seat_orders, key, tuple(bots), games, max_turns, chunk)


def _run(
    pool: ThreadPoolExecutor, workers: int, tab: np.ndarray, heur: np.ndarray, fr: np.ndarray,
    orders: np.ndarray,
    seat_orders: np.ndarray, key: np.uint64, bots: tuple[str, ...], games: int, max_turns: int,
    chunk: int,
) -> Iterator[Simulation]:
    for first in range(0, games, chunk):
        n = min(chunk, games - first)
        turns = np.zeros(n, np.int32)
        seat = np.zeros(n, np.int8)
        # Each thread plays a contiguous slice; the slices write disjoint parts of the arrays.
        bounds = np.linspace(0, n, workers + 1).astype(np.int64)
        jobs = [
            pool.submit(_play, tab, heur, fr, orders, key, first + lo, max_turns, turns[lo:hi], seat[lo:hi])
            for lo, hi in pairwise(bounds.tolist())
            if hi > lo
        ]
        for job in jobs:
            job.result()
        seats = seat_orders[np.arange(first, first + n) % len(seat_orders)]
        winner = np.where(seat >= 0, seats[np.arange(n), seat], -1).astype(np.int8)
        yield Simulation(bots, first, turns, winner, seats)


def simulate(
    variant: Variant | str,
    bots: Sequence[str],
    games: int,
    seed: int,
    threads: int | None = None,
    max_turns: int = MAX_TURNS,
) -> Simulation:
    """Play `games` games of `bots` (compiled bot names, one per player) from `seed`.

    The same seed gives the same games with any number of threads.
    """
    check_count(games, "the number of games")
    check_fits(games, 4 + 1 + len(bots), "game results")
    parts = list(chunks(variant, bots, games, seed, threads, max_turns))
    return Simulation(
        tuple(bots), 0,
        np.concatenate([p.turns for p in parts]),
        np.concatenate([p.winner for p in parts]),
        np.concatenate([p.seats for p in parts]),
    )
