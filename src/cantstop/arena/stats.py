"""Confidence intervals for win rates and Elo differences from a Bradley–Terry fit.

Bradley–Terry: bot i beats bot j with probability p_i / (p_i + p_j). A game of
three or four bots counts as a win of its winner over each loser (a draw as half
a win each way between every pair). Those pairwise results of one game are not
independent, so for multiplayer matches the Elo intervals are a guide, not exact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Z95 = 1.959963984540054  # the two-sided 95% point of the normal distribution
ELO_PER_NAT = 400 / math.log(10)  # Elo points per unit of log-strength


def wilson(successes: float, trials: float, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a proportion (good near 0 and 1, unlike p ± z·se)."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    # At 0 and at n the exact ends are 0 and 1; rounding must not move them.
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= trials else min(1.0, centre + half)
    return (low, high)


def connected(wins: list[list[float]]) -> bool:
    """Does every bot both beat (directly or by a chain) and lose to every other?

    Only then is the maximum-likelihood fit finite (Ford's condition).
    """
    n = len(wins)
    reach = [[i == j or wins[i][j] > 0 for j in range(n)] for i in range(n)]
    for k in range(n):
        for i in range(n):
            for j in range(n):
                reach[i][j] = reach[i][j] or (reach[i][k] and reach[k][j])
    return all(all(row) for row in reach)


@dataclass(frozen=True)
class Fit:
    """Log-strengths (bot 0 at 0) and their covariance, with bot 0 as the reference."""

    theta: tuple[float, ...]
    covariance: tuple[tuple[float, ...], ...]
    prior: float  # the virtual half-wins added to every pair (0: the plain fit)

    def elo(self, i: int, j: int) -> float:
        """Elo of bot i minus Elo of bot j."""
        return ELO_PER_NAT * (self.theta[i] - self.theta[j])

    def elo_interval(self, i: int, j: int, z: float = Z95) -> tuple[float, float]:
        c = self.covariance
        variance = max(0.0, c[i][i] + c[j][j] - 2 * c[i][j])
        half = z * ELO_PER_NAT * math.sqrt(variance)
        centre = self.elo(i, j)
        return (centre - half, centre + half)


def bradley_terry(wins: list[list[float]], prior: float = 0.0, tolerance: float = 1e-12) -> Fit:
    """Fit strengths to `wins[i][j]` (times i beat j) by Hunter's MM iteration.

    `prior` adds that many wins each way to every pair, which keeps the fit finite
    when a bot won or lost everything. Raises ValueError if the plain fit has no
    finite solution (see `connected`).
    """
    n = len(wins)
    w = [[(wins[i][j] + prior) if i != j else 0.0 for j in range(n)] for i in range(n)]
    if not connected(w):
        raise ValueError("some bot won or lost every game it played: the fit needs a prior")
    games = [[w[i][j] + w[j][i] for j in range(n)] for i in range(n)]
    total = [sum(row) for row in w]
    p = [1.0] * n
    for _ in range(100_000):
        new = [
            total[i] / sum(games[i][j] / (p[i] + p[j]) for j in range(n) if j != i and games[i][j])
            for i in range(n)
        ]
        scale = math.exp(sum(math.log(x) for x in new) / n)
        new = [x / scale for x in new]
        change = max(abs(math.log(a / b)) for a, b in zip(new, p))
        p = new
        if change < tolerance:
            break
    theta = [math.log(x / p[0]) for x in p]
    return Fit(tuple(theta), _covariance(theta, games), prior)


def _covariance(theta: list[float], games: list[list[float]]) -> tuple[tuple[float, ...], ...]:
    """Inverse of the Fisher information with bot 0 held at 0 (its row and column are 0)."""
    n = len(theta)
    info = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            if i != j and games[i][j]:
                q = 1 / (1 + math.exp(theta[j] - theta[i]))
                weight = games[i][j] * q * (1 - q)
                info[i][i] += weight
                info[i][j] -= weight
    inverse = _invert([row[1:] for row in info[1:]])
    full = [[0.0] * n for _ in range(n)]
    for i in range(1, n):
        for j in range(1, n):
            full[i][j] = inverse[i - 1][j - 1]
    return tuple(tuple(row) for row in full)


def _invert(matrix: list[list[float]]) -> list[list[float]]:
    """Gauss–Jordan inversion with partial pivoting (one row and column per bot, less one)."""
    n = len(matrix)
    a = [row[:] + [1.0 if i == j else 0.0 for j in range(n)] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        lead = a[col][col]
        a[col] = [x / lead for x in a[col]]
        for r in range(n):
            if r != col:
                factor = a[r][col]
                a[r] = [x - factor * y for x, y in zip(a[r], a[col])]
    return [row[n:] for row in a]


def elo_from_score(score: float) -> float:
    """The Elo difference at which the expected score is `score` (logistic model)."""
    score = min(max(score, 1e-9), 1 - 1e-9)
    return -400 * math.log10(1 / score - 1)


def score_from_elo(elo: float) -> float:
    return 1 / (1 + 10 ** (-elo / 400))
