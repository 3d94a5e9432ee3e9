"""Placings for the ratings: the winner first, the seats still playing by progress, and the
seats that left (resigned, or forfeited on their clock) all tied for the last place."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from cantstop import SeededDice
from cantstop.bots import get_bot
from cantstop.core.record import Leave, read_record
from cantstop.table import BotPlayer, Move, Table
from cantstop.web.players.ratings import placings


def played(seed: int, players: int, leave_at: list[int], steps: int) -> Table:
    """A game of random bots for about `steps` moves; a seat still playing leaves at each of `leave_at`."""
    rng = random.Random(seed)
    bots = [BotPlayer(get_bot("random"), rng=random.Random(seed + seat)) for seat in range(players)]
    table = Table.new("classic", [f"P{i}" for i in range(players)], SeededDice(seed), players=list(bots))
    for mark in sorted({*leave_at, steps}):
        table.run(until=lambda t, mark=mark: t.version >= mark)
        playing = [p for p in range(players) if p not in table.state.out]
        if table.over or len(playing) < 2 or mark == steps:
            break
        table.play(Move.resign(rng.choice(playing)))
    return table


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.integers(2, 4), leave_at=st.lists(st.integers(0, 120), max_size=3),
       steps=st.integers(1, 400))
def test_the_seats_that_left_share_the_last_place(seed: int, players: int, leave_at: list[int], steps: int) -> None:
    table = played(seed, players, leave_at, steps)
    state = table.state
    ranks = placings(state)
    left = [event.seat for event in table.record.events if isinstance(event, Leave)]
    assert sorted(left) == list(state.out)
    # Whoever left, and whenever, is last of all, tied with every other seat that left.
    assert {ranks[seat] for seat in left} <= {players}
    staying = sorted(ranks[seat] for seat in range(players) if seat not in state.out)
    assert staying == list(range(1, len(staying) + 1))  # the seats that stayed: one place each, above
    if state.winner is not None:
        assert ranks[state.winner] == 1


def test_a_seat_that_stayed_longer_earns_nothing_over_one_that_left_first() -> None:
    """Four seats: A has climbed, D not at all; B leaves first, then C. A and D still play."""
    record = read_record(
        '[Variant "classic"]\n[Players "Ann; Bob; Cy; Dee"]\n[First "A"]\n\n'
        "1. A 1111 2+2 1234 3+7 stop\n"
        "2. B 3434 7+7 stop\n"
        "3. C resign:B 6666 12+12 resign:C\n"
    )
    state = record.final()
    assert state.out == (1, 2) and not state.is_over
    assert placings(state) == [1, 4, 4, 2]  # B and C tie for last, though C stayed longer and climbed
