"""The review room's small parts, as properties: a game's versions matched to its record's
events whatever its fallbacks and resignations, and practice's options as the analysis writes them."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cantstop.analysis import decision_options
from cantstop.core.dice import SeededDice
from cantstop.core.state import ROLL, STOP, Phase
from cantstop.table import Fault, Move, Table
from cantstop.web.review.service import actions_of, event_versions

SMALL = "classic+heights=1.1.1.2.2.2.2.2.1.1.1"


def people_play(seed: int, players: int, moves: int) -> Table:
    """A game among people of random moves, some made for a seat whose clock ran out (a
    fallback's note, then the move) and, with three players, a seat that resigns."""
    rng = random.Random(seed)
    table = Table.new(SMALL, [f"P{i}" for i in range(players)], SeededDice(seed), first=0)
    left = False
    for _ in range(moves):
        if table.over:
            break
        if rng.random() < 0.1:
            table.fail(Fault.TIMEOUT, "the move clock ran out")
            continue
        if players == 3 and not left and rng.random() < 0.03:
            table.restore(Move.resign(table.seat, "resigned"))
            left = True
            continue
        state = table.state
        if state.phase is Phase.ROLL:
            table.play(Move.of(ROLL))
        elif state.phase is Phase.CHOOSE:
            table.play(Move.of(rng.choice(state.options)))
        else:
            table.play(Move.of(STOP if state.may_stop() and rng.random() < 0.4 else ROLL))
    return table


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.sampled_from([2, 3]), moves=st.integers(0, 120))
def test_each_event_of_the_record_has_the_version_its_move_made(seed: int, players: int, moves: int) -> None:
    table = people_play(seed, players, moves)
    versions = event_versions(table.moves)
    assert len(versions) == len(table.record.events) + 1 and versions[0] == 0
    assert list(versions) == sorted(set(versions))
    for ply, version in enumerate(versions):  # the game told again up to that version holds exactly that many events
        again = Table.new(SMALL, [f"P{i}" for i in range(players)], SeededDice(seed), first=0)
        for move in table.moves[:version]:
            again.restore(move)
        assert len(again.record.events) == ply


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), moves=st.integers(0, 60))
def test_practice_offers_the_options_the_analysis_values(seed: int, moves: int) -> None:
    table = people_play(seed, 2, moves)
    state = table.state
    if state.phase not in (Phase.CHOOSE, Phase.DECIDE):
        return
    assert sorted(actions_of(state)) == sorted(o.action for o in decision_options(state).options)
