"""Seat orders are played equally often, and every seat order of a deal meets the same dice."""

from __future__ import annotations

from collections import Counter
from itertools import permutations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cantstop.arena.match import MatchSpec, play_game
from cantstop.arena.player import open_player
from cantstop.arena.schedule import DealDice, derive_seed, schedule, seat_orders
from cantstop.core.record import Roll, apply_event, read_record
from cantstop.core.variant import preset


@given(st.integers(2, 4), st.integers(1, 100))
def test_every_seat_order_is_played_equally_often(bots: int, games: int) -> None:
    tasks = schedule(bots, games)
    orders = Counter(task.order for task in tasks)
    assert set(orders) == set(permutations(range(bots)))
    assert len(set(orders.values())) == 1
    assert games <= len(tasks) < games + len(orders)
    assert [task.index for task in tasks] == list(range(len(tasks)))
    for deal in {task.deal for task in tasks}:  # each deal is one full round of seat orders
        assert sorted(t.order for t in tasks if t.deal == deal) == sorted(orders)


def test_a_match_needs_a_game() -> None:
    with pytest.raises(ValueError, match="at least 1 game"):
        schedule(2, 0)


def test_seat_orders_are_all_permutations() -> None:
    assert seat_orders(2) == ((0, 1), (1, 0))
    assert len(seat_orders(4)) == 24


def test_dice_are_addressed_by_deal_turn_and_roll() -> None:
    variant = preset("classic")
    one, two = DealDice(7, 3, variant), DealDice(7, 3, variant)
    first = [one.roll(0, k) for k in range(5)]
    assert [two.roll(0, k) for k in range(5)] == first
    # Skipping turn 1 does not change turn 2.
    assert one.roll(2, 0) == DealDice(7, 3, variant).roll(2, 0)
    other_deal = DealDice(7, 4, variant)
    assert [other_deal.roll(0, k) for k in range(5)] != first
    with pytest.raises(ValueError, match="roll 3 of turn 2"):
        one.roll(2, 3)


def test_derived_seeds_are_stable_numbers() -> None:
    assert derive_seed("bot", 1, 2, (0, 1), 0) == derive_seed("bot", 1, 2, (0, 1), 0)
    assert derive_seed("bot", 1, 2, (0, 1), 0) != derive_seed("bot", 1, 2, (1, 0), 0)
    assert 0 <= derive_seed("x") < 2**31


def dice_by_turn(record_text: str) -> dict[tuple[int, int], tuple[int, ...]]:
    """Every roll of a game keyed by (turn, roll of the turn)."""
    record = read_record(record_text)
    state = record.start()
    found: dict[tuple[int, int], tuple[int, ...]] = {}
    rolls = 0
    for event in record.events:
        turn = state.turn
        if isinstance(event, Roll):
            found[(turn, rolls)] = tuple(event)
            rolls += 1
        state = apply_event(state, event)
        if state.turn != turn:
            rolls = 0
    return found


@pytest.mark.parametrize("bots", [("random", "test-cautious"), ("random", "test-cautious", "random")])
def test_duplicate_dice_are_identical_across_seat_orders(bots: tuple[str, ...]) -> None:
    spec = MatchSpec(bots, tuple(f"{b}{i}" for i, b in enumerate(bots)), seed=11)
    players = [open_player(b, spec.tolerance) for b in bots]
    for deal in range(3):
        games = [dice_by_turn(play_game(spec, task, players).record)
                 for task in schedule(len(bots), len(seat_orders(len(bots))) * (deal + 1))
                 if task.deal == deal]
        shared = 0
        for key in set().union(*games):
            seen = {game[key] for game in games if key in game}
            assert len(seen) == 1, f"deal {deal}: the dice of turn/roll {key} differ: {seen}"
            shared += sum(1 for game in games if key in game) > 1
        assert shared > 10  # the games really did overlap: the test compared something
