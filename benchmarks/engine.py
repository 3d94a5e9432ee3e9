"""Engine speed, measured against a naive dict-based simulator in the same run.

Run: `make bench` (or `python benchmarks/engine.py --seconds 10`). One core, one process.

- random 2-player classic games: a uniformly random legal choice after every roll, then
  roll again or stop with probability 1/2 each (the workload of issue 2);
- Rule-of-28 solitaire games: Keller's stop rule and its companion choice rule, written
  once below and used identically by both simulators;
- choice generation: every roll of positions met in random play.

The engine and the naive simulator take turns in short slices, so a change in the
machine's speed during the run hits both alike; both play the very same games (same dice,
same picks), which the run checks.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from cantstop import ROLL, STOP, Phase, SeededDice, new_game, preset
from naive import HEIGHTS, NaiveGame

# ------------------------------------------------------------------ Rule of 28 (shared)
PROGRESS_WEIGHT = dict(zip(range(2, 13), (6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6)))
MOVE_WEIGHT = dict(zip(range(2, 13), (1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1)))


def shape_bonus(columns: Collection[int]) -> int:
    """The odd/even/high/low terms of the rule, for three runner columns."""
    odd = sum(c & 1 for c in columns)
    bonus = 2 if odd == 3 else -2 if odd == 0 else 0
    if min(columns) >= 7:
        bonus += 4
    if max(columns) <= 7:
        bonus += 4
    return bonus


def keep_rolling(moved: dict[int, int], free_column: bool) -> bool:
    """Roll while a runner is unused and a column is free; else until progress reaches 28."""
    if len(moved) < 3 and free_column:
        return True
    score = sum((m + 1) * PROGRESS_WEIGHT[c] for c, m in moved.items())
    if len(moved) == 3:
        score += shape_bonus(moved)
    return score < 28


def pick_choice(options: Sequence[tuple[int, ...]], runner_columns: Iterable[int]) -> tuple[int, ...]:
    """The companion rule: move weights, new runners count twice, shape terms reversed, -6 a runner."""
    best = options[0]
    best_score = -1000
    base = set(runner_columns)
    for option in options:
        columns = set(base)
        score = 0
        for c in option:
            score += MOVE_WEIGHT[c]
            if c not in columns:
                score += MOVE_WEIGHT[c]
                columns.add(c)
        if len(columns) == 3:
            score -= shape_bonus(columns)
        score -= 6 * len(columns)
        if score > best_score:
            best, best_score = option, score
    return best


# ------------------------------------------------------------------ the engine's games
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


def rule28_game(seed: float) -> int:
    """One Rule-of-28 solitaire game on the engine; return its score (turns)."""
    state = new_game("solitaire", 1)
    roll = SeededDice(seed).roll
    over, to_roll, choose = Phase.OVER, Phase.ROLL, Phase.CHOOSE
    while (phase := state.phase) is not over:
        if phase is to_roll:
            state = state.roll(roll(4, 6))
        elif phase is choose:
            state = state.play(pick_choice(state.options, state.runner_columns))
        else:
            runners = state.runners
            own = state.pieces[0]
            moved = {c: runners[c] - own[c] for c in state.runner_columns}
            state = state.play(ROLL if keep_rolling(moved, state.may_place()) else STOP)
    return state.turn


# ------------------------------------------------------------------ the naive simulator's
def naive_random_game(seed: float) -> int:
    game = NaiveGame(2)
    roll = SeededDice(seed).roll
    rng = random.Random(seed)
    rolls = 0
    while game.winner is None:
        rolls += 1
        options = game.options(roll(4, 6))
        if not options:
            game.bust()
            continue
        game.advance(rng.choice(options))
        if rng.random() >= 0.5:
            game.stop()
    return rolls


def naive_rule28_game(seed: float) -> int:
    game = NaiveGame(1)
    roll = SeededDice(seed).roll
    while game.winner is None:
        options = game.options(roll(4, 6))
        if not options:
            game.bust()
            continue
        game.advance(pick_choice(options, game.runners))
        own = game.progress[0]
        moved = {c: space - own.get(c, 0) for c, space in game.runners.items()}
        free = any(c not in game.claimed and c not in game.runners for c in HEIGHTS)
        if not keep_rolling(moved, free):
            game.stop()
    return game.turns


# ------------------------------------------------------------------ measuring
def race(
    engine: Callable[[float], int], naive: Callable[[float], int], seconds: float, seed: int
) -> tuple[float, float, float]:
    """Games/s of both, in alternating slices over the same seeds; and the mean result."""
    seeds = random.Random(seed)
    for _ in range(200):  # warm-up: the engine's choice cache fills as any long run's would
        s = seeds.random()
        assert engine(s) == naive(s), "the engine and the naive simulator disagree"
    counts = [0, 0]
    spent = [0.0, 0.0]
    total = 0
    deadline = time.process_time() + seconds
    while time.process_time() < deadline:
        batch = [seeds.random() for _ in range(50)]
        results = []
        for which, play in enumerate((engine, naive)):
            start = time.process_time()
            results.append([play(s) for s in batch])
            spent[which] += time.process_time() - start
            counts[which] += len(batch)
        assert results[0] == results[1], "the engine and the naive simulator disagree"
        total += sum(results[0])
    return counts[0] / spent[0], counts[1] / spent[1], total / counts[0]


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
    rolls = preset("classic").catalog.outcomes
    for s in states:  # warm the cache, as a long search would
        for r in rolls:
            s.choices(r)
    count = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for s in states[:200]:
            for r in rolls:
                s.choices(r)
        count += 200 * len(rolls)
    return count / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="time per measurement")
    args = parser.parse_args()
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(f"{when}; {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    ours, theirs, rolls = race(random_game, naive_random_game, args.seconds, 2026)
    print(f"random 2-player games: engine {ours:,.0f} games/s, naive {theirs:,.0f} games/s, "
          f"ratio {ours / theirs:.2f} ({rolls:.1f} rolls per game)")
    ours, theirs, turns = race(rule28_game, naive_rule28_game, args.seconds, 28)
    print(f"rule-of-28 solitaire: engine {ours:,.0f} games/s, naive {theirs:,.0f} games/s, "
          f"ratio {ours / theirs:.2f} (mean {turns:.2f} turns)")
    print(f"choice generation: {choices_per_second(args.seconds):,.0f} rolls/s")


if __name__ == "__main__":
    main()
