"""Games per second of random vs random through the arena, with 1 and 2 worker processes.

    python benchmarks/arena.py [--games N]

Counts everything a match does: dice by deal and turn, timed bot calls, records
and summary lines written to a temporary directory.
"""

from __future__ import annotations

import argparse
import platform
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from cantstop.arena.match import MatchSpec
from cantstop.arena.runner import run_match


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    args = parser.parse_args()
    spec = MatchSpec(("random", "random"), ("random#1", "random#2"), seed=1)
    print(f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.python_implementation()} "
          f"{platform.python_version()}, {platform.processor() or platform.machine()}")
    for jobs in (1, 2):
        with tempfile.TemporaryDirectory() as out:
            start = time.perf_counter()
            outcome = run_match(spec, args.games, jobs, Path(out))
            elapsed = time.perf_counter() - start
        print(f"jobs {jobs}: {outcome.tally.games} games in {elapsed:.2f} s = "
              f"{outcome.tally.games / elapsed:.0f} games/s")


if __name__ == "__main__":
    main()
