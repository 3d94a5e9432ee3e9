"""A round robin: every pair of bots plays a two-player duplicate match, and one
Bradley–Terry fit over all the games ranks the whole field.

Every pair plays with the same seed, so every pair meets the same deals of dice:
the luck is shared across the whole tournament, not only within a pair. Each
pair's match is an ordinary arena match in its own directory (records,
games.jsonl, summary.json); `standings.json` sums them up.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

from cantstop.arena.match import MatchSpec
from cantstop.arena.runner import Outcome, run_match
from cantstop.arena.stats import ELO_PER_NAT, Z95, Fit, bradley_terry, connected

STANDINGS = "standings.json"


@dataclass(frozen=True)
class Standings:
    """The whole field's results: `points[i][j]` is what bot i scored against j (a draw ½)."""

    labels: tuple[str, ...]
    points: tuple[tuple[float, ...], ...]
    games: tuple[tuple[int, ...], ...]
    fit: Fit
    interrupted: bool = False
    forfeits: tuple[dict[str, int], ...] = ()  # by bot: its forfeited games by fault
    first_forfeit: tuple[str | None, ...] = ()  # by bot: the reason of its first forfeit

    @property
    def forfeited(self) -> int:
        """Games that ended in a forfeit instead of by play."""
        return sum(sum(faults.values()) for faults in self.forfeits)

    def score(self, i: int) -> float:
        """Bot i's share of the points of all its games."""
        played = sum(self.games[i])
        return sum(self.points[i]) / played if played else 0.0

    def elo(self, i: int) -> float:
        """Bot i's Elo above the field's average."""
        theta = self.fit.theta
        return ELO_PER_NAT * (theta[i] - sum(theta) / len(theta))

    def elo_interval(self, i: int, z: float = Z95) -> tuple[float, float]:
        """95% interval of `elo(i)`: the variance of theta_i minus the mean of all thetas."""
        n = len(self.labels)
        weights = [(1.0 if k == i else 0.0) - 1.0 / n for k in range(n)]
        cov = self.fit.covariance
        variance = sum(weights[a] * cov[a][b] * weights[b] for a in range(n) for b in range(n))
        half = z * ELO_PER_NAT * math.sqrt(max(0.0, variance))
        return (self.elo(i) - half, self.elo(i) + half)

    def ranking(self) -> list[int]:
        """Bot indices, strongest first (ties keep the order the bots were named in)."""
        return sorted(range(len(self.labels)), key=lambda i: -self.fit.theta[i])

    def summary(self) -> dict[str, Any]:
        return {
            "bots": list(self.labels),
            "interrupted": self.interrupted,
            "forfeited": self.forfeited,
            "elo_prior": self.fit.prior,
            "standings": [
                {
                    "rank": rank,
                    "bot": self.labels[i],
                    "games": sum(self.games[i]),
                    "points": sum(self.points[i]),
                    "score": self.score(i),
                    "elo": self.elo(i),
                    "elo_95": self.elo_interval(i),
                    "forfeits": self.forfeits[i] if self.forfeits else {},
                }
                for rank, i in enumerate(self.ranking(), 1)
            ],
            "crosstable": {
                self.labels[i]: {
                    self.labels[j]: {"points": self.points[i][j], "games": self.games[i][j]}
                    for j in range(len(self.labels))
                    if j != i
                }
                for i in range(len(self.labels))
            },
        }


def pair_directory(out: Path, labels: tuple[str, ...], i: int, j: int) -> Path:
    safe = ["".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in labels[k]) for k in (i, j)]
    return out / f"{i + 1:02d}-{j + 1:02d}-{safe[0]}-vs-{safe[1]}"


def run_tournament(
    spec: MatchSpec,
    games: int,
    jobs: int,
    out: Path,
    on_match: Callable[[int, int, Outcome | None], None] | None = None,
    on_game: Callable[[int, int], None] | None = None,
) -> Standings:
    """Play every pair of `spec.bots` for `games` games each, then fit the whole field.

    `on_match(i, j, None)` is called before the match of bots i and j and
    `on_match(i, j, outcome)` after it; `on_game` is passed on to each match.
    Ctrl-C ends the tournament after the current match's games so far; the
    standings count what was played.
    """
    n = len(spec.bots)
    if n < 2:
        raise ValueError(f"a tournament needs at least 2 bots, not {n}")
    points = [[0.0] * n for _ in range(n)]
    played = [[0] * n for _ in range(n)]
    forfeits: list[Counter[str]] = [Counter() for _ in range(n)]
    first: list[str | None] = [None] * n
    interrupted = False
    for i, j in combinations(range(n), 2):
        if on_match is not None:
            on_match(i, j, None)
        pair = MatchSpec(
            (spec.bots[i], spec.bots[j]),
            (spec.labels[i], spec.labels[j]),
            spec.variant,
            spec.seed,
            spec.budget_ms,
            spec.tolerance,
            spec.max_turns,
        )
        outcome = run_match(pair, games, jobs, pair_directory(out, spec.labels, i, j), on_game=on_game)
        tally = outcome.tally
        points[i][j] += tally.pairwise[0][1]
        points[j][i] += tally.pairwise[1][0]
        played[i][j] += tally.games
        played[j][i] += tally.games
        for k, bot in enumerate((i, j)):
            forfeits[bot] += tally.forfeits[k]
            first[bot] = first[bot] or tally.first_reason[k]
        if on_match is not None:
            on_match(i, j, outcome)
        if outcome.interrupted:
            interrupted = True
            break
    prior = 0.0 if connected(points) else 0.5
    standings = Standings(
        spec.labels,
        tuple(map(tuple, points)),
        tuple(map(tuple, played)),
        bradley_terry(points, prior),
        interrupted,
        tuple(dict(faults) for faults in forfeits),
        tuple(first),
    )
    (out / STANDINGS).write_text(json.dumps(standings.summary(), indent=2) + "\n", encoding="utf-8")
    return standings
