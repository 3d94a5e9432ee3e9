"""Train the `ppo` bot: sb3-contrib's MaskablePPO on the compiled vector env.

    pip install -e '.[train]'
    OMP_NUM_THREADS=1 python examples/train_ppo.py solitaire --steps 20000000
    OMP_NUM_THREADS=1 python examples/train_ppo.py rule28 --steps 20000000

`solitaire` trains one player alone (reward: minus one a turn); `rule28` trains a
two-player game against the Rule-of-28 bot from a seat drawn each game (+1 a win, -1 a
loss). Each run writes, under `--out` (default `runs/ppo-MODE`):

- `tb/`: TensorBoard logs (`tensorboard --logdir runs`), with the finished games'
  mean turns or win rate as `games/turns` and `games/win_rate`;
- `curve.csv`: steps, wall seconds and that figure, one row per rollout;
- `model.zip`: the whole SB3 model, to resume from (`--resume`);
- `policy.npz`: the policy network alone as numpy arrays, what `cantstop.bots.ppo` plays
  (copy it to `src/cantstop/bots/weights/ppo-MODE.npz` to ship it).

`python examples/train_ppo.py plot runs/ppo-solitaire runs/ppo-rule28` draws both curves
into `runs/ppo-training.png` (`--png docs/ppo-training.png` replaces the docs' figure).
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

try:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import VecEnv
    from tqdm import tqdm
except ImportError as error:
    sys.exit(f"{error}: training needs the 'train' extra; from a checkout run pip install -e '.[train]'")

from cantstop.bots.ppo import save_policy
from cantstop.envs.vector_env import CantStopVectorEnv

MODES = {
    # mode: (variant, opponents, seat)
    "solitaire": ("solitaire", (), 0),
    "rule28": ("classic", ("rule28",), "random"),
}


class SB3Adapter(VecEnv):
    """The Gymnasium vector env as Stable-Baselines3's VecEnv.

    SB3 resets a finished sub-environment within the step that finished it and keeps
    the last observation in `info["terminal_observation"]`; the Gymnasium env resets on
    the next step instead, so a finished sub-environment is reset here at once.
    """

    def __init__(self, env: CantStopVectorEnv, seed: int) -> None:
        self.env = env
        self.seed_value = seed
        self._actions = np.zeros(env.num_envs, np.int64)
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)

    def reset(self) -> np.ndarray:
        obs, _ = self.env.reset(seed=self.seed_value)
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, np.int64)

    def step_wait(self) -> Any:
        obs, rewards, terminated, truncated, info = self.env.step(self._actions)
        done = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if done.any():
            ended = np.flatnonzero(done)
            fresh, _ = self.env.reset(options={"reset_mask": done})
            for i in ended:
                infos[i] = {
                    "terminal_observation": obs[i].copy(),
                    "turns": int(info["turn"][i]),
                    "won": bool(info["winner"][i] == info["seat"][i]),
                }
            obs = obs.copy()
            obs[ended] = fresh[ended]
        return obs, rewards.astype(np.float32), done, infos

    def action_masks(self) -> np.ndarray:
        return self.env.action_masks()

    # SB3 asks for masks through env_method("action_masks"); the rest of VecEnv's
    # per-sub-environment interface has nothing to do here.
    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list[Any]:
        if method_name != "action_masks":
            raise AttributeError(f"the adapter answers only action_masks, not {method_name}")
        return list(self.env.action_masks())

    def has_attr(self, attr_name: str) -> bool:
        return attr_name == "action_masks"

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        if attr_name == "render_mode":
            return [None] * self.num_envs
        raise AttributeError(f"the adapter has no attribute {attr_name}")

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(f"the adapter has no attribute {attr_name} to set")

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * self.num_envs

    def close(self) -> None:
        self.env.close()


class Progress(BaseCallback):
    """A progress bar, and each rollout's finished games as a curve (TensorBoard and CSV)."""

    def __init__(self, total: int, curve: Path, mode: str) -> None:
        super().__init__()
        self.total, self.curve, self.mode = total, curve, mode
        self.turns: list[int] = []
        self.wins: list[bool] = []
        self.start = time.monotonic()
        if curve.exists():  # resuming: the wall clock goes on from the last row
            with curve.open() as file:
                rows = list(csv.DictReader(file))
            if rows:
                self.start -= float(rows[-1]["seconds"])

    def _on_training_start(self) -> None:
        self.bar = tqdm(total=self.total, initial=self.num_timesteps, unit="step", unit_scale=True)
        fresh = not self.curve.exists()
        self.file = self.curve.open("a", newline="")
        self.writer = csv.writer(self.file)
        if fresh:
            self.writer.writerow(["steps", "seconds", "games", "mean_turns", "win_rate"])

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            if "turns" in info:
                self.turns.append(info["turns"])
                self.wins.append(info["won"])
        self.bar.update(self.training_env.num_envs)
        return True

    def _on_rollout_end(self) -> None:
        if not self.turns:
            return
        turns, win = float(np.mean(self.turns)), float(np.mean(self.wins))
        self.logger.record("games/turns", turns)
        self.logger.record("games/win_rate", win)
        seconds = time.monotonic() - self.start
        self.writer.writerow([self.num_timesteps, f"{seconds:.0f}", len(self.turns), f"{turns:.3f}", f"{win:.4f}"])
        self.file.flush()
        figure = f"{turns:.2f} turns" if self.mode == "solitaire" else f"{win:.1%} wins"
        self.bar.set_postfix_str(figure)
        self.turns.clear()
        self.wins.clear()

    def _on_training_end(self) -> None:
        self.bar.close()
        self.file.close()


def train(args: argparse.Namespace) -> None:
    variant, opponents, seat = MODES[args.mode]
    out = Path(args.out or f"runs/ppo-{args.mode}")
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(args.threads)
    env = SB3Adapter(CantStopVectorEnv(args.envs, variant, opponents, seat), args.seed)
    if args.resume:
        # A resumed run may go on at another learning rate (lower, to settle).
        model = MaskablePPO.load(
            out / "model.zip", env=env, tensorboard_log=str(out / "tb"), device="cpu",
            custom_objects={"learning_rate": args.lr, "lr_schedule": lambda _: args.lr},
        )
    else:
        model = MaskablePPO(
            "MlpPolicy",
            env,
            n_steps=args.n_steps,
            batch_size=args.batch,
            n_epochs=args.epochs,
            gamma=args.gamma,
            gae_lambda=0.95,
            learning_rate=args.lr,
            ent_coef=0.0,
            policy_kwargs={"net_arch": {"pi": args.layers, "vf": args.layers}},
            tensorboard_log=str(out / "tb"),
            seed=args.seed,
            device="cpu",
            verbose=0,
        )
    started = time.monotonic()
    callback = Progress(model.num_timesteps + args.steps, out / "curve.csv", args.mode)
    try:
        model.learn(args.steps, callback=callback, reset_num_timesteps=not args.resume, tb_log_name=args.mode)
    except KeyboardInterrupt:
        print("interrupted: saving what was learnt so far", file=sys.stderr)
    model.save(out / "model.zip")
    save_policy(model.policy, out / "policy.npz", variant, 1 + len(opponents))
    print(f"{model.num_timesteps:,} steps in {time.monotonic() - started:,.0f} s; wrote {out}/policy.npz")


def plot(runs: list[str], target: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(runs), figsize=(5.5 * len(runs), 3.8))
    for ax, run in zip(np.atleast_1d(axes), runs, strict=True):
        with open(Path(run) / "curve.csv") as file:
            rows = list(csv.DictReader(file))
        steps = [int(r["steps"]) / 1e6 for r in rows]
        solitaire = "solitaire" in run
        values = [float(r["mean_turns" if solitaire else "win_rate"]) for r in rows]
        ax.plot(steps, values)
        ax.set_xlabel("training steps (millions)")
        ax.set_ylabel("mean turns a game" if solitaire else "win rate against rule28")
        ax.set_title(Path(run).name)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    Path(target).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(target, dpi=110)
    print(f"wrote {target}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=[*MODES, "plot"])
    parser.add_argument("runs", nargs="*", help="with plot: the run folders to draw")
    parser.add_argument("--steps", type=int, default=20_000_000, help="steps to train (more, with --resume)")
    parser.add_argument("--envs", type=int, default=256)
    parser.add_argument("--n-steps", type=int, default=128, help="steps per sub-environment per rollout")
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--gamma", type=float, default=0.999)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--layers", type=int, nargs="+", default=[128, 128])
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="run folder (default runs/ppo-MODE)")
    parser.add_argument("--resume", action="store_true", help="go on from OUT/model.zip")
    parser.add_argument("--png", default="runs/ppo-training.png",
                        help="with plot: where to draw (the docs' figure is docs/ppo-training.png)")
    args = parser.parse_args()
    if args.mode == "plot":
        plot(args.runs, args.png)
    else:
        train(args)


if __name__ == "__main__":
    main()
