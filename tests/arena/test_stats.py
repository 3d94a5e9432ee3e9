"""Wilson intervals and the Bradley–Terry fit against cases worked by hand."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cantstop.arena.stats import bradley_terry, connected, elo_from_score, score_from_elo, wilson


def test_wilson_interval_of_half() -> None:
    # p = 0.5, n = 10, z = 1.96: centre 0.5, half-width 1.96·√(0.025 + 0.0096)/1.38415 = 0.2634.
    low, high = wilson(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)


def test_wilson_interval_of_nothing_stays_inside_zero_one() -> None:
    # p = 0: the interval is [0, z²/(n + z²)] = [0, 3.8415/13.8415].
    low, high = wilson(0, 10)
    assert low == 0 and high == pytest.approx(3.8415 / 13.8415, abs=1e-4)
    assert wilson(10, 10) == pytest.approx((1 - high, 1.0), abs=1e-9)
    assert wilson(0, 0) == (0.0, 1.0)


@given(st.integers(0, 500), st.integers(1, 500))
def test_wilson_interval_holds_the_observed_rate(k: int, extra: int) -> None:
    n = k + extra
    low, high = wilson(k, n)
    assert 0 <= low <= k / n <= high <= 1


def test_two_bots_thirty_to_ten() -> None:
    # Strength ratio 3: Elo 400·log10(3) = 190.85; variance of the log-ratio 1/(40·¾·¼) = 1/7.5.
    fit = bradley_terry([[0, 30], [10, 0]])
    assert fit.elo(0, 1) == pytest.approx(400 * math.log10(3), abs=1e-6)
    half = 1.959963984540054 * 400 / math.log(10) * math.sqrt(1 / 7.5)
    low, high = fit.elo_interval(0, 1)
    assert (low, high) == pytest.approx((fit.elo(0, 1) - half, fit.elo(0, 1) + half), abs=1e-6)
    assert half == pytest.approx(124.3, abs=0.1)
    assert fit.elo_interval(1, 0) == pytest.approx((-high, -low), abs=1e-6)


def test_a_cycle_of_equal_records_means_equal_strength() -> None:
    fit = bradley_terry([[0, 2, 1], [1, 0, 2], [2, 1, 0]])
    for i in range(3):
        for j in range(3):
            assert fit.elo(i, j) == pytest.approx(0, abs=1e-6)


def test_three_bots_in_a_line() -> None:
    # A beats B 2:1 and B beats C 2:1, A and C never meet: the fit chains the ratios, 2 × 2.
    fit = bradley_terry([[0, 2, 0], [1, 0, 2], [0, 1, 0]])
    assert fit.elo(0, 1) == pytest.approx(400 * math.log10(2), abs=1e-6)
    assert fit.elo(0, 2) == pytest.approx(400 * math.log10(4), abs=1e-6)
    # The A–C interval is wider than either link: its variance is the sum of theirs.
    width = lambda i, j: fit.elo_interval(i, j)[1] - fit.elo_interval(i, j)[0]  # noqa: E731
    assert width(0, 2) == pytest.approx(math.hypot(width(0, 1), width(1, 2)), rel=1e-6)


def test_a_bot_that_won_everything_needs_a_prior() -> None:
    wins = [[0, 5], [0, 0]]
    assert not connected(wins)
    with pytest.raises(ValueError, match="prior"):
        bradley_terry(wins)
    fit = bradley_terry(wins, prior=0.5)  # 5.5 : 0.5
    assert fit.elo(0, 1) == pytest.approx(400 * math.log10(11), abs=1e-6)


@given(st.lists(st.integers(1, 40), min_size=12, max_size=12))
def test_the_fit_expects_each_bot_to_win_what_it_won(counts: list[int]) -> None:
    # The maximum-likelihood equations: expected wins equal observed wins, for every bot.
    wins = [[0.0] * 4 for _ in range(4)]
    it = iter(counts)
    for i in range(4):
        for j in range(4):
            if i != j:
                wins[i][j] = next(it)
    fit = bradley_terry(wins)
    for i in range(4):
        expected = sum(
            (wins[i][j] + wins[j][i]) * score_from_elo(fit.elo(i, j)) for j in range(4) if j != i
        )
        assert expected == pytest.approx(sum(wins[i]), rel=1e-6)


def test_elo_and_score_are_inverse() -> None:
    assert score_from_elo(0) == 0.5
    assert elo_from_score(0.75) == pytest.approx(400 * math.log10(3))
    assert elo_from_score(score_from_elo(123.0)) == pytest.approx(123.0)
