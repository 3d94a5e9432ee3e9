"""Fit the expert II bot's curve: the expert's progress measure -> expected turns still needed.

Plays solitaire games with a bot (the expert to start with; then expert2 itself, to
fit the values of its own play), records at every turn start the progress measure
and how many turns the game still took, and fits a decreasing curve through the
means of equal-count bins. Prints the knots for `KNOTS` in cantstop/bots/expert2.py, under the board's solver key.
A variant for two or more players (the Turtles) is fitted as its one-player game.

    python examples/fit_expert2.py --bot expert --games 20000 --jobs 2
    python examples/fit_expert2.py --variant turtles --games 2000 --bins 30 --jobs 1
"""

from __future__ import annotations

import argparse
import random
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from cantstop.bots.base import Budget, get_bot
from cantstop.bots.expert2 import estimate
from cantstop.core.dice import SeededDice
from cantstop.core.record import Record
from cantstop.core.variant import preset, variant_spec
from cantstop.solve.board import solver_key
from cantstop.table import BotPlayer, Table


def turn_starts(job: tuple[str, str, int]) -> list[tuple[tuple[int, ...], int]]:
    """(progress at the start of each turn, turns the game still took from there)."""
    bot, variant, seed = job
    player = BotPlayer(get_bot(bot), rng=random.Random(f"fit-bot-{seed}"), budget=Budget())
    table = Table(Record(preset(variant), [bot]), SeededDice(f"fit-dice-{seed}"), [player], narrate=False)
    starts: list[tuple[int, tuple[int, ...]]] = []
    while not table.state.is_over:
        state = table.state
        if not starts or starts[-1][0] != state.turn:
            starts.append((state.turn, tuple(state.pieces[0][2:])))
        table.step()
    return [(progress, table.state.turn - turn) for turn, progress in starts]


def measure(worth: np.ndarray, spare: float, to_win: int, progress: np.ndarray) -> np.ndarray:
    """The expert's progress measure of each row of `progress` (as the kernel computes it)."""
    values = np.sort(worth[np.arange(worth.shape[0]), progress], axis=1)[:, ::-1]
    return values[:, :to_win].sum(axis=1) + spare * values[:, to_win:].sum(axis=1)


def decreasing(means: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Pool adjacent violators: the closest non-increasing sequence (weighted least squares)."""
    blocks: list[list[float]] = []  # [mean, weight, count]
    for m, w in zip(means, weights, strict=True):
        blocks.append([float(m), float(w), 1])
        while len(blocks) > 1 and blocks[-2][0] < blocks[-1][0]:
            m2, w2, c2 = blocks.pop()
            m1, w1, c1 = blocks.pop()
            blocks.append([(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, c1 + c2])
    return np.concatenate([[m] * int(c) for m, _, c in blocks])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bot", default="expert")
    parser.add_argument("--variant", default="solitaire")
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=0, help="first game's seed (games use seed .. seed+games-1)")
    parser.add_argument("--bins", type=int, default=60)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    variant = preset(args.variant).with_options(min_players=1, max_players=1)
    spec = variant_spec(variant)
    jobs = [(args.bot, spec, args.seed + g) for g in range(args.games)]
    with ProcessPoolExecutor(args.jobs) as pool:
        games = list(pool.map(turn_starts, jobs, chunksize=50))
    rows = [row for game in games for row in game]
    progress = np.array([p for p, _ in rows], dtype=np.int64)
    left = np.array([t for _, t in rows], dtype=np.float64)
    measured = estimate(variant.heights, variant.to_win, ((0.0, 1.0), (1.0, 0.0)))
    u = measure(measured.worth, measured.spare, variant.to_win, progress)
    order = np.argsort(u, kind="stable")
    bins = np.array_split(order, args.bins)
    # Bins of one measure (the empty board, where many turn starts sit) become one knot.
    xs, where = np.unique(np.round([u[b].mean() for b in bins], 6), return_inverse=True)
    counts = np.bincount(where, [len(b) for b in bins])
    sums = np.bincount(where, [left[b].sum() for b in bins])
    ys = decreasing(sums / counts, counts)
    turns = np.array([t for game in games for _, t in game[:1]])
    print(f"{args.games} games of {args.bot}: {turns.mean():.4f} turns; {len(rows)} turn starts")
    print(f"    {solver_key(variant)!r}: (")
    print(f"        ({', '.join(f'{x:.4f}' for x in xs)}),")
    print(f"        ({', '.join(f'{y:.4f}' for y in ys)}),")
    print("    ),")


if __name__ == "__main__":
    main()
