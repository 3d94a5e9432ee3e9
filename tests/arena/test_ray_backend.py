"""Matches on a Ray cluster (a local instance with 2 CPUs): the same results as a local run."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import ray
from click.testing import CliRunner

from cantstop.arena.match import MatchSpec
from cantstop.arena.runner import bot_labels, run_match
from cantstop.cli import main


@pytest.fixture(scope="module")
def local_cluster() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


def same_files(one: Path, two: Path) -> None:
    assert (one / "games.jsonl").read_text() == (two / "games.jsonl").read_text()
    names = sorted(p.name for p in (one / "games").iterdir())
    assert names == sorted(p.name for p in (two / "games").iterdir()) and names
    for name in names:
        assert (one / "games" / name).read_text() == (two / "games" / name).read_text()
    first, second = (json.loads((d / "summary.json").read_text()) for d in (one, two))
    assert first == second


def test_a_match_on_ray_equals_the_local_run(tmp_path: Path, local_cluster: None) -> None:
    bots = ("random", "rule28", "cautious")
    spec = MatchSpec(bots, bot_labels(list(bots)), seed=3)
    local = run_match(spec, 12, 1, tmp_path / "local")
    on_ray = run_match(spec, 12, 2, tmp_path / "ray", ray_address="auto")
    assert on_ray.tally.wins == local.tally.wins and on_ray.tally.games == 12
    same_files(tmp_path / "local", tmp_path / "ray")


def test_the_sequential_test_stops_at_the_same_pair_on_ray(tmp_path: Path, local_cluster: None) -> None:
    from cantstop.arena.sprt import parse_sprt

    spec = MatchSpec(("random", "rule28"), bot_labels(["random", "rule28"]), seed=1)
    test = parse_sprt("elo0=0 elo1=100")
    local = run_match(spec, 400, 2, tmp_path / "local", test)
    on_ray = run_match(spec, 400, 2, tmp_path / "ray", test, ray_address="auto")
    assert local.verdict is not None and on_ray.verdict == local.verdict
    assert on_ray.tally.games == local.tally.games < 400
    same_files(tmp_path / "local", tmp_path / "ray")


def test_the_command_line_takes_ray(tmp_path: Path, local_cluster: None) -> None:
    args = ["arena", "random", "rule28", "--games", "6", "--seed", "7", "--no-progress"]
    runner = CliRunner()
    local = runner.invoke(main, [*args, "--jobs", "1", "--out", str(tmp_path / "local")])
    on_ray = runner.invoke(main, [*args, "--ray", "auto", "--out", str(tmp_path / "ray")])
    assert local.exit_code == 0 and on_ray.exit_code == 0, on_ray.output
    same_files(tmp_path / "local", tmp_path / "ray")
    empty = runner.invoke(main, [*args, "--ray", " ", "--out", str(tmp_path / "none")])
    assert empty.exit_code == 2 and "name a cluster" in empty.output
    assert not (tmp_path / "none").exists()
