"""Baselines for learners: a uniformly random masked policy in both environments.

Run: python examples/train_random.py [--episodes 200]   (needs `pip install -e '.[envs]'` from a checkout)

Prints the random agent's win rate against rule28 and the random bot (Gymnasium),
its mean solitaire turns, and the seat win rates of random self-play (PettingZoo AEC):
the numbers a trained agent has to beat.
"""

from __future__ import annotations

import argparse
from collections import Counter

import gymnasium
import numpy as np

import cantstop.envs  # registers cantstop/CantStop-v0 and cantstop/CantStopSolitaire-v0


def mean_return(env: gymnasium.Env, episodes: int, rng: np.random.Generator) -> float:  # type: ignore[type-arg]
    total = 0.0
    for seed in range(episodes):
        _, info = env.reset(seed=seed)
        done = False
        while not done:
            action = rng.choice(np.flatnonzero(info["action_mask"]))
            _, reward, terminated, truncated, info = env.step(action)
            total += float(reward)
            done = terminated or truncated
    return total / episodes


def self_play_wins(episodes: int, rng: np.random.Generator) -> Counter[str]:
    aec = cantstop.envs.cantstop_env("classic", num_players=2)
    wins: Counter[str] = Counter()
    for seed in range(episodes):
        aec.reset(seed=seed)
        for agent in aec.agent_iter():
            observation, reward, terminated, truncated, _ = aec.last()
            if terminated or truncated:
                wins[agent] += reward > 0
                aec.step(None)
            else:
                aec.step(rng.choice(np.flatnonzero(observation["action_mask"])))
    return wins


def main() -> None:
    parser = argparse.ArgumentParser(description="Random masked baselines for the Can't Stop envs.")
    parser.add_argument("--episodes", type=int, default=200)
    n = parser.parse_args().episodes
    rng = np.random.default_rng(0)
    for opponent in ("rule28", "random"):
        env = gymnasium.make("cantstop/CantStop-v0", opponents=(opponent,), seat="random")
        win_rate = (mean_return(env, n, rng) + 1) / 2  # returns are +1 or -1
        print(f"random agent vs {opponent}: wins {win_rate:.1%} of {n} games")
    turns = -mean_return(gymnasium.make("cantstop/CantStopSolitaire-v0"), n, rng)
    print(f"random agent in solitaire: {turns:.1f} turns a game")
    wins = self_play_wins(n, rng)
    print("random self-play, wins by seat: " + ", ".join(f"{a} {wins[a]}" for a in sorted(wins)))


if __name__ == "__main__":
    main()
