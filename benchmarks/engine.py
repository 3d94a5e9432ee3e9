"""Engine speed: random 2-player games per second and choice generation per second.

Run: `make bench` (or `python benchmarks/engine.py --seconds 10`). One core, one process.
The workload of the random games: a uniformly random legal choice after every roll,
then roll again or stop with probability 1/2 each.
"""

from __future__ import annotations

import argparse
import platform
import random
import time

from cantstop import ROLL, STOP, Phase, SeededDice, new_game, preset


def random_game(seed: float) -> int:
    """Play one random 2-player classic game; return the number of rolls."""
    state = new_game("classic", 2)
    roll = SeededDice(seed).roll
    rng = random.Random(seed)
    pick = rng.choice
    coin = rng.random
    rolls = 0
    over, to_roll, choose = Phase.OVER, Phase.ROLL, Phase.CHOOSE
    while (phase := state.phase) is not over:
        if phase is to_roll:
            state = state.roll(roll(4, 6))
            rolls += 1
        elif phase is choose:
            state = state.play(pick(state.options))
        else:
            state = state.play(ROLL if coin() < 0.5 else STOP)
    return rolls


def games_per_second(seconds: float) -> tuple[float, float]:
    """Random games for `seconds` after a warm-up; (games/s, rolls per game)."""
    seeds = random.Random(2026)
    for _ in range(300):
        random_game(seeds.random())
    games = rolls = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        rolls += random_game(seeds.random())
        games += 1
    return games / (time.perf_counter() - start), rolls / games


def choices_per_second(seconds: float) -> float:
    """Choice generation over positions met in random play, every roll of each."""
    states = []
    seeds = random.Random(7)
    state = new_game("classic", 2)
    dice = SeededDice(1)
    while len(states) < 2000:
        if state.is_over:
            state = new_game("classic", 2)
        if state.phase is Phase.ROLL:
            states.append(state)
            state = state.roll(dice.roll(4, 6))
        else:
            state = state.play(seeds.choice(state.legal_actions()))
    rolls = preset("classic").tables.outcomes
    for s in states:  # warm the cache, as a long search would
        for r in rolls:
            s.choices(r)
    count = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for s in states[:200]:
            for r in rolls:
                s.choices(r)
        count += 200 * len(rolls)
    return count / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="time per measurement")
    args = parser.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    rate, rolls = games_per_second(args.seconds)
    print(f"random 2-player games: {rate:,.0f} games/s ({rolls:.1f} rolls per game)")
    print(f"choice generation: {choices_per_second(args.seconds):,.0f} rolls/s")


if __name__ == "__main__":
    main()
