"""The sequential test's bounds and log-likelihood ratio."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cantstop.arena.sprt import Sprt, llr, pair_class, parse_sprt
from cantstop.arena.stats import score_from_elo
from cantstop.core.errors import SetupError


def test_bounds_of_the_usual_test() -> None:
    test = parse_sprt("elo0=0 elo1=20 alpha=0.05 beta=0.05")
    assert test == Sprt(0, 20, 0.05, 0.05)
    assert test.upper == pytest.approx(math.log(19)) and test.lower == pytest.approx(-math.log(19))
    assert test.verdict(3.0) == "H1" and test.verdict(-3.0) == "H0" and test.verdict(0.0) is None


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("elo0=20 elo1=0", "elo0 < elo1"),
        ("elo1=x", "takes a number"),
        ("elo2=3", "bad SPRT setting"),
        ("alpha=0.7", "between 0 and 0.5"),
    ],
)
def test_bad_settings_are_named(text: str, words: str) -> None:
    with pytest.raises(SetupError, match=words):
        parse_sprt(text)


def test_no_pairs_no_evidence() -> None:
    assert llr([0, 0, 0, 0, 0], Sprt()) == 0.0


def normal_approximation(pairs: list[int], test: Sprt) -> float:
    """LLR ≈ N (s1 − s0)(2μ − s0 − s1) / (2σ²), the first-order form of the same test."""
    n = sum(pairs)
    scores = [k / 4 for k in range(5)]
    mean = sum(c * a for c, a in zip(pairs, scores)) / n
    var = sum(c * (a - mean) ** 2 for c, a in zip(pairs, scores)) / n
    s0, s1 = score_from_elo(test.elo0), score_from_elo(test.elo1)
    return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)


@pytest.mark.parametrize("pairs", [[300, 10, 900, 20, 400], [200, 0, 1000, 0, 250], [50, 40, 300, 60, 70]])
def test_llr_agrees_with_the_normal_approximation_for_small_elo(pairs: list[int]) -> None:
    test = Sprt(0, 5)
    assert llr(pairs, test) == pytest.approx(normal_approximation(pairs, test), rel=0.02, abs=0.02)


@settings(deadline=None)  # a busy machine must not fail it: speed is no part of what it checks
@given(st.lists(st.integers(0, 200), min_size=5, max_size=5).filter(lambda p: sum(p) >= 10))
def test_llr_favours_the_hypothesis_beyond_which_the_score_lies(pairs: list[int]) -> None:
    # The divergence from the data is convex in the hypothesised score, least at the observed
    # one: a score beyond elo1 favours H1, one below elo0 favours H0 (margins for the 0.001s).
    test = Sprt(0, 30)
    mean = sum(c * k / 4 for k, c in enumerate(pairs)) / sum(pairs)
    value = llr(pairs, test)
    if mean > score_from_elo(30) + 0.005:
        assert value > 0
    if mean < score_from_elo(0) - 0.005:
        assert value < 0


def test_more_of_the_same_evidence_moves_the_llr_further() -> None:
    test = Sprt(0, 20)
    assert llr([10, 0, 20, 0, 30], test) < llr([20, 0, 40, 0, 60], test)
    assert llr([30, 0, 20, 0, 10], test) > llr([60, 0, 40, 0, 20], test)


def test_pair_classes() -> None:
    assert [pair_class(p) for p in (0, 0.5, 1, 1.5, 2)] == [0, 1, 2, 3, 4]
