"""In CI the property tests try new inputs at every run, and the run says how to repeat them
(tests/conftest.py): each case here runs pytest on a small property test in a child process."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

DRAWS = """
import os
from hypothesis import given, strategies as st

@given(st.integers())
def test_draws(n):
    with open(os.environ["DRAWN"], "a") as file:
        file.write(f"{n}\\n")
"""

TESTS = Path(__file__).parent


def run(tmp_path: Path, name: str, **env: str) -> tuple[int | None, list[str]]:
    """The seed the run printed (None: none) and the integers its property test drew."""
    (tmp_path / "test_draws.py").write_text(DRAWS)
    drawn = tmp_path / f"{name}.txt"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "conftest", "-p", "no:cacheprovider", "-q", "test_draws.py"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
        env={"PATH": os.environ["PATH"], "HOME": str(tmp_path), "PYTHONPATH": str(TESTS), "DRAWN": str(drawn), **env},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    said = re.findall(r"^hypothesis seed (\d+): CANTSTOP_HYPOTHESIS_SEED=\1 tries this run's inputs again$",
                      done.stdout, re.MULTILINE)
    assert len(set(said)) <= 1 and len(said) in (0, 2)  # at the start and in the summary, or not at all
    return (int(said[0]) if said else None), drawn.read_text().split()


def test_ci_draws_a_fresh_seed_per_run_prints_it_and_the_seed_repeats_the_inputs(tmp_path: Path) -> None:
    seed, drawn = run(tmp_path, "first", CI="true")
    other_seed, other = run(tmp_path, "second", CI="true")
    assert seed is not None and other_seed is not None and seed != other_seed
    assert drawn != other  # derandomized, both runs would have drawn the same
    again_seed, again = run(tmp_path, "again", CI="true", CANTSTOP_HYPOTHESIS_SEED=str(seed))
    assert again_seed == seed and again == drawn


def test_outside_ci_no_seed_is_forced_unless_given(tmp_path: Path) -> None:
    seed, _ = run(tmp_path, "local")
    assert seed is None
    given, _ = run(tmp_path, "given", CANTSTOP_HYPOTHESIS_SEED="7")
    assert given == 7
