"""Bot speed: rule28 self-play 2-player games per second, and the expert's decision times.

Run: `python benchmarks/bots.py --seconds 20` (one core, one process). The expert is
timed on every decision it makes as one seat of classic 2-player games against rule28.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time

from cantstop import Phase, SeededDice, new_game
from cantstop.bots import Budget, get_bot


def rule28_games_per_second(seconds: float) -> float:
    play = get_bot("rule28").play
    budget = Budget()
    games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = new_game("classic", 2)
        dice = SeededDice(games)
        rng = random.Random(games)
        while state.phase is not Phase.OVER:
            if state.phase is Phase.ROLL:
                state = state.roll(dice.roll(4, 6))
            else:
                state = state.play(play(state, rng, budget))
        games += 1
    return games / (time.perf_counter() - start)


def expert_decision_times(seconds: float) -> list[float]:
    """Seconds per expert decision over games against rule28, seats alternating."""
    expert = get_bot("expert").play
    rival = get_bot("rule28").play
    budget = Budget(seconds=0.1)
    times: list[float] = []
    start = time.perf_counter()
    seed = 0
    while time.perf_counter() - start < seconds:
        state = new_game("classic", 2)
        dice = SeededDice(seed)
        rng = random.Random(seed)
        me = seed % 2
        while state.phase is not Phase.OVER:
            if state.phase is Phase.ROLL:
                state = state.roll(dice.roll(4, 6))
            elif state.player == me:
                t = time.perf_counter()
                action = expert(state, rng, budget)
                times.append(time.perf_counter() - t)
                state = state.play(action)
            else:
                state = state.play(rival(state, rng, budget))
        seed += 1
    return sorted(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="time per measurement")
    args = parser.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    print(f"rule28 self-play, 2 players: {rule28_games_per_second(args.seconds):,.0f} games/s")
    times = expert_decision_times(args.seconds)
    ms = [1000 * t for t in times]
    print(
        f"expert decisions: {len(ms)}, median {ms[len(ms) // 2]:.2f} ms, "
        f"p90 {ms[int(0.9 * len(ms))]:.2f} ms, p99 {ms[int(0.99 * len(ms))]:.2f} ms, "
        f"mean {statistics.fmean(ms):.2f} ms, max {ms[-1]:.1f} ms"
    )


if __name__ == "__main__":
    main()
