"""CPU time of the solver's turn kernel, in this process, compilation excluded.

Two measures, each repeated: a board solved from scratch into a temporary value file on
one thread (`--solve SPEC`, with `--players 2` for the two-player solver), and the rivals
bot's whole turns (every in-turn state and stop value) at the turn starts of random
positions (`--turns N`, classic board by default). Prints one line per repetition and the
best, which is the figure to compare: on a shared machine the others measure the load.

    python benchmarks/turn_kernel.py --solve 'solitaire+faces=4+heights=2.3.4.5.4.3.2' --repeat 5
    python benchmarks/turn_kernel.py --solve 'classic+faces=3+heights=2.3.4.3.2' --players 2 --repeat 3
    python benchmarks/turn_kernel.py --turns 300 --variant classic --players 3 --repeat 5

To compare two versions of the code, run this file with each on `PYTHONPATH` in turn,
in the same sitting (the file uses only the solver's and the bot's public calls).
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from cantstop.core.state import Phase, State, new_game
from cantstop.core.variant import preset


def solve_once(spec: str, players: int, folder: Path) -> tuple[float, int]:
    """CPU seconds of one solve of `spec` on one thread, and its in-turn states."""
    from cantstop.solve.duo import board_for
    from cantstop.solve.solver import solve

    board = board_for(spec, players)
    path = folder / f"speed-{players}.bin"
    started = time.process_time()
    solve(board, path, threads=1, restart=True)
    return time.process_time() - started, board.states


def turn_starts(spec: str, players: int, count: int, seed: int) -> list[State]:
    """`count` turn starts met in games of random moves (seeded)."""
    rng = random.Random(seed)
    variant = preset(spec)
    found: list[State] = []
    state = new_game(variant, num_players=players)
    for _ in range(100 * count):
        if len(found) == count:
            break
        if state.phase is Phase.OVER:
            state = new_game(variant, num_players=players)
        if state.phase is Phase.ROLL:
            if not any(state.runners):
                found.append(state)
            state = state.roll(tuple(rng.randint(1, variant.faces) for _ in range(4)))
        else:
            state = state.play(rng.choice(state.legal_actions()))
    return found


def turns_once(spec: str, players: int, starts: list[State]) -> float:
    """CPU seconds to work out every given turn whole, against a fresh cache."""
    from cantstop.bots.learned_value import load_models
    from cantstop.bots.rival_turns import Rivals
    from cantstop.solve.board import solver_key

    variant = preset(spec)
    rivals = Rivals(variant, players, load_models()[solver_key(variant)])
    started = time.process_time()
    for state in starts:
        rivals.turn(state).whole()
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--solve", metavar="SPEC", help="solve this board")
    parser.add_argument("--turns", type=int, default=0, help="work out this many rivals turns")
    parser.add_argument("--variant", default="classic", help="the rivals bot's game (--turns)")
    parser.add_argument("--players", type=int, default=None, help="1 or 2 with --solve (default 1); 2-4 with --turns (default 2)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.solve:
        players = args.players or 1
        solve_once(args.solve, players, Path(tempfile.mkdtemp()))  # compile, and warm the caches
        best = float("inf")
        with tempfile.TemporaryDirectory() as folder:
            for k in range(args.repeat):
                seconds, states = solve_once(args.solve, players, Path(folder))
                best = min(best, seconds)
                print(f"solve {k + 1}: {seconds:.3f} CPU s, {1e6 * seconds / states:.3f} µs per in-turn state", flush=True)
        print(f"best of {args.repeat}: {best:.3f} CPU s ({states:,} in-turn states)")
    if args.turns:
        players = args.players or 2
        starts = turn_starts(args.variant, players, args.turns, args.seed)
        turns_once(args.variant, players, starts[:2])  # compile
        best = float("inf")
        for k in range(args.repeat):
            seconds = turns_once(args.variant, players, starts)
            best = min(best, seconds)
            print(f"turns {k + 1}: {seconds:.3f} CPU s, {1e3 * seconds / len(starts):.3f} ms a turn", flush=True)
        print(f"best of {args.repeat}: {best:.3f} CPU s for {len(starts)} turns")


if __name__ == "__main__":
    main()
