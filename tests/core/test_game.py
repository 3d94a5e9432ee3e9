"""A game in progress: rolling, playing, undoing, and its record kept in step (a state machine)."""

from __future__ import annotations

import random

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from cantstop import ROLL, STOP, IllegalActionError, Phase, SeededDice
from cantstop.core.game import Game
from cantstop.core.record import Roll, read_record, write_record

from .helpers import ALL_SPECS, players_for


def test_new_game_rolls_off_for_who_starts_and_records_it() -> None:
    game = Game.new("classic", ["Ann", "Bob", "Cy"], SeededDice(1))
    assert "RollOff" in game.record.tags and "Date" in game.record.tags
    assert game.state.player == game.record.first
    assert game.state.phase is Phase.ROLL


def test_explicit_first_seat_skips_the_roll_off() -> None:
    game = Game.new("classic", ["Ann", "Bob"], SeededDice(1), first=1)
    assert game.state.player == 1 and "RollOff" not in game.record.tags


def test_a_player_alone_does_not_roll_off() -> None:
    class NoDice:
        def roll(self, n: int, faces: int) -> tuple[int, ...]:
            raise AssertionError("no dice are rolled before the first turn")

    game = Game.new("solitaire", ["Ann"], NoDice())
    assert game.state.player == 0 and game.record.first == 0 and "RollOff" not in game.record.tags


def test_wrong_number_of_players_is_refused() -> None:
    with pytest.raises(ValueError, match="players"):
        Game.new("solitaire", ["Ann", "Bob"], first=0)


def test_roll_play_and_the_record_follow_each_other() -> None:
    game = Game.new("classic", ["Ann", "Bob"], first=0)
    game.put_dice((1, 5, 4, 6))
    game.play((6, 10))
    assert game.last_dice == "1546"
    game.play(STOP)
    assert game.record.events == [Roll((1, 5, 4, 6)), (6, 10), STOP]
    assert game.state.player == 1 and game.state.pieces[0][6] == 1


def test_play_roll_rolls_the_dice_at_once() -> None:
    game = Game.new("classic", ["Ann", "Bob"], SeededDice(4), first=0)
    game.roll()
    game.play(game.state.options[0])
    game.play(ROLL)
    assert isinstance(game.record.events[-1], Roll)
    assert game.state.phase in (Phase.CHOOSE, Phase.ROLL)


def test_undo_takes_back_a_choice_but_keeps_the_dice() -> None:
    game = Game.new("classic", ["Ann", "Bob"], first=0)
    game.put_dice((1, 5, 4, 6))
    game.play((6, 10))
    assert game.undo().phase is Phase.CHOOSE
    assert game.record.events == [Roll((1, 5, 4, 6))]
    with pytest.raises(IllegalActionError, match="nothing to undo"):
        game.undo()
    game.play((7, 9))
    game.play(STOP)
    with pytest.raises(IllegalActionError, match="the turn is over"):
        game.undo()


def test_illegal_moves_leave_game_and_record_unchanged() -> None:
    game = Game.new("classic", ["Ann", "Bob"], first=0)
    with pytest.raises(IllegalActionError):
        game.play(ROLL)  # a turn starts with dice, not a decision: Game.roll does that
    game.put_dice((1, 5, 4, 6))
    before = (game.state, list(game.record.events))
    with pytest.raises(IllegalActionError):
        game.play((6, 8))
    assert (game.state, game.record.events) == before


class GameMachine(RuleBasedStateMachine):
    """Random roll/choose/decide/undo sequences: the record must always replay to the state."""

    @initialize(spec=st.sampled_from(ALL_SPECS), seed=st.integers(0, 10**6))
    def start(self, spec: str, seed: int) -> None:
        players = players_for(spec)
        self.game = Game.new(spec, [f"P{i}" for i in range(players)], SeededDice(seed))
        self.rng = random.Random(seed)

    @precondition(lambda self: self.game.state.phase is Phase.ROLL)
    @rule()
    def roll(self) -> None:
        turn = self.game.state.turn
        self.game.roll()
        state = self.game.state
        assert state.phase is Phase.CHOOSE or (state.turn == turn + 1 and state.phase is Phase.ROLL)

    @precondition(lambda self: self.game.state.phase in (Phase.CHOOSE, Phase.DECIDE))
    @rule(data=st.data())
    def act(self, data: st.DataObject) -> None:
        actions = self.game.state.legal_actions()
        self.game.play(data.draw(st.sampled_from(actions)))

    @precondition(lambda self: self.game.state.phase in (Phase.CHOOSE, Phase.DECIDE))
    @rule()
    def stop_if_possible(self) -> None:
        state = self.game.state
        if state.phase is Phase.DECIDE and STOP in state.legal_actions():
            self.game.play(STOP)
        elif state.phase is Phase.CHOOSE:
            self.game.play(self.rng.choice(state.options))

    @precondition(lambda self: self.game.state.phase is Phase.DECIDE)
    @rule()
    def undo(self) -> None:
        before = self.game.state
        undone = self.game.undo()
        assert undone.phase is Phase.CHOOSE and undone.dice is not None
        assert undone.player == before.player and undone.turn == before.turn

    @rule()
    def illegal_action(self) -> None:
        state = self.game.state
        events = list(self.game.record.events)
        with pytest.raises(IllegalActionError):
            self.game.play((99,))
        assert self.game.state == state and self.game.record.events == events

    @invariant()
    def record_replays_to_the_state(self) -> None:
        if hasattr(self, "game"):
            assert self.game.record.final() == self.game.state
            assert read_record(write_record(self.game.record)).final() == self.game.state


GameMachine.TestCase.settings = settings(max_examples=15, stateful_step_count=40, deadline=None)
test_game_machine = GameMachine.TestCase


@pytest.mark.parametrize("spec", ALL_SPECS)
def test_every_variant_plays_to_the_end_with_any_policy(spec: str) -> None:
    # A policy that never stops never finishes; any chance of stopping does, however small.
    for seed, stop_chance in ((1, 1.0), (2, 0.05), (3, 0.5)):
        rng = random.Random(seed)
        game = Game.new(spec, [f"P{i}" for i in range(players_for(spec))], SeededDice(seed))
        for _ in range(50_000):
            state = game.state
            if state.is_over:
                break
            if state.phase is Phase.ROLL:
                game.roll()
            elif state.phase is Phase.CHOOSE:
                game.play(rng.choice(state.options))
            else:
                game.play(STOP if STOP in state.legal_actions() and rng.random() < stop_chance else ROLL)
        assert game.state.is_over, f"{spec} with stop chance {stop_chance} did not end"
