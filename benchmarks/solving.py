"""The ladder of solved boards in docs/solving.md: solve each, then measure the bots on it.

Run: `python benchmarks/solving.py` (every board up to `--most-states`, bots over
`--games` games each, `--jobs` processes). Each solve runs as `cantstop solve SPEC`
in a child process, so its time (wall and CPU: the CPU figure holds on a busy machine)
and peak memory are its own; a value file solved before
is reused (its recorded solving time is shown). Prints one Markdown row per board.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time

from cantstop.cli.solitaire import run_solitaire
from cantstop.solve.board import board_of
from cantstop.solve.value_file import ValueFile, default_path

LADDER = (
    "solitaire+faces=3+heights=1.2.3.2.1",
    "solitaire+faces=3+heights=2.3.4.3.2",
    "solitaire+heights=1.1.1.1.1.1.1.1.1.1.1",
    "solitaire+heights=1.1.1.2.2.2.2.2.1.1.1",
    "solitaire+faces=4+heights=2.3.4.5.4.3.2",
    "solitaire+heights=1.1.2.2.3.3.3.2.2.1.1",
    "solitaire+faces=5+heights=1.2.3.4.5.4.3.2.1",
    "solitaire+heights=1.2.2.3.3.4.3.3.2.2.1",
    "solitaire+heights=1.2.3.3.4.4.4.3.3.2.1",
    "solitaire+heights=1.2.3.4.5.6.5.4.3.2.1",
)
BOTS = ("rule28", "ga", "expert")


def solve(spec: str) -> tuple[float, float, float, ValueFile]:
    """Solve in a child process: (wall s, CPU s, peak MiB); a value file solved before gives its time."""
    board = board_of(spec)
    path = default_path(board)
    if path.exists():
        solved = ValueFile.open(path, board)
        if solved.header.complete:
            return solved.header.seconds, float("nan"), float("nan"), solved
    start = time.perf_counter()
    command = [sys.executable, "-c", "from cantstop.cli import main; main()", "solve", spec]
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if status:
        raise SystemExit(f"cantstop solve {spec} failed ({status})")
    cpu = usage.ru_utime + usage.ru_stime
    return time.perf_counter() - start, cpu, usage.ru_maxrss / 1024, ValueFile.open(path, board)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--most-states", type=float, default=4e8, help="Skip bigger boards.")
    args = parser.parse_args()
    print(f"# {platform.node()}, {os.cpu_count()} cores, {time.strftime('%Y-%m-%d %H:%M')}")
    print("| board | anchors | in-turn states | solve s | CPU s | peak MiB | optimal | "
          + " | ".join(BOTS) + " | expert gap |")
    for spec in LADDER:
        board = board_of(spec)
        if board.states > args.most_states:
            continue
        seconds, cpu, peak, solved = solve(spec)
        optimal = solved.value(0)
        means = {}
        for bot in BOTS:
            result = run_solitaire(bot, args.games, seed=1, jobs=args.jobs, variant=spec)
            means[bot] = f"{result.mean:.3f} ± {result.standard_error:.3f}"
            if bot == "expert":
                gap = 100 * (result.mean - optimal) / optimal
        print(f"| `{spec}` | {board.anchors:,} | {board.states:,} | {seconds:,.1f} | {cpu:,.1f} | {peak:,.0f} | "
              f"{optimal:.4f} | " + " | ".join(means[b] for b in BOTS) + f" | {gap:+.1f}% |", flush=True)


if __name__ == "__main__":
    main()
