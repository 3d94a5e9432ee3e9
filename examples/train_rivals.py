"""Train the rivals bot's value of one board: fitted value iteration by play.

Each iteration plays games on the board with the value fitted last (`--players`: by
default 2, 3 and 4 on the classic board, 2 on a small solved one): the rivals bot against itself,
and against `expert`, `rule28` and `ga` (the rivals it is measured against). At every
turn's start the turn is solved exactly against the value (the solver's turn kernel:
every roll, choice, roll or stop), which gives the mover's chance to win that position
when it plays the turn best and the value holds afterwards: a one-turn look-ahead with
no dice noise, the target of fitted value iteration. The value (a conditional logit over
the players, `cantstop.bots.learned_value`) is refitted to those targets, blended with
the winners of the self-play games (`--outcome`, the share of the game's result in each
target), by Fisher scoring of the cross-entropy. Then the next iteration plays with it.

The turns-to-go feature is the board's: on a board with a fitted curve (`KNOTS` of
`cantstop.bots.expert2`, made by `examples/fit_expert2.py`: the classic board and the
Turtles, each with its `to_win`), that curve; elsewhere the exact expected turns of the
board's solved solitaire game (`cantstop solve solitaire+...`). A board's value serves
its `skip` and `no_stop_on_occupied` options too. On a board also solved for two players
(`cantstop solve classic+... --players 2`), every iteration reports how far the value
is from the exact chance to win at the positions played, and `--target exact` fits the
exact chances themselves instead of the look-ahead's.

With `--evaluate DEALS`, each fitted value then plays DEALS two-player deals against
`--against` (the expert by default), each in both seatings on the same dice every
iteration, and the curve records its share of the wins.

Writes the curve (`curve.csv`, `curve.json`: per iteration the games, positions,
cross-entropy, the weights and the share won) and its plot (`curve.png`) into `--out`, each iteration's
positions and targets (`positions-N.npz`), the fitted value to `OUT/rivals.npz`, and
with `--install` into the shipped weights file (the board's value replaced, the other
boards' kept):

    python examples/train_rivals.py --variant classic --iterations 4 --games 300 --jobs 1
    python examples/train_rivals.py --variant 'classic+faces=4+heights=1.2.3.4.3.2.1' --players 2
    python examples/train_rivals.py --variant turtles-long --players 2 3 --start-board turtles
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

import numpy as np
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from cantstop.bots.base import Budget, get_bot
from cantstop.bots.expert2 import KNOTS
from cantstop.bots.learned_value import (
    FEATURES,
    WEIGHTS,
    FloatArray,
    IntArray,
    Model,
    Turns,
    features,
    load_models,
    save_models,
)
from cantstop.bots.rival_turns import Rivals
from cantstop.core.dice import SeededDice
from cantstop.core.record import Record
from cantstop.core.state import Action, State
from cantstop.core.variant import preset
from cantstop.solve.board import board_of, solver_key
from cantstop.solve.duo import board_for
from cantstop.solve.errors import SolveError
from cantstop.solve.value_file import ValueFile, default_path
from cantstop.table import BotPlayer, Table

OPPONENTS = ("self", "expert", "rule28", "ga")  # game g's other seats: OPPONENTS[g % 4]
# Where a board without weights starts: a turn behind costs about as much as moving second.
START = np.array([-1.0, 0.0, 0.0, 0.0, -3.0, -0.5, -0.8, -1.0])


@dataclass(frozen=True)
class Row:
    """A turn's starting position, players from the mover, with its targets."""

    progress: IntArray  # (players, columns)
    owner: IntArray  # (columns,): the claimer's place in that order, or -1
    ahead: float  # the mover's chance by the one-turn look-ahead
    won: bool  # did the mover win the game (self-play games only; else False and unused)
    self_play: bool


def exact_turns(spec: str) -> Turns:
    """The board's turns from its solved solitaire value file, or from expert2's fitted curve."""
    variant = preset(spec)
    key = solver_key(variant)
    if key in KNOTS:
        return Turns(variant.heights, variant.to_win, np.zeros(0), np.array(KNOTS[key], dtype=np.float64))
    board = board_of(key)
    path = default_path(board)
    if not path.exists():
        raise SystemExit(f"no solved solitaire value file of {key}: run `cantstop solve '{key}'` first, or fit a curve (examples/fit_expert2.py)")
    solved = np.asarray(ValueFile.open(path, board).values, dtype=np.float64)
    return Turns(variant.heights, variant.to_win, solved, np.zeros((2, 0)))


@cache
def _rivals(spec: str, players: int, coef: tuple[float, ...]) -> Rivals:
    variant = preset(spec)
    model = Model(solver_key(variant), np.array(coef), exact_turns(spec), (players,))
    return Rivals(variant, players, model)


def play_game(job: tuple[str, int, int, tuple[float, ...]]) -> list[Row]:
    """One game (`OPPONENTS[seed % 4]` in the other seats): a Row at every turn's start."""
    spec, players, seed, coef = job
    rivals = _rivals(spec, players, coef)
    opponent = OPPONENTS[seed % len(OPPONENTS)]
    ours = seed // len(OPPONENTS) % players  # the rivals bot's seat when it plays others

    def play(state: State, rng: random.Random, budget: Budget) -> Action:
        return rivals.action(state)

    seats = [
        BotPlayer(play if opponent == "self" or p == ours else get_bot(opponent).play, budget=Budget())
        for p in range(players)
    ]
    record = Record(preset(spec), [f"seat{p}" for p in range(players)])
    table = Table(record, SeededDice(f"train-rivals-{spec}-{seed}"), seats, narrate=False)
    starts: list[tuple[State, float]] = []
    while not table.state.is_over:
        state = table.state
        if not starts or starts[-1][0].turn != state.turn:
            starts.append((state, rivals.start_chance(state)))
        table.step()
    winner = table.state.winner
    rows = []
    for state, ahead in starts:
        progress, owner = rivals.position(state)
        # rivals.position orders players from the next to move: rotate the mover to the front.
        progress = np.roll(progress[0], 1, axis=0)
        owner = np.where(owner[0] < 0, -1, (owner[0] + 1) % players)
        rows.append(Row(progress, owner, ahead, winner == state.seat, opponent == "self"))
    return rows


def evaluate(job: tuple[str, int, str, tuple[float, ...]]) -> int:
    """The rivals bot's wins in deal `deal`'s two games against `opponent`, one in each seat (two players)."""
    spec, deal, opponent, coef = job
    rivals = _rivals(spec, 2, coef)

    def play(state: State, rng: random.Random, budget: Budget) -> Action:
        return rivals.action(state)

    wins = 0
    for ours in (0, 1):
        seats = [BotPlayer(play if p == ours else get_bot(opponent).play, budget=Budget()) for p in (0, 1)]
        table = Table(Record(preset(spec), ["A", "B"]), SeededDice(f"evaluate-{spec}-{deal}"), seats, narrate=False)
        table.run()
        wins += table.state.winner == ours
    return wins


def _softmax(scores: FloatArray) -> FloatArray:
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    return np.asarray(e / e.sum(axis=1, keepdims=True))


class ExactChances:
    """The exact two-player chances of a board solved for two players, by position."""

    def __init__(self, spec: str) -> None:
        self.board = board_for(spec, 2)
        self.values = np.asarray(ValueFile.open(default_path(self.board), self.board).values)

    def of(self, rows: list[Row]) -> FloatArray:
        index = []
        for row in rows:
            mover = tuple(int(v) for v in row.progress[0])
            rival = tuple(int(v) for v in row.progress[1])
            index.append(self.board.index_of(mover, rival))
        return np.asarray(self.values[np.array(index)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="classic", help="the board (a variant spec)")
    parser.add_argument("--iterations", type=int, default=4)
    parser.add_argument("--games", type=int, default=300, help="games per player count and iteration")
    parser.add_argument("--players", type=int, nargs="+", default=None, help="default: 2 3 4 (classic), else 2")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", type=int, default=2, help="iterations of positions each fit uses (the latest)")
    parser.add_argument("--outcome", type=float, default=0.2, help="the game's result's share of a self-play target")
    parser.add_argument("--target", choices=("ahead", "exact"), default="ahead")
    parser.add_argument("--out", type=Path, default=Path("runs/rivals"), help="curve, plot and weights")
    parser.add_argument("--start", type=Path, default=None, help="a weights file to start from (default: the shipped one)")
    parser.add_argument(
        "--start-board", metavar="SPEC", default=None,
        help="start from this board's weights in that file (default: the board's own; a generic start if it has none)",
    )
    parser.add_argument("--install", action="store_true", help="write the value into the shipped weights file")
    parser.add_argument(
        "--evaluate", type=int, default=0, metavar="DEALS",
        help="after each fit, play DEALS two-player deals against --against (both seatings, the same dice every iteration)",
    )
    parser.add_argument("--against", default="expert", help="the bot --evaluate plays")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    variant = preset(args.variant)
    key = solver_key(variant)
    players = args.players or ([2, 3, 4] if key == "solitaire" else [2])
    turns = exact_turns(args.variant)
    shipped = load_models(args.start) if args.start else load_models()
    start_key = solver_key(preset(args.start_board)) if args.start_board else key
    coef = shipped[start_key].coef if start_key in shipped else START
    try:
        exact = ExactChances(args.variant) if players == [2] else None
    except SolveError:
        exact = None
    if args.target == "exact" and exact is None:
        raise SystemExit(f"--target exact needs {args.variant} solved for two players (and --players 2)")
    curve: list[dict[str, float]] = []
    history: list[list[Row]] = []
    seed = args.seed
    with ProcessPoolExecutor(args.jobs) as pool:
        if args.evaluate:  # the starting value's share, for comparison
            point0: dict[str, float] = {"iteration": 0}
            point0[f"wins_vs_{args.against}"] = _share(pool, args, coef)
            point0 |= {name: round(float(c), 5) for name, c in zip(FEATURES, coef, strict=True)}
            curve.append(point0)
            print(json.dumps(point0), flush=True)
        for iteration in range(1, args.iterations + 1):
            jobs = []
            for count in players:
                for _ in range(args.games):
                    jobs.append((args.variant, count, seed, tuple(float(c) for c in coef)))
                    seed += 1
            random.Random(iteration).shuffle(jobs)  # mixed player counts: an even ETA
            rows: list[Row] = []
            started = time.perf_counter()
            columns = (
                TextColumn(f"iteration {iteration}"), BarColumn(), MofNCompleteColumn(), TextColumn("ETA"),
                TimeRemainingColumn(),
            )
            with Progress(*columns) as bar:
                task = bar.add_task("games", total=len(jobs))
                for game in pool.map(play_game, jobs, chunksize=2):
                    rows.extend(game)
                    bar.advance(task)
            history.append(rows)
            np.savez_compressed(  # the positions and targets, for fitting other features offline
                args.out / f"positions-{iteration}.npz",
                progress=np.array([r.progress for r in rows], dtype=object),
                owner=np.array([r.owner for r in rows], dtype=object),
                ahead=np.array([r.ahead for r in rows]),
                won=np.array([r.won for r in rows]),
                self_play=np.array([r.self_play for r in rows]),
            )
            kept = [row for part in history[-args.keep :] for row in part]
            point: dict[str, float] = {"iteration": iteration, "games": len(jobs), "positions": len(rows)}
            if exact is not None:
                truth = exact.of(rows)
                model = Model(key, coef, turns, tuple(players))
                now = np.array([_chance(model, r) for r in rows])
                ahead = np.array([r.ahead for r in rows])
                point["value_error"] = round(float(np.sqrt(np.mean((now - truth) ** 2))), 5)
                point["ahead_error"] = round(float(np.sqrt(np.mean((ahead - truth) ** 2))), 5)
            losses = []
            for count in players:
                mine = [r for r in kept if r.progress.shape[0] == count]
                if not mine:
                    continue
                progress = np.stack([r.progress for r in mine])
                owner = np.stack([r.owner for r in mine])
                x = features(turns, progress, owner)
                if args.target == "exact" and exact is not None:
                    target = exact.of(mine)
                else:
                    ahead = np.array([r.ahead for r in mine])
                    won = np.array([float(r.won) for r in mine])
                    share = np.array([args.outcome if r.self_play else 0.0 for r in mine])
                    target = (1 - share) * ahead + share * won
                losses.append((x, target))
            coef, loss = fit(losses, coef)
            if args.evaluate:
                point[f"wins_vs_{args.against}"] = _share(pool, args, coef)
            point |= {
                "cross_entropy": round(loss, 5),
                "seconds": round(time.perf_counter() - started, 1),
                **{name: round(float(c), 5) for name, c in zip(FEATURES, coef, strict=True)},
            }
            curve.append(point)
            print(json.dumps(point), flush=True)
            model = Model(key, coef, turns, tuple(players))
            save_models([model], args.out / "rivals.npz")
            write_curve(curve, args.out)
    if args.install:
        shipped_path = Path(str(resources.files("cantstop.bots").joinpath("weights", WEIGHTS)))
        others = [m for k, m in load_models(shipped_path).items() if k != key]
        save_models([*others, Model(key, coef, turns, tuple(players))], shipped_path)
        print(f"installed the {key} value into {shipped_path}")


def _share(pool: ProcessPoolExecutor, args: argparse.Namespace, coef: FloatArray) -> float:
    """The share of `--evaluate`'s games the value `coef` wins against `--against`."""
    deals = [(args.variant, d, args.against, tuple(float(c) for c in coef)) for d in range(args.evaluate)]
    return round(sum(pool.map(evaluate, deals, chunksize=4)) / (2 * args.evaluate), 5)


def _chance(model: Model, row: Row) -> float:
    return float(model.chances(row.progress[None], row.owner[None])[0, 0])


def fit(parts: list[tuple[FloatArray, FloatArray]], start: FloatArray, ridge: float = 1e-3) -> tuple[FloatArray, float]:
    """Fisher scoring of the mover's cross-entropy against the targets; the weights and its mean.

    `parts`: per player count, the features (positions, players from the mover, features)
    and the mover's target chances.
    """
    w = start.copy()
    for _ in range(50):
        gradient = -ridge * w
        fisher = ridge * np.eye(len(w))
        for x, target in parts:
            q = _softmax(x @ w)
            d = x[:, 0] - np.einsum("sp,spf->sf", q, x)  # d(log q_mover)/dw
            qm = np.clip(q[:, 0], 1e-12, 1 - 1e-12)
            gradient += ((target - qm) / (1 - qm)) @ d
            fisher += np.einsum("s,sf,sg->fg", qm / (1 - qm), d, d)
        step = np.linalg.solve(fisher, gradient)
        w += step
        if np.abs(step).max() < 1e-9:
            break
    total = sum(len(t) for _, t in parts)
    loss = 0.0
    for x, target in parts:
        qm = np.clip(_softmax(x @ w)[:, 0], 1e-12, 1 - 1e-12)
        loss -= float(np.sum(target * np.log(qm) + (1 - target) * np.log(1 - qm)))
    return w, loss / total


def write_curve(curve: list[dict[str, float]], out: Path) -> None:
    (out / "curve.json").write_text(json.dumps(curve, indent=1) + "\n")
    with (out / "curve.csv").open("w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(curve[-1]))
        writer.writeheader()
        writer.writerows(curve)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5))
    its = [p["iteration"] for p in curve]
    left.plot(its, [p.get("cross_entropy", np.nan) for p in curve], marker="o", label="cross-entropy of the targets")
    if "value_error" in curve[-1]:
        left.plot(its, [p.get("value_error", np.nan) for p in curve], marker="s", label="value's RMS error (exact)")
        left.plot(its, [p.get("ahead_error", np.nan) for p in curve], marker="^", label="look-ahead's RMS error (exact)")
    against = [k for k in curve[-1] if k.startswith("wins_vs_")]
    for k in against:
        left.plot(its, [p.get(k, np.nan) for p in curve], marker="D", label=k.replace("_", " ") + " (share)")
    left.set(xlabel="iteration", title="fit")
    left.legend(fontsize=8)
    for name in ("turns", "root of turns", "claims", "waits 1"):
        right.plot(its, [p[name] for p in curve], marker="o", label=name)
    right.set(xlabel="iteration", ylabel="weight", title="learned weights")
    right.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "curve.png", dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main()
