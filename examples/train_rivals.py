"""Train the rivals bot's value: fitted policy iteration by self-play.

Each iteration plays classic games with 2, 3 and 4 players, records every turn's
starting position and who won the game, and refits the learned value (a conditional
logit over the players, `cantstop.bots.learned_value`) to those winners by Newton's
method on the log-likelihood. The games of iteration 0 are the expert's (a cheap,
strong start); every later iteration plays the rivals bot against itself with the
value fitted last, each turn optimised exactly by the solver's turn kernel: the
value is evaluated on the policy that uses it, then the policy improves on it.

Writes the weights (`--weights`), the curve (`curve.csv`, `curve.json`: per iteration
the games, positions, log-loss, and how often the value's favourite won) and its
plot (`curve.png`) into `--out`:

    python examples/train_rivals.py --iterations 3 --games 400 --jobs 2
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import time
from concurrent.futures import ProcessPoolExecutor
from functools import cache
from pathlib import Path

import numpy as np
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from cantstop.bots.base import Budget, get_bot
from cantstop.bots.learned_value import (
    FEATURES,
    FloatArray,
    IntArray,
    Model,
    features,
    load_model,
    save_model,
)
from cantstop.bots.rival_turns import Rivals
from cantstop.core.dice import SeededDice
from cantstop.core.record import Record
from cantstop.core.state import Action, State
from cantstop.core.variant import preset
from cantstop.table import BotPlayer, Table

VARIANT = "classic"
KEY = "solitaire"  # the solver's key of the classic board
# Where the first fit starts: a turn behind costs about as much as moving second.
START = np.array([-0.7, 0.0, 0.0, -5.0, -0.35, -0.7, -1.0])


@cache
def _rivals(players: int, coef: tuple[float, ...]) -> Rivals:
    return Rivals(preset(VARIANT), players, Model(KEY, np.array(coef)))


def play_game(job: tuple[int, int, tuple[float, ...] | None]) -> list[tuple[IntArray, IntArray, int]]:
    """One game: (progress, owner, winner) at every turn start, players from the mover."""
    players, seed, coef = job
    if coef is None:
        seats = [BotPlayer(get_bot("expert"), budget=Budget()) for _ in range(players)]
    else:
        rivals = _rivals(players, coef)

        def play(state: State, rng: random.Random, budget: Budget) -> Action:
            return rivals.action(state)

        seats = [BotPlayer(play, budget=Budget()) for _ in range(players)]
    record = Record(preset(VARIANT), [f"seat{p}" for p in range(players)])
    table = Table(record, SeededDice(f"train-rivals-{seed}"), seats, narrate=False)
    starts: list[tuple[int, State]] = []
    while not table.state.is_over:
        state = table.state
        if not starts or starts[-1][0] != state.turn:
            starts.append((state.turn, state))
        table.step()
    winner = table.state.winner
    assert winner is not None
    rows = []
    for _, state in starts:
        order = [(state.seat + k) % players for k in range(players)]
        rank = {p: k for k, p in enumerate(order)}
        progress = np.array([state.pieces[p][2:] for p in order], dtype=np.int64)
        owner = np.array([rank.get(o, -1) for o in state.claimed[2:]], dtype=np.int64)
        rows.append((progress, owner, rank[winner]))
    return rows


def fit(data: list[tuple[FloatArray, IntArray]], start: FloatArray, ridge: float = 1.0) -> tuple[FloatArray, float, float]:
    """Newton's method on the conditional logit's penalised log-likelihood.

    `data`: per player count, features (positions, players, features) and the winners.
    Returns the weights, the mean log-loss and how often the favourite won.
    """
    w = start.copy()
    for _ in range(30):
        gradient = -ridge * w
        hessian = -ridge * np.eye(len(w))
        for x, won in data:
            p = _softmax(x @ w)
            mean = np.einsum("sp,spf->sf", p, x)
            gradient += (x[np.arange(len(won)), won] - mean).sum(axis=0)
            hessian -= np.einsum("sp,spf,spg->fg", p, x, x) - mean.T @ mean
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    positions = sum(len(won) for _, won in data)
    loss = -sum(np.log(_softmax(x @ w)[np.arange(len(won)), won]).sum() for x, won in data) / positions
    hits = sum(((x @ w).argmax(axis=1) == won).sum() for x, won in data) / positions
    return w, float(loss), float(hits)


def _softmax(scores: FloatArray) -> FloatArray:
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    return np.asarray(e / e.sum(axis=1, keepdims=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=3, help="self-play iterations after the expert's games")
    parser.add_argument("--games", type=int, default=400, help="games per player count and iteration")
    parser.add_argument("--expert-games", type=int, default=2000, help="games per player count of iteration 0")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", type=int, default=2, help="iterations of games each fit uses (the latest)")
    parser.add_argument("--out", type=Path, default=Path("runs/rivals"), help="curve, plot and weights")
    parser.add_argument("--weights", type=Path, default=None, help="where to write the weights (default OUT/rivals.npz)")
    parser.add_argument("--resume", action="store_true", help="start from the shipped weights, not from the expert's games")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    weights_path = args.weights or args.out / "rivals.npz"
    coef = load_model().coef if args.resume else START
    curve: list[dict[str, float]] = []
    history: list[list[tuple[IntArray, IntArray, int]]] = []
    first = 1 if args.resume else 0
    seed = args.seed
    with ProcessPoolExecutor(args.jobs) as pool:
        for iteration in range(first, args.iterations + 1):
            games = args.expert_games if iteration == 0 else args.games
            jobs = []
            for players in args.players:
                for _ in range(games):
                    jobs.append((players, seed, None if iteration == 0 else tuple(float(c) for c in coef)))
                    seed += 1
            random.Random(iteration).shuffle(jobs)  # mixed player counts: an even ETA
            rows: list[tuple[IntArray, IntArray, int]] = []
            started = time.perf_counter()
            columns = (TextColumn(f"iteration {iteration}"), BarColumn(), MofNCompleteColumn(), TextColumn("ETA"), TimeRemainingColumn())
            with Progress(*columns) as bar:
                task = bar.add_task("games", total=len(jobs))
                for game in pool.map(play_game, jobs, chunksize=4):
                    rows.extend(game)
                    bar.advance(task)
            history.append(rows)
            kept = [row for rows_i in history[-args.keep :] for row in rows_i]
            data = []
            for players in args.players:
                mine = [row for row in kept if row[0].shape[0] == players]
                if mine:
                    progress = np.stack([r[0] for r in mine])
                    owner = np.stack([r[1] for r in mine])
                    won = np.array([r[2] for r in mine], dtype=np.int64)
                    data.append((features(progress, owner, preset(VARIANT).to_win, KEY), won))
            coef, loss, hits = fit(data, coef)
            point = {
                "iteration": iteration,
                "games": len(jobs),
                "positions": len(rows),
                "log_loss": round(loss, 5),
                "favourite_won": round(hits, 5),
                "seconds": round(time.perf_counter() - started, 1),
                **{name: round(float(c), 5) for name, c in zip(FEATURES, coef, strict=True)},
            }
            curve.append(point)
            print(json.dumps(point))
            save_model(Model(KEY, coef), weights_path)
            write_curve(curve, args.out)


def write_curve(curve: list[dict[str, float]], out: Path) -> None:
    (out / "curve.json").write_text(json.dumps(curve, indent=1) + "\n")
    with (out / "curve.csv").open("w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(curve[0]))
        writer.writeheader()
        writer.writerows(curve)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5))
    its = [p["iteration"] for p in curve]
    left.plot(its, [p["log_loss"] for p in curve], marker="o")
    left.set(xlabel="iteration (0: the expert's games)", ylabel="log-loss of the winner", title="fit")
    for name in ("turns", "claims", "waits 1"):
        right.plot(its, [p[name] for p in curve], marker="o", label=name)
    right.set(xlabel="iteration", ylabel="weight", title="learned weights")
    right.legend()
    fig.tight_layout()
    fig.savefig(out / "curve.png", dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main()
