"""The sequential probability ratio test of chess-engine testing, on game pairs.

A pair is one deal played twice with the seats swapped. Its score for the first
bot is 0, ¼, ½, ¾ or 1 (a pentanomial outcome: draws only come from the turn
limit). H0: the first bot is elo0 stronger; H1: elo1 stronger, in logistic Elo
(expected score 1 / (1 + 10^(−elo/400))). The log-likelihood ratio is the
generalised SPRT of fishtest: for each hypothesis, the pentanomial distribution
closest to the observed frequencies whose mean is that hypothesis' score
(maximum likelihood under the constraint), and LLR = N · Σ f_k ln(P1_k / P0_k).
Empty outcome classes count as 0.001 pairs, as fishtest does, so the LLR stays
finite. The test stops when the LLR leaves (ln(β/(1−α)), ln((1−β)/α)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from cantstop.arena.stats import score_from_elo
from cantstop.core.errors import SetupError

PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
_EMPTY = 1e-3


@dataclass(frozen=True)
class Sprt:
    elo0: float = 0.0
    elo1: float = 20.0
    alpha: float = 0.05
    beta: float = 0.05

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    def verdict(self, llr: float) -> str | None:
        """'H1' or 'H0' once the LLR has crossed a bound, else None."""
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None


def parse_sprt(text: str) -> Sprt:
    """Read 'elo0=0 elo1=20 alpha=0.05 beta=0.05' (any subset; the rest default).

    Raises `SetupError` naming the setting that cannot be read and what is allowed.
    """
    values: dict[str, float] = {}
    for word in text.replace(",", " ").split():
        key, sep, value = word.partition("=")
        if not sep or key not in ("elo0", "elo1", "alpha", "beta"):
            raise SetupError(f"bad SPRT setting {word!r}: write elo0=0 elo1=20 alpha=0.05 beta=0.05")
        try:
            values[key] = float(value)
        except ValueError:
            raise SetupError(f"bad SPRT setting {word!r}: {key} takes a number") from None
    test = Sprt(**values)
    if not test.elo0 < test.elo1:
        raise SetupError(f"SPRT needs elo0 < elo1, not {test.elo0:g} and {test.elo1:g}")
    if not (0 < test.alpha < 0.5 and 0 < test.beta < 0.5):
        raise SetupError("SPRT alpha and beta must lie strictly between 0 and 0.5")
    return test


def _closest(freqs: list[float], score: float) -> list[float]:
    """The distribution with mean `score` maximising Σ f_k ln p_k: p_k = f_k / (1 + λ(a_k − s))."""
    d = [a - score for a in PAIR_SCORES]
    # Σ f_k d_k / (1 + λ d_k) falls as λ grows; 1 + λ d_k > 0 bounds λ on both sides.
    low = -1 / max(d) * (1 - 1e-12)
    high = -1 / min(d) * (1 - 1e-12)
    for _ in range(200):
        mid = (low + high) / 2
        if sum(f * x / (1 + mid * x) for f, x in zip(freqs, d)) > 0:
            low = mid
        else:
            high = mid
    lam = (low + high) / 2
    return [f / (1 + lam * x) for f, x in zip(freqs, d)]


def llr(pairs: list[int] | tuple[int, ...], test: Sprt) -> float:
    """The log-likelihood ratio of H1 over H0 given counts of pairs scoring 0, ¼, ½, ¾, 1."""
    counts = [c if c > 0 else _EMPTY for c in pairs]
    n = sum(counts)
    if sum(pairs) == 0:
        return 0.0
    freqs = [c / n for c in counts]
    p0 = _closest(freqs, score_from_elo(test.elo0))
    p1 = _closest(freqs, score_from_elo(test.elo1))
    return n * sum(f * math.log(b / a) for f, a, b in zip(freqs, p0, p1))


def pair_class(points: float) -> int:
    """The pentanomial class of a pair in which the first bot scored `points` (0..2)."""
    return round(points * 2)
