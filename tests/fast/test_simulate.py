"""Whole games in the fast path: the same games as core with the Python bots, any thread count."""

from __future__ import annotations

import numpy as np
import pytest

from cantstop import preset
from cantstop.fast.simulate import chunks, simulate
from core.helpers import ALL_SPECS

from .proof import compare_games

LINEUPS = {1: ("rule28",), 2: ("random", "ga"), 3: ("rule28", "random", "ga"), 4: ("ga", "random", "rule28", "random")}


@pytest.mark.parametrize("spec", ALL_SPECS)
def test_simulated_games_are_core_games(spec: str) -> None:
    variant = preset(spec)
    for players in range(variant.min_players, variant.max_players + 1):
        result = compare_games(variant, LINEUPS[players], 12, seed=players)
        assert result.differed == 0, "\n".join(result.examples)


def test_same_seed_same_games_whatever_the_threads_and_chunks() -> None:
    one = simulate("classic", ["random", "rule28", "ga"], 300, seed=5, threads=1)
    two = simulate("classic", ["random", "rule28", "ga"], 300, seed=5, threads=2)
    parts = list(chunks("classic", ["random", "rule28", "ga"], 300, seed=5, threads=3, chunk=7))
    assert [p.first for p in parts] == list(range(0, 300, 7))
    for field in ("turns", "winner", "seats"):
        assert np.array_equal(getattr(one, field), getattr(two, field))
        assert np.array_equal(getattr(one, field), np.concatenate([getattr(p, field) for p in parts]))
    assert not np.array_equal(one.turns, simulate("classic", ["random", "rule28", "ga"], 300, seed=6).turns)


def test_every_seat_order_is_dealt_in_turn() -> None:
    run = simulate("classic", ["rule28", "random"], 6, seed=0)
    assert run.seats.tolist() == [[0, 1], [1, 0]] * 3
    assert set(run.winner.tolist()) <= {0, 1}


def test_rule_of_28_solitaire_mean_is_the_published_one() -> None:
    run = simulate("solitaire", ["rule28"], 40_000, seed=1)
    mean, se = run.turns.mean(), run.turns.std() / len(run.turns) ** 0.5
    assert abs(mean - 10.70) < 4 * se + 0.02


@pytest.mark.parametrize("games", [0, -3])
def test_no_games_is_an_error(games: int) -> None:
    with pytest.raises(ValueError, match=f"the number of games must be at least 1, not {games}"):
        simulate("classic", ["random", "random"], games, seed=0)


def test_unknown_bot_names_the_compiled_ones() -> None:
    with pytest.raises(ValueError, match="no compiled bot 'cautious'; compiled bots: random, rule28, ga, expert"):
        simulate("classic", ["random", "cautious"], 10, seed=0)


def test_player_count_must_suit_the_variant() -> None:
    with pytest.raises(ValueError, match=r"solitaire is for 1\.\.1 players, not 2"):
        simulate("solitaire", ["rule28", "ga"], 10, seed=0)


def test_a_run_too_big_for_memory_is_refused_before_playing() -> None:
    with pytest.raises(MemoryError, match=r"10,000,000,000,000 game results need .* GiB"):
        simulate("classic", ["random", "random"], 10**13, seed=0)


def test_thread_count_is_checked() -> None:
    with pytest.raises(ValueError, match=r"threads must be 1\.\."):
        simulate("classic", ["random", "random"], 10, seed=0, threads=0)
