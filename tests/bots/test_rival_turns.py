"""The rivals bot's view of a turn against the core's, on every rated board with the published options.

The turn kernel sees a turn as steps taken per column, a room per column, and a stop value per
in-turn state; `skip` and `no_stop_on_occupied` enter only through the position a turn starts
from (where each step lands, where a stop is barred). Walking turns of random positions through
the core, every state the core reaches must be the state the bot thinks it is in: the same
spaces, the same steps left in each column, a stop barred exactly where the core bars it, and a
stop worth what the learned value says of the position the core's stop reaches.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from test_bots import random_position

from cantstop.bots.expert2 import KNOTS
from cantstop.bots.learned_value import Model, Turns, load_models
from cantstop.bots.rival_turns import LazyTurn, Rivals
from cantstop.core.dice import SeededDice
from cantstop.core.state import STOP, Phase, State, new_game
from cantstop.core.variant import Variant, preset
from cantstop.solve.board import solver_key

BASES = ("classic", "turtles", "turtles-relay")


def rivals_of(variant: Variant, players: int) -> Rivals:
    """A turn optimiser of the game with the classic board's weights and its curve for the turns alone:
    what is tested is the rules, whichever value the weights file holds for the board."""
    classic = load_models()["solitaire"]
    turns = Turns(variant.heights, variant.to_win, np.zeros(0), np.array(KNOTS["solitaire"], dtype=np.float64))
    return Rivals(variant, players, Model(solver_key(variant), classic.coef, turns, (players,)))


def check_view(rivals: Rivals, turn: LazyTurn, state: State) -> None:
    """The bot's reading of the in-turn state `state` (CHOOSE or DECIDE) is the core's."""
    taken = rivals.taken(state)
    assert sum(taken) == state.steps
    number = turn.number(taken)
    for i, c in enumerate(state.variant.columns):
        space = turn.position.spaces[i, taken[i]]
        assert space == (state.runners[c] or state.pieces[state.seat][c]), (c, taken)
        if state.claimed[c] < 0:
            assert turn.room[i] - taken[i] == state.room(c), c
        else:
            assert turn.room[i] == 0
    if state.phase is not Phase.DECIDE:
        return
    may_stop = STOP in state.legal_actions()
    assert math.isfinite(turn.stops[number]) == may_stop
    if may_stop:
        stopped = state.play(STOP)
        expected = 1.0 - rivals.chances(stopped)[state.seat]
        assert turn.stops[number] == pytest.approx(expected, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    base=st.sampled_from(BASES),
    to_win=st.sampled_from((3, 4)),
    skip=st.booleans(),
    no_stop=st.booleans(),
    players=st.integers(2, 4),
    seed=st.integers(0, 10**6),
    moves=st.integers(0, 300),
)
def test_the_bots_view_of_every_state_of_a_turn_is_the_cores(
    base: str, to_win: int, skip: bool, no_stop: bool, players: int, seed: int, moves: int
) -> None:
    spec = f"{base}+to_win={to_win}+skip={str(skip).lower()}+no_stop_on_occupied={str(no_stop).lower()}"
    assume(players <= preset(spec).most_players)  # 4 players to 4 columns could claim all 11 and never end
    state = random_position(spec, players, seed, moves)
    rivals = rivals_of(state.variant, players)
    turn = rivals.turn(state)
    rng, dice = random.Random(seed), SeededDice(seed + 1)
    seat, checked = state.seat, 0
    while state.seat == seat and state.phase is not Phase.OVER and checked < 60:
        if state.phase is Phase.ROLL:
            state = state.roll(dice.roll(4, state.variant.faces))
            continue
        check_view(rivals, turn, state)
        checked += 1
        if state.phase is Phase.CHOOSE:
            before = rivals.taken(state)
            for choice in state.options:  # each choice leads where the bot expects
                after = state.play(choice)
                assert rivals.taken(after) == [t + choice.count(c) for c, t in enumerate(before, 2)]
                check_view(rivals, turn, after)
        state = state.play(rng.choice(state.legal_actions()))


def test_skip_steps_over_rivals_pieces_and_no_stop_bars_stops_on_them() -> None:
    """Seat 0 moves, its runner on space 4 of column 7; seat 1's piece is on space 3 there, seat 2's on 5."""
    from cantstop.core.state import make_state

    def turn_of(spec: str) -> tuple[Rivals, LazyTurn, State]:
        variant = preset(spec)
        pieces = ((0,) * 13, (0,) * 7 + (3,) + (0,) * 5, (0,) * 7 + (5,) + (0,) * 5)
        runners = (0,) * 7 + (4,) + (0,) * 5
        state = make_state(variant, pieces, runners, 0, Phase.DECIDE, steps=3 if variant.skip else 4)
        rivals = rivals_of(variant, 3)
        return rivals, rivals.turn(state), state

    rivals, turn, state = turn_of("classic+skip")
    assert turn.room[5] == 11 and list(turn.position.spaces[5, :5]) == [0, 1, 2, 4, 6]
    assert rivals.taken(state)[5] == 3  # spaces 1, 2 and 4: space 3 was passed over
    assert not turn.position.blocked.any()
    rivals, turn, state = turn_of("classic+no_stop_on_occupied")
    assert turn.room[5] == 13 and list(turn.position.blocked[5, :6]) == [False, False, False, True, False, True]
    assert rivals.taken(state)[5] == 4 and STOP in state.legal_actions()
    assert math.isfinite(turn.stops[turn.number([0] * 5 + [4] + [0] * 5)])
    assert not math.isfinite(turn.stops[turn.number([0] * 5 + [3] + [0] * 5)])


def test_every_seats_chance_adds_up_and_a_seat_that_left_has_none() -> None:
    variant = preset("classic")
    state = new_game(variant, 3).leave(1)
    rivals = rivals_of(variant, 2)
    chances = rivals.chances(state)
    assert chances[1] == 0.0 and sum(chances) == pytest.approx(1.0)
    assert chances[state.seat] > chances[2 - state.seat]  # moving first is worth something
    with pytest.raises(ValueError, match="for 3 players; 2 are playing"):
        rivals_of(variant, 3).chances(state)
