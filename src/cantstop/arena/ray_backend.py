"""A match's games spread over a Ray cluster (extra `ray`): `cantstop arena ... --ray ADDRESS`.

Each actor holds one set of players, as a worker process of `--jobs` does, and
plays the tasks it is handed; results come back in schedule order. A game depends
only on (seed, deal, seat order), so the tables and records are the same as with
`--jobs` (tested against a local run).

ADDRESS is as `cantstop.cluster.connect` reads it (`local`: a fresh Ray on this
machine with `--jobs` CPUs). Outside bots (`cmd:`) must run on every node, and
their stderr logs are written on the node that ran them.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

from cantstop.cluster import connect
from cantstop.extras import missing_extra

try:
    import ray
    from ray.util import ActorPool
except ImportError as error:
    raise missing_extra("ray", "cantstop arena --ray", error) from error

from cantstop.arena.match import GameResult, MatchSpec, play_game
from cantstop.arena.player import close_players, make_players
from cantstop.arena.schedule import Task
from cantstop.table.players import WATCHDOG, Player


class GameWorker:
    """One actor's players, opened once and used for every game it is handed."""

    def __init__(self, spec: MatchSpec, log_dir: Path | None) -> None:
        self.spec = spec
        self.players: list[Player] = make_players(spec, log_dir)

    def play(self, task: Task) -> GameResult:
        with WATCHDOG.running_here():
            return play_game(self.spec, task, self.players)

    def close(self) -> None:
        close_players(self.players)


def ray_results(
    spec: MatchSpec, tasks: tuple[Task, ...], jobs: int, address: str, log_dir: Path | None
) -> Generator[GameResult, None, None]:
    """Results in schedule order, from one actor per CPU of the cluster (at most one per game)."""
    connect(address, jobs, "cantstop arena --ray")
    cpus = int(ray.cluster_resources().get("CPU", 1))  # type: ignore[no-untyped-call]
    remote: Any = ray.remote(num_cpus=1)(GameWorker)  # Ray's stubs do not type actor classes
    actors: list[Any] = [remote.remote(spec, log_dir) for _ in range(max(1, min(cpus, len(tasks))))]
    pool = ActorPool(actors)
    try:
        yield from pool.map(lambda actor, task: actor.play.remote(task), list(tasks))
    finally:
        ray.get([actor.close.remote() for actor in actors])
        for actor in actors:
            ray.kill(actor)
