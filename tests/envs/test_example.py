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
