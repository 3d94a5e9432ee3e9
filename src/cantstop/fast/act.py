"""Which compiled bot acts: one dispatch from a bot's name or code to its kernel.

Bot codes are what the simulator's seat arrays hold; `bot_actions` asks a compiled bot
for its move in every game of a batch, as the equality tests and vector environments do.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from cantstop.core.errors import PhaseError, UnknownBotError
from cantstop.core.state import Phase
from cantstop.fast import kernels
from cantstop.fast.batch import Batch
from cantstop.fast.bots import heuristic_act, heuristic_tables, random_act
from cantstop.fast.counter import DRAW_STREAM, MASK, nb_stream_key
from cantstop.fast.expert import expert_act, fractions, new_scratch
from cantstop.fast.kernels import CHOOSE, DECIDE
from cantstop.fast.tables import H_ACTIONS, O_NUMBER, compile_variant

RANDOM, RULE28, GA, EXPERT = 0, 1, 2, 3
BOT_CODES = {"random": RANDOM, "rule28": RULE28, "ga": GA, "expert": EXPERT}

_jit = nb.njit(cache=True, error_model="numpy")
_inline = nb.njit(cache=True, error_model="numpy", inline="always")


@_inline
def act(
    bot: int, tab: np.ndarray, heur: np.ndarray, row: np.ndarray, work: np.ndarray,
    ex: np.ndarray, exi: np.ndarray, after: np.ndarray, draws: np.uint64, draw: int,
) -> tuple[int, int]:
    """The action (kernel id) of compiled bot `bot` in a game, and its next draw number.

    In CHOOSE, `work` must list the roll's choices; `ex`, `exi` and `after` are the
    expert's scratch space (`expert.new_scratch`); `draws` is the key of the game's draw
    stream (`nb_stream_key(seed, DRAW_STREAM, game)`).
    """
    if bot == EXPERT:
        return expert_act(tab, row, work, ex, exi, after), draw
    return light_act(bot, tab, heur, row, work, draws, draw)


@_inline
def light_act(
    bot: int, tab: np.ndarray, heur: np.ndarray, row: np.ndarray, work: np.ndarray, draws: np.uint64,
    draw: int,
) -> tuple[int, int]:
    """`act` for every bot but the expert, which needs no scratch space.

    Hot loops call it rather than `act`: every array an inlined kernel takes is counted
    on and off with two atomic operations, which cost more than the random bot's move.
    """
    if bot == RULE28:
        return heuristic_act(heur[0], tab, row, work), draw
    if bot == GA:
        return heuristic_act(heur[1], tab, row, work), draw
    return random_act(tab, row, work, draws, draw)


@_jit
def batch_act(
    bot: int, tab: np.ndarray, heur: np.ndarray, fr: np.ndarray, rows: np.ndarray,
    seed: np.uint64, out: np.ndarray,
) -> None:
    """out[b]: the bot's action (public number) in game b, in CHOOSE or DECIDE.

    Game b's random bot draws from (seed, b, 0).
    """
    work = np.zeros(kernels.work_length_of(tab), np.int64)
    mask = np.zeros(tab[H_ACTIONS], np.bool_)
    ex, exi, after = new_scratch(tab, fr, kernels.players_of(tab, rows[0]))
    for b in range(len(rows)):
        kernels.legal(tab, rows[b], work, mask)  # lists the choices in work
        draws = nb_stream_key(seed, np.uint64(DRAW_STREAM), b)
        action, _ = act(bot, tab, heur, rows[b], work, ex, exi, after, draws, 0)
        out[b] = tab[tab[O_NUMBER] + action]


def bot_actions(batch: Batch, bot: str, seed: int = 0) -> np.ndarray:
    """The compiled bot's action (public number) in every game of `batch`.

    Every game must be in CHOOSE or DECIDE. Game b's random bot draws from (seed, b, 0):
    the twin of `CounterRandom(seed, b)` handed to the Python bot.
    """
    if bot not in BOT_CODES:
        raise UnknownBotError(f"no compiled bot {bot!r}; compiled bots: {', '.join(BOT_CODES)}")
    acting = np.isin(batch.phase, (CHOOSE, DECIDE))
    if not acting.all():
        b = int(np.flatnonzero(~acting)[0])
        raise PhaseError(
            f"game {b} is in the {Phase(int(batch.phase[b])).name} phase: bots act in CHOOSE or DECIDE"
        )
    variant = batch.variant
    out = np.zeros(batch.size, np.int64)
    batch_act(BOT_CODES[bot], compile_variant(variant), heuristic_tables(variant), fractions(variant),
              batch.rows, np.uint64(seed & MASK), out)
    return out
