"""The rating people read (1500 for a new player, Elo's odds for certain ratings), when it stops
being provisional, and how far the trust its opponents deserve lets a game move it."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from cantstop.web.db.values import Rating, RatingKind
from cantstop.web.players import scale
from cantstop.web.players.ratings import trust_weights


def test_a_new_player_reads_1500() -> None:
    model = PlackettLuce()
    assert scale.shown(model.mu) == 1500
    assert model.mu == scale.MU0 and model.beta == pytest.approx(scale.BETA)


@pytest.mark.parametrize("gap", [100, 200, 400, 800])
def test_a_gap_between_certain_ratings_gives_elos_odds(gap: int) -> None:
    """Two ratings known almost exactly: the Plackett-Luce model that rates the games (Weng
    and Lin: the winner of two is i with odds exp(mu_i / c), c = sqrt(2 beta^2 + sigma_i^2 +
    sigma_j^2)) gives the stronger Elo's chance for the gap shown."""
    model = PlackettLuce()
    strong, weak, sigma = scale.MU0 + gap / scale.POINTS_PER_MU, scale.MU0, 1e-6
    assert scale.shown(strong) - scale.shown(weak) == gap
    c = math.sqrt(2 * model.beta**2 + 2 * sigma**2)
    chance = math.exp(strong / c) / (math.exp(strong / c) + math.exp(weak / c))
    assert chance == pytest.approx(1 / (1 + 10 ** (-gap / 400)), abs=1e-9)
    # openskill's own update agrees on who was expected to win: the stronger gains little by winning.
    (won,), _ = model.rate([[model.create_rating([strong, 1.0])], [model.create_rating([weak, 1.0])]], ranks=[1.0, 2.0])
    (upset,), _ = model.rate([[model.create_rating([weak, 1.0])], [model.create_rating([strong, 1.0])]], ranks=[1.0, 2.0])
    assert 0 < won.mu - strong < upset.mu - weak


@given(st.floats(-50, 100), st.floats(-50, 100))
def test_the_scale_keeps_the_order_of_mu(a: float, b: float) -> None:
    if a <= b:
        assert scale.shown(a) <= scale.shown(b)
    assert abs(scale.shown(a) - (1500 + scale.POINTS_PER_MU * (a - 25))) <= 0.5


@given(st.integers(0, 40), st.integers(0, 20))
def test_a_rating_is_provisional_until_enough_games_against_enough_trusted_opponents(games: int, trusted: int) -> None:
    assert scale.provisional(games, trusted) == (games < scale.PROVISIONAL_GAMES or trusted < scale.TRUSTED_OPPONENTS)
    assert scale.established(True, games, trusted)  # a bot's, always
    assert scale.established(False, games, trusted) != scale.provisional(games, trusted)


@settings(max_examples=200)
@given(st.booleans(), st.lists(st.booleans(), max_size=3))
def test_the_share_of_trust(own: bool, others: list[bool]) -> None:
    share = scale.trust(own, others)
    assert 0 <= share <= 1
    if all(others):
        assert share == 1  # trusted opponents (or none): the whole game
    elif not any(others):
        assert share == (0 if own else scale.PROVISIONAL_SHARE)  # only newcomers: a quarter, or nothing for a trusted rating
    for i, other in enumerate(others):  # an opponent more worth trusting never lowers the share
        if not other:
            assert scale.trust(own, [*others[:i], True, *others[i + 1:]]) >= share


def rating(kind: RatingKind, games: int, opponents: int) -> Rating:
    return Rating(kind, "x", 25, 3, games, 0, opponents=opponents)


def test_each_seat_is_weighted_by_its_own_opponents_and_records_the_trusted_ones_it_met() -> None:
    trusted = rating(RatingKind.PERSON, 12, 6)
    newcomer = rating(RatingKind.PERSON, 0, 0)
    bot = rating(RatingKind.BOT, 0, 0)
    weights, met = trust_weights([trusted, newcomer, bot], [1.0, 1.0, 0.5])
    # The trusted one: a bot (1) and a newcomer (0); the newcomer: two trusted; the bot (a pair's second game, 0.5):
    # one trusted, one newcomer (0).
    assert weights == [0.5, 1.0, 0.25] and met == [[2], [0, 2], [0]]
    weights, met = trust_weights([trusted, newcomer], [1.0, 1.0])
    assert weights == [0.0, 1.0] and met == [[], [0]]  # nothing counted for the trusted one, nothing met


def test_a_provisional_mark() -> None:
    assert (scale.mark(1523, True), scale.mark(1523, False)) == ("1523?", "1523")
    assert scale.shown_spread(25 / 3) == round(25 / 3 * scale.POINTS_PER_MU) == 246
    assert math.isclose(scale.POINTS_PER_MU, 29.48, abs_tol=0.01)
