"""Finished games for the analysis tests: bots of every strength, played by the arena's own code."""

from __future__ import annotations

from itertools import permutations

from cantstop.arena.match import MatchSpec, play_game
from cantstop.arena.player import make_players
from cantstop.arena.schedule import Task
from cantstop.core.record import Record, read_record

# A board the rivals bot learned with two players, where games last a few turns.
SMALL = "classic+heights=1.1.1.2.2.2.2.2.1.1.1"
MIXED = ("random", "cautious", "rule28", "ga", "expert", "rivals")


def games(variant: str, bots: tuple[str, ...], count: int, seed: int = 1, per_game: int = 2) -> list[Record]:
    """`count` finished games on `variant`, each between `per_game` of `bots` taken in turn."""
    spec = MatchSpec(bots, bots, variant, seed, 60_000, 2.0)
    players = make_players(spec, None)
    orders = list(permutations(range(len(bots)), per_game))
    found = []
    for g in range(count):
        result = play_game(spec, Task(g, g, orders[g % len(orders)]), players)
        found.append(read_record(result.record))
    return found
