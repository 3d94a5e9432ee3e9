"""The example script runs and reports what it promises."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

EXAMPLE = Path(__file__).parents[2] / "examples" / "train_random.py"


def test_train_random_example_runs() -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "--episodes", "4"], capture_output=True, text=True, check=True
    )
    lines = done.stdout.splitlines()
    assert lines[0].startswith("random agent vs rule28: wins ") and lines[0].endswith("of 4 games")
    assert lines[2].startswith("random agent in solitaire: ")
    assert lines[3].startswith("random self-play, wins by seat: player_0 ")
    assert done.stderr == ""


def test_the_docs_training_loops_run() -> None:
    docs = (Path(__file__).parents[2] / "docs" / "envs.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", docs, re.S)
    assert len(blocks) == 4
    gym_loop: dict[str, Any] = {}
    aec_loop: dict[str, Any] = {}
    spiel_loop: dict[str, Any] = {}
    exec(compile(blocks[0], "docs/envs.md", "exec"), gym_loop)
    assert gym_loop["done"] is True and gym_loop["env"].unwrapped.game.is_over
    exec(compile(blocks[1], "docs/envs.md", "exec"), aec_loop)
    assert aec_loop["env"].agents == [] and aec_loop["env"].unwrapped.game.is_over
    exec(compile(blocks[2], "docs/envs.md", "exec"), spiel_loop)
    assert spiel_loop["state"].is_terminal() and spiel_loop["state"].engine_state.is_over
    vector_loop: dict[str, Any] = {}
    exec(compile(blocks[3], "docs/envs.md", "exec"), vector_loop)
    assert vector_loop["obs"].shape == (1024, 88)
    assert vector_loop["envs"].unwrapped.num_players == 2 and vector_loop["rewards"].shape == (1024,)


def test_the_docs_name_every_extra_and_every_checker() -> None:
    docs = (Path(__file__).parents[2] / "docs" / "envs.md").read_text(encoding="utf-8")
    for extra in ("envs", "fast", "openspiel", "train", "ray", "test"):
        assert f"pip install -e '.[{extra}]'" in docs
    for checker in ("check_env", "api_test", "seed_test", "render_test", "state_test",
                    "parallel_api_test", "random_sim_test"):
        assert re.search(rf"`([\w.]+\.)?{checker}`", docs), checker


# The training script's imports, stood in for: drawing the curves needs none of them.
TRAINING_STAND_INS = """
import sys, types
for name, attributes in {
    "torch": (), "sb3_contrib": ("MaskablePPO",), "tqdm": ("tqdm",),
    "stable_baselines3": (), "stable_baselines3.common": (),
    "stable_baselines3.common.callbacks": ("BaseCallback",),
    "stable_baselines3.common.vec_env": ("VecEnv",),
}.items():
    module = sys.modules[name] = types.ModuleType(name)
    for attribute in attributes:
        setattr(module, attribute, type(attribute, (), {}))
import runpy
sys.argv = ["train_ppo.py", *sys.argv[1:]]
runpy.run_path(sys.argv.pop(1), run_name="__main__")
"""


def test_plotting_the_training_curves_leaves_the_docs_figure_alone(tmp_path: Path) -> None:
    script = Path(__file__).parents[2] / "examples" / "train_ppo.py"
    for run, column in (("ppo-solitaire", "mean_turns"), ("ppo-rule28", "win_rate")):
        (tmp_path / "runs" / run).mkdir(parents=True)
        (tmp_path / "runs" / run / "curve.csv").write_text(f"steps,seconds,{column}\n1000,1.0,0.5\n2000,2.0,0.6\n")
    (tmp_path / "docs").mkdir()
    done = subprocess.run(
        [sys.executable, "-c", TRAINING_STAND_INS, str(script), "plot", "runs/ppo-solitaire", "runs/ppo-rule28"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "runs" / "ppo-training.png").read_bytes()[:4] == b"\x89PNG"
    assert list((tmp_path / "docs").iterdir()) == []


def test_the_default_output_folders_are_ignored_by_git() -> None:
    ignored = (Path(__file__).parents[2] / ".gitignore").read_text(encoding="utf-8").splitlines()
    # arena-results/<time>: `cantstop arena` and `tournament`; runs/: examples/train_ppo.py
    assert {"/arena-results/", "/runs/"} <= set(ignored)
