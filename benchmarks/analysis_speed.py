"""How fast the analysis is: a whole game (2 and 4 players), the first one in a fresh process, a roll map.

- `game` rows: CPU seconds to analyse one finished classic game of `expert`s, after a
  warm-up analysis in the same process (median and slowest of `--games` games).
- `first` rows: wall and CPU seconds of a fresh Python that imports the analysis and analyses
  one two-player game, with an empty numba cache (compiling everything) and with the cache
  that run left behind (loading it).
- `roll map` row: milliseconds of CPU per `roll_map` on the positions before each roll of the
  two-player games (median and p99).

Run: `python benchmarks/analysis_speed.py --games 20`
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime

from cantstop.analysis import analyse
from cantstop.analysis.rollmap import roll_map
from cantstop.arena.match import MatchSpec, play_game
from cantstop.arena.player import make_players
from cantstop.arena.schedule import Task
from cantstop.core.record import Record, read_record, write_record
from cantstop.core.state import Phase

FIRST = """
import time
wall, cpu = time.perf_counter(), time.process_time()
from cantstop.analysis import analyse
from cantstop.core.record import read_record
analyse(read_record(open({path!r}, encoding="utf-8").read()))
print(time.perf_counter() - wall, time.process_time() - cpu)
"""


def games(players: int, count: int) -> list[Record]:
    """`count` finished classic games of `players` experts, seeded as the arena seeds them."""
    bots = tuple(["expert"] + [f"expert#{i}" for i in range(2, players + 1)])
    spec = MatchSpec(("expert",) * players, bots, "classic", 0, 600_000, 5.0)
    made = make_players(spec, None)
    records = []
    for deal in range(count):
        result = play_game(spec, Task(deal, deal, tuple(range(players))), made)
        if result.forfeit is not None:
            raise SystemExit(f"deal {deal} was forfeited ({result.reason}): no figure from it")
        records.append(read_record(result.record))
    return records


def cpu_of(record: Record) -> float:
    started = time.process_time()
    analyse(record)
    return time.process_time() - started


def first(text: str) -> tuple[tuple[float, float], tuple[float, float]]:
    """(wall, CPU) of a fresh process's first analysis: empty numba cache, then the cache it left."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "game.txt")
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
        env = {**os.environ, "NUMBA_CACHE_DIR": os.path.join(folder, "cache")}
        runs = []
        for _ in range(2):
            done = subprocess.run([sys.executable, "-c", FIRST.format(path=path)], capture_output=True, text=True,
                                  check=True, env=env)
            wall, cpu = done.stdout.split()[-2:]
            runs.append((float(wall), float(cpu)))
    return runs[0], runs[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games of each player count")
    args = parser.parse_args()
    two, four = games(2, args.games), games(4, max(1, args.games // 2))
    cold, warm = first(write_record(two[0]))
    cpu_of(two[0])  # warm-up: compiled code and the value models loaded
    rows = []
    for label, records in (("2 players", two), ("4 players", four)):
        times = [cpu_of(r) for r in records]
        turns = statistics.median(r.final().turn for r in records)
        rows.append(f"| game, {label} (median {turns:.0f} turns) | {len(times)} | {statistics.median(times):.2f} s | "
                    f"{max(times):.2f} s |")
    maps = []
    for record in two:
        for state in record.states():
            if state.phase is Phase.ROLL:
                started = time.process_time()
                roll_map(state)
                maps.append(1000 * (time.process_time() - started))
    maps.sort()
    print(f"\nAnalysis speed; {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.machine()}, "
          f"{os.cpu_count()} cores, Python {platform.python_version()}\n")
    print("| what | n | median | slowest |")
    print("|---|---:|---:|---:|")
    for row in rows:
        print(row)
    print(f"| first analysis in a fresh process, empty numba cache (wall / CPU) | 1 | {cold[0]:.1f} s / {cold[1]:.1f} s | |")
    print(f"| first analysis in a fresh process, cache on disk (wall / CPU) | 1 | {warm[0]:.1f} s / {warm[1]:.1f} s | |")
    print(f"| roll map (CPU; slowest is p99) | {len(maps)} | {statistics.median(maps):.1f} ms | "
          f"{maps[min(len(maps) - 1, int(0.99 * len(maps)))]:.1f} ms |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
