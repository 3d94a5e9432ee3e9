"""Environment speed: agent steps per second with random masked actions.

Run: `python benchmarks/envs.py --seconds 5`. One core, one process; CPU time
(`time.process_time`), since this machine is shared.

- Gymnasium `CantStopEnv` (classic) against the random bot and against rule28: a step
  is one decision of the agent, and includes every roll and opponent move up to its
  next decision;
- Gymnasium solitaire (`cantstop/CantStopSolitaire-v0`);
- PettingZoo AEC (classic, 2 and 4 players) and parallel (2 players): a step is one
  decision of whichever agent is to move;
- OpenSpiel (`cantstop`, classic, 2 players; when the `openspiel` extra is installed):
  a step is one decision, each with the chance nodes before it sampled from
  `chance_outcomes()`;
- the compiled vector env (`gymnasium.make_vec(..., vectorization_mode="vector_entry_point")`,
  when the `fast` extra is installed), solitaire and against rule28, with `--num-envs`
  sub-environments (1024 by default): a step of one sub-environment is one step; the
  random masked policy is vectorised (argmax of random bytes over the legal actions)
  and its time counts. Kernels are compiled (or loaded from the cache) before timing.
  A last table sets it beside the single env, with the targets of issue 14.

First it prints the vector env's first-use compile time: a fresh process with an empty
numba cache makes a vector env and takes one reset and one step (wall and CPU seconds).
`--compile` prints only that.

Each step reads the mask, picks a legal action uniformly with numpy and builds the
next observation; the run prints steps/s, episodes/s and steps per episode.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from collections.abc import Callable
from datetime import UTC, datetime

import gymnasium
import numpy as np

from cantstop.envs import CantStopEnv, cantstop_env, parallel_env
from first_compile import first_compile


def gym_run(env: gymnasium.Env) -> Callable[[int, np.random.Generator], int]:  # type: ignore[type-arg]
    def episode(seed: int, rng: np.random.Generator) -> int:
        _, info = env.reset(seed=seed)
        steps, done = 0, False
        while not done:
            action = rng.choice(np.flatnonzero(info["action_mask"]))
            _, _, terminated, truncated, info = env.step(action)
            steps += 1
            done = terminated or truncated
        return steps

    return episode


def aec_run(players: int) -> Callable[[int, np.random.Generator], int]:
    aec = cantstop_env("classic", players)

    def episode(seed: int, rng: np.random.Generator) -> int:
        aec.reset(seed=seed)
        steps = 0
        for _ in aec.agent_iter():
            observation, _, terminated, truncated, _ = aec.last()
            if terminated or truncated:
                aec.step(None)
                continue
            aec.step(rng.choice(np.flatnonzero(observation["action_mask"])))
            steps += 1
        return steps

    return episode


def parallel_run(players: int) -> Callable[[int, np.random.Generator], int]:
    par = parallel_env("classic", players)

    def episode(seed: int, rng: np.random.Generator) -> int:
        observations, _ = par.reset(seed=seed)
        steps = 0
        while par.agents:
            actions = {
                agent: rng.choice(np.flatnonzero(obs["action_mask"])) if obs["action_mask"].any() else 0
                for agent, obs in observations.items()
            }
            observations, *_ = par.step(actions)
            steps += 1
        return steps

    return episode


def openspiel_run(players: int) -> Callable[[int, np.random.Generator], int] | None:
    try:
        import pyspiel

        from cantstop.envs.openspiel_game import random_playout  # registers the game
    except ImportError:
        return None
    game = pyspiel.load_game("cantstop", {"players": players})

    def episode(seed: int, rng: np.random.Generator) -> int:
        return random_playout(game.new_initial_state(), rng)

    return episode


def measure(name: str, episode: Callable[[int, np.random.Generator], int], seconds: float) -> float:
    rng = np.random.default_rng(0)
    steps = episodes = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        steps += episode(episodes, rng)
        episodes += 1
    spent = time.process_time() - start
    print(
        f"| {name} | {steps / spent:,.0f} | {episodes / spent:,.1f} | {steps / episodes:.1f} |"
    )
    return steps / spent


def measure_vector(name: str, env_id: str, num_envs: int, seconds: float) -> float | None:
    """Steps per CPU second of the compiled vector env under a vectorised random policy."""
    try:
        vec = gymnasium.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point")
    except ImportError as error:
        print(f"| {name} | not installed: {error} | | |")
        return None
    rng = np.random.default_rng(0)

    def policy(mask: np.ndarray) -> np.ndarray:  # random bytes, at least 1 on legal actions
        return ((rng.integers(0, 256, mask.shape, dtype=np.uint8) | 1) * mask).argmax(axis=1)

    _, info = vec.reset(seed=0)
    for _ in range(20):  # compile (or load) the kernels, fill the pipeline
        _, _, _, _, info = vec.step(policy(info["action_mask"]))
    steps = episodes = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        _, _, terminated, _, info = vec.step(policy(info["action_mask"]))
        steps += num_envs
        episodes += int(terminated.sum())
    spent = time.process_time() - start
    print(
        f"| {name} | {steps / spent:,.0f} | {episodes / spent:,.1f} | {steps / max(episodes, 1):.1f} |"
    )
    return steps / spent


def vector_compile() -> str:
    """The vector env's first-use compile, as a line to print."""
    try:
        import cantstop.envs.vector_env  # noqa: F401
    except ImportError as error:
        return f"vector env first-use compile: not installed: {error}"
    wall, cpu = first_compile(
        "import gymnasium, cantstop.envs\n"
        "vec = gymnasium.make_vec('cantstop/CantStop-v0', num_envs=2, vectorization_mode='vector_entry_point')\n"
        "_, info = vec.reset(seed=0)\n"
        "vec.step(info['action_mask'].argmax(axis=1))"
    )
    return f"vector env first-use compile (empty cache, fresh process): {wall:.1f} s wall, {cpu:.1f} s CPU"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="CPU seconds per measurement")
    parser.add_argument("--num-envs", type=int, default=1024, help="sub-environments of the vector env")
    parser.add_argument("--compile", action="store_true", help="only time the vector env's first compile")
    args = parser.parse_args()
    print(f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, Python {platform.python_version()}, "
          f"{platform.machine()} {platform.processor() or ''}, {os.cpu_count()} cores, "
          f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}".rstrip())
    print(vector_compile())
    if args.compile:
        return
    print("| environment | steps/s | episodes/s | steps/episode |")
    print("|---|---|---|---|")
    measure("Gymnasium, classic vs random", gym_run(CantStopEnv(opponents=("random",))), args.seconds)
    single_rule28 = measure(
        "Gymnasium, classic vs rule28", gym_run(CantStopEnv(opponents=("rule28",))), args.seconds
    )
    single_solitaire = measure("Gymnasium, solitaire", gym_run(CantStopEnv("solitaire")), args.seconds)
    n = args.num_envs
    vector_solitaire = measure_vector(
        f"Vector env (compiled), solitaire, N={n}", "cantstop/CantStopSolitaire-v0", n, args.seconds
    )
    vector_rule28 = measure_vector(
        f"Vector env (compiled), classic vs rule28, N={n}", "cantstop/CantStop-v0", n, args.seconds
    )
    measure("PettingZoo AEC, classic 2 players", aec_run(2), args.seconds)
    measure("PettingZoo AEC, classic 4 players", aec_run(4), args.seconds)
    measure("PettingZoo parallel, classic 2 players", parallel_run(2), args.seconds)
    openspiel = openspiel_run(2)
    if openspiel is None:
        print("| OpenSpiel | not installed: pip install -e '.[openspiel]' | | |")
    else:
        measure("OpenSpiel, classic 2 players", openspiel, args.seconds)
    print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    if vector_solitaire is None or vector_rule28 is None:
        return
    print()
    print("| one core | single env steps/s | vector env steps/s | ratio | targets |")
    print("|---|---|---|---|---|")
    for name, single, vector, target in (
        ("solitaire", single_solitaire, vector_solitaire, 1_000_000),
        ("classic vs rule28", single_rule28, vector_rule28, 300_000),
    ):
        ratio = vector / single
        met = "met" if vector >= target and ratio >= 50 else "not met"
        print(
            f"| {name} | {single:,.0f} | {vector:,.0f} | {ratio:,.0f}x | "
            f"≥{target:,} steps/s and ≥50x: {met} |"
        )


if __name__ == "__main__":
    main()
