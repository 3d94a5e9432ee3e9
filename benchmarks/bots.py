"""Bot speed: rule28 self-play 2-player games per second, and the expert's decision times.

Run: `python benchmarks/bots.py --seconds 20` (one core, one process). With
`--match A B --pairs N` it plays a duplicate-dice match instead (the docs' table); with
`--alone BOT` it times BOT's decisions in solitaire games, with `--timed BOT --players N`
in classic games against rule28 (`--rival`); with `--first-edge BOT` it measures
seat A's win rate of BOT against itself. By default the expert is timed on every
decision it makes as one seat of classic 2-player games against rule28.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable

from cantstop import Phase, SeededDice, new_game
from cantstop.bots import Budget, get_bot


def play_game(names: tuple[str, ...], seed: int) -> int:
    """One classic game between bots `names` on dice `seed`; the winning seat."""
    bots = [get_bot(n).play for n in names]
    state = new_game("classic", len(names))
    dice = SeededDice(seed)
    rng = random.Random(seed)
    budget = Budget()
    while state.phase is not Phase.OVER:
        if state.phase is Phase.ROLL:
            state = state.roll(dice.roll(4, 6))
        else:
            state = state.play(bots[state.seat](state, rng, budget))
    assert state.winner is not None
    return state.winner


def rule28_games_per_second(seconds: float) -> float:
    games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        play_game(("rule28", "rule28"), games)
        games += 1
    return games / (time.perf_counter() - start)


def decision_times(
    name: str, seconds: float, players: int = 2, rival: str = "rule28", clock: Callable[[], float] = time.perf_counter
) -> list[float]:
    """Seconds per decision of bot `name` in one seat of classic games against `rival`s,
    the seat moving round game by game; a fresh process's first compile and first turn
    are paid once, outside the timing. `clock=time.process_time` counts this process's
    CPU time only: one core's time on a machine whose other work would inflate the wall clock."""
    bot = get_bot(name).play
    others = get_bot(rival).play
    budget = Budget(seconds=0.1)
    bot(new_game("classic", players).roll((1, 2, 3, 4)), random.Random(0), budget)
    times: list[float] = []
    start = time.perf_counter()
    seed = 0
    while time.perf_counter() - start < seconds:
        state = new_game("classic", players)
        dice = SeededDice(seed)
        rng = random.Random(seed)
        me = seed % players
        while state.phase is not Phase.OVER:
            if state.phase is Phase.ROLL:
                state = state.roll(dice.roll(4, 6))
            elif state.seat == me:
                t = clock()
                action = bot(state, rng, budget)
                times.append(clock() - t)
                state = state.play(action)
            else:
                state = state.play(others(state, rng, budget))
        seed += 1
    return sorted(times)


def solitaire_decision_times(name: str, seconds: float) -> tuple[list[float], int]:
    """Seconds per decision of bot `name` alone on the full board, and the games played.

    A bot that works out a whole turn at its start (expert2) pays there; a fresh
    process pays its first compile and first turn once, outside the timing.
    """
    bot = get_bot(name).play
    budget = Budget()
    bot(new_game("solitaire", 1).roll((1, 2, 3, 4)), random.Random(0), budget)
    times: list[float] = []
    start = time.perf_counter()
    games = 0
    while time.perf_counter() - start < seconds:
        state = new_game("solitaire", 1)
        dice = SeededDice(f"alone-{games}")
        rng = random.Random(games)
        while state.phase is not Phase.OVER:
            if state.phase is Phase.ROLL:
                state = state.roll(dice.roll(4, 6))
                continue
            t = time.perf_counter()
            action = bot(state, rng, budget)
            times.append(time.perf_counter() - t)
            state = state.play(action)
        games += 1
    return sorted(times), games


def _summary(times: list[float]) -> str:
    ms = [1000 * t for t in times]
    return (
        f"{len(ms)}, median {ms[len(ms) // 2]:.2f} ms, p90 {ms[int(0.9 * len(ms))]:.2f} ms, "
        f"p99 {ms[int(0.99 * len(ms))]:.2f} ms, mean {statistics.fmean(ms):.2f} ms, max {ms[-1]:.1f} ms"
    )


def duplicate_match(first: str, second: str, pairs: int, first_seed: int) -> tuple[int, int]:
    """Wins of `first` over `2 * pairs` games: each dice stream played with both seatings."""
    wins = 0
    for seed in range(first_seed, first_seed + pairs):
        wins += play_game((first, second), seed) == 0
        wins += play_game((second, first), seed) == 1
    return wins, 2 * pairs


def first_seat_wins(name: str, games: int, seed: int) -> tuple[int, int, str]:
    """Seat A's wins when bot `name` plays itself in two-player classic games, and the path
    used: the compiled simulator when the bot has a twin there, else the core game loop."""
    try:
        from cantstop.fast import simulate

        run = simulate("classic", [name, name], games=games, seed=seed, threads=1)
        return int((run.winner == run.seats[:, 0]).sum()), run.games, "fast"
    except (ImportError, ValueError):
        wins = 0
        for g in range(games):
            wins += play_game((name, name), seed + g) == 0
            if (g + 1) % 1000 == 0:  # a long core run reports as it goes: an interrupted one still tells
                print(f"{name} vs itself: seat A won {wins} of {g + 1} (seeds {seed}..{seed + g})", file=sys.stderr, flush=True)
        return wins, games, "core"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="time per measurement")
    parser.add_argument("--match", nargs=2, metavar="BOT", help="instead: a duplicate-dice match")
    parser.add_argument("--pairs", type=int, default=500, help="dice streams of --match")
    parser.add_argument("--first-seed", type=int, default=0, help="first dice seed of --match")
    parser.add_argument("--alone", metavar="BOT", help="instead: BOT's decision times in solitaire")
    parser.add_argument("--timed", metavar="BOT", help="instead: BOT's decision times in classic games")
    parser.add_argument("--players", type=int, default=2, help="players of --timed's games")
    parser.add_argument("--rival", default="rule28", help="the other seats of --timed's games")
    parser.add_argument("--cpu", action="store_true", help="--timed counts CPU time, not wall time")
    parser.add_argument("--first-edge", metavar="BOT", help="instead: seat A's win rate of BOT against itself")
    parser.add_argument("--games", type=int, default=100_000, help="games of --first-edge")
    parser.add_argument("--seed", type=int, default=1, help="dice seed of --first-edge (its first, on the core path)")
    args = parser.parse_args()
    if args.first_edge:
        wins, games, path = first_seat_wins(args.first_edge, args.games, args.seed)
        share = wins / games
        half = 1.96 * (share * (1 - share) / games) ** 0.5
        print(f"{args.first_edge} vs itself ({path}): seat A won {wins}/{games} = {share:.2%} ± {half:.2%}")
        return
    if args.timed:
        clock = time.process_time if args.cpu else time.perf_counter
        times = decision_times(args.timed, args.seconds, args.players, args.rival, clock)
        kind = "CPU" if args.cpu else "wall"
        print(f"{args.timed} with {args.players} players against {args.rival} ({kind} time): decisions {_summary(times)}")
        return
    if args.alone:
        times, games = solitaire_decision_times(args.alone, args.seconds)
        print(f"{args.alone} alone, {games} games: decisions {_summary(times)}")
        return
    if args.match:
        wins, games = duplicate_match(*args.match, args.pairs, args.first_seed)
        share = wins / games
        half = 1.96 * (share * (1 - share) / games) ** 0.5
        print(f"{args.match[0]} vs {args.match[1]}: {wins}/{games} = {share:.2%} ± {half:.2%}")
        return
    print(f"machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    print(f"rule28 self-play, 2 players: {rule28_games_per_second(args.seconds):,.0f} games/s")
    print(f"expert decisions: {_summary(decision_times('expert', args.seconds))}")


if __name__ == "__main__":
    main()
