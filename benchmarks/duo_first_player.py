"""Two optimal bots against each other on a solved two-player board: seat A's wins against its value file.

Run: `python benchmarks/duo_first_player.py SPEC --games 100000 --jobs 2` after
`cantstop solve SPEC --players 2`. The games go through `cantstop.arena` (the pure-Python
core, a `Table` per game); seat A moves first in every game, so its share of wins
estimates the first player's chance, which the value file holds exactly. Prints both, the
standard error and the distance in standard errors.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from cantstop.arena.match import MatchSpec
from cantstop.arena.runner import SUMMARY_LINES, run_match
from cantstop.solve.duo import board_for
from cantstop.solve.value_file import ValueFile, default_path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spec")
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    board = board_for(args.spec, 2)
    solved = ValueFile.open(default_path(board), board).value(0)
    spec = MatchSpec(("optimal", "optimal"), ("optimal#1", "optimal#2"), args.spec, seed=args.seed, budget_ms=30_000)
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        run_match(spec, args.games, args.jobs, out)
        winners = [json.loads(line)["winner"] for line in (out / SUMMARY_LINES).read_text().splitlines()]
    games = len(winners)
    rate = sum(w == 0 for w in winners) / games
    error = (rate * (1 - rate) / games) ** 0.5
    print(
        f"{args.spec}: seat A won {rate:.5f} +- {error:.5f} of {games:,} games "
        f"({sum(w is None for w in winners)} draws) in {time.monotonic() - started:,.0f} s; "
        f"solved {solved:.10f}; {(rate - solved) / error:+.2f} standard errors"
    )


if __name__ == "__main__":
    main()
