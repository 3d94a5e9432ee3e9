"""The compiled fast path against the core, on the very same games, in one run.

Run: `python benchmarks/fast.py` (or `--seconds 10` for steadier figures). It prints:

- the first-use compile time of the kernels (in a fresh process with an empty cache);
- on one core: games/s of core and fast for random two-player games, Rule-of-28
  solitaire and expert solitaire, and their ratio, plus raw transitions/s (rolls and
  actions) of the random games;
- on all cores: the same, with each side spread over every core (core: one process
  per core; fast: one thread per core), and the fast path's scaling efficiency.

Both sides play the same kind of games with the same bots: the core with its own seeded
dice and the Python bots (the way every core tool plays), the fast path with
`simulate`. The equality tests prove the fast path plays the core's game, so the figures
compare equal work. One-core figures are CPU seconds (`time.process_time`), all-core
figures wall seconds.

`python benchmarks/fast.py --check N` instead compares N positions sampled from core
games of every preset and player count against the fast path (masks, next states, every
compiled bot's pick; the expert's at every 100th such position, as its Python twin is
slow) and prints how many were compared and how many differed.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from cantstop.bots.base import Budget, get_bot
from cantstop.core.dice import SeededDice
from cantstop.core.state import Phase, new_game
from cantstop.core.variant import PRESETS, Variant, preset
from cantstop.fast.counter import CounterDice, CounterRandom
from cantstop.fast.simulate import simulate

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from fast.proof import PROVEN_BOTS, Comparison, compare, sample_positions  # the tests' proof
from first_compile import first_compile


@dataclass(frozen=True)
class Workload:
    label: str
    variant: str
    bots: tuple[str, ...]


WORKLOADS = (
    Workload("random 2-player games", "classic", ("random", "random")),
    Workload("Rule-of-28 solitaire games", "solitaire", ("rule28",)),
    Workload("expert solitaire games", "solitaire", ("expert",)),
)
SEED = 2026
EXPERT_EVERY = 100  # --check asks the (slow) Python expert at every 100th position where a bot acts


def core_game(variant: Variant, bots: tuple[str, ...], seed: int) -> int:
    """One core game with the Python bots and the core's own seeded dice; its turns."""
    plays = [get_bot(b).play for b in bots]
    state = new_game(variant, len(bots))
    dice, rng, budget = SeededDice(seed), random.Random(seed), Budget()
    while not state.is_over:
        if state.phase is Phase.ROLL:
            state = state.roll(dice.roll(4, variant.faces))
        else:
            state = state.play(plays[state.seat](state, rng, budget))
    return state.turn


def core_rate(work: Workload, seconds: float, first: int = 0) -> tuple[float, int]:
    """Core games/s (CPU time) on seeds first, first + 1, ...; and how many were played."""
    variant = preset(work.variant)
    games = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        core_game(variant, work.bots, first + games)
        games += 1
    return games / (time.process_time() - start), games


def _core_slice(job: tuple[Workload, int, float]) -> int:
    work, first, seconds = job
    return core_rate(work, seconds, first)[1]


def core_rate_all(work: Workload, seconds: float, cores: int) -> float:
    """Core games/s over every core: one process per core, wall time."""
    with ProcessPoolExecutor(cores) as pool:
        pool.submit(int).result()  # processes started before the clock
        start = time.perf_counter()
        played = sum(pool.map(_core_slice, [(work, k * 10**7, seconds) for k in range(cores)]))
        return played / (time.perf_counter() - start)


def fast_rate(work: Workload, seconds: float, threads: int | None) -> float:
    """Fast games/s: one thread on CPU time, or all threads on wall time."""
    clock: Callable[[], float] = time.process_time if threads == 1 else time.perf_counter
    simulate(work.variant, work.bots, 100, SEED, threads)  # compiled and warm
    games = 1000
    while True:
        start = clock()
        simulate(work.variant, work.bots, games, SEED, threads)
        spent = clock() - start
        if spent >= seconds:
            return games / spent
        games = int(games * min(10.0, 1.2 * seconds / max(spent, 1e-3)))


def transitions_per_game(work: Workload, games: int = 300) -> float:
    """Rolls and actions per game of the fast workload, counted on the same games in core."""
    variant = preset(work.variant)
    plays = [get_bot(b).play for b in work.bots]
    moves = 0
    for g in range(games):  # game g of simulate(..., SEED): its dice, draws and seats
        order = (0, 1) if g % 2 == 0 else (1, 0)
        state = new_game(variant, len(work.bots))
        dice, rng = CounterDice(SEED, g // 2), CounterRandom(SEED, g)
        while not state.is_over:
            moves += 1
            if state.phase is Phase.ROLL:
                state = state.roll(dice.roll(4, variant.faces))
            else:
                state = state.play(plays[order[state.seat]](state, rng, Budget()))
    return moves / games


def compile_seconds() -> float:
    """Seconds a fresh process needs to compile and run every kernel once (empty cache)."""
    code = "from cantstop.fast.simulate import simulate\n" + "".join(
        f"simulate({w.variant!r}, {w.bots!r}, 10, 0, threads=1)\n" for w in WORKLOADS
    )
    return first_compile(code)[0]


def row(label: str, core: float, fast: float, unit: str = "games/s") -> str:
    return f"  {label:<34} {core:>12,.0f} {fast:>14,.0f}  {fast / core:>7.1f}×   {unit}"


def bench(seconds: float) -> None:
    cores = os.cpu_count() or 1
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC · {platform.processor() or platform.machine()} · "
          f"{cores} cores · Python {platform.python_version()} · load {load:.1f} at start")
    print(f"first-use compile time (empty cache): {compile_seconds():.1f} s")
    header = f"  {'workload':<34} {'core':>12} {'fast':>14}  {'ratio':>7}"
    print("\none core (CPU time)\n" + header)
    one = {}
    for work in WORKLOADS:
        core, _ = core_rate(work, seconds)
        fast = one[work.label] = fast_rate(work, seconds, 1)
        print(row(work.label, core, fast))
        if work.bots == ("random", "random"):
            moves = transitions_per_game(work)
            print(row("  raw transitions (rolls + actions)", core * moves, fast * moves, "transitions/s"))
    print(f"\nall {cores} cores (wall time)\n" + header)
    for work in WORKLOADS:
        core = core_rate_all(work, seconds, cores)
        fast = fast_rate(work, seconds, None)
        print(row(work.label, core, fast) + f"   fast scaling {fast / one[work.label] / cores:.0%}")
    print(f"\nload {os.getloadavg()[0]:.1f} at the end" if hasattr(os, "getloadavg") else "")


def check(positions: int) -> Comparison:
    """Compare `positions` sampled positions, spread over every preset and player count."""
    cases = [(name, p) for name, v in PRESETS.items() for p in range(v.min_players, v.max_players + 1)]
    total = Comparison()
    for k, (name, players) in enumerate(cases):
        count = positions // len(cases) + (k < positions % len(cases))
        for start in range(0, count, 20_000):  # batches of positions: memory stays small
            size = min(20_000, count - start)
            states = sample_positions(preset(name), players, size, seed=k * 7919 + start)
            total.add(compare(states, seed=start + k, bots=PROVEN_BOTS, expert_every=EXPERT_EVERY))
        print(f"  {name}, {players} players: so far compared {total.compared:,}, differed "
              f"{total.differed:,}", flush=True)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="per measurement (default 5)")
    parser.add_argument("--check", type=int, metavar="N", help="compare N positions instead")
    args = parser.parse_args()
    if args.check is not None:
        if args.check < 1:
            parser.error(f"--check needs at least 1 position, not {args.check}")
        start = time.perf_counter()
        result = check(args.check)
        print(f"compared {result.compared:,} positions, differed {result.differed:,} "
              f"({time.perf_counter() - start:.0f} s)")
        for example in result.examples:
            print("  " + example)
        sys.exit(1 if result.differed else 0)
    bench(args.seconds)


if __name__ == "__main__":
    main()
