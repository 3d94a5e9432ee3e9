"""The table: rolling, playing, undoing, its record kept in step (a state machine), versions and failures."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from cantstop import ROLL, STOP, IllegalActionError, Phase, SeededDice, SetupError
from cantstop.bots import Budget, get_bot
from cantstop.core.record import Roll, read_record, write_record
from cantstop.core.state import Action, State
from cantstop.core.variant import Variant
from cantstop.table import (
    BotPlayer,
    Busted,
    Chose,
    Claimed,
    Collected,
    Fault,
    FellBack,
    Forfeited,
    GameOverError,
    IllegalMoveError,
    Kind,
    Move,
    NotYourTurnError,
    Policy,
    Rolled,
    SeatFailed,
    StaleMoveError,
    Stopped,
    Table,
    Won,
    advance,
)
from cantstop.table.move import ROLL_MOVE, STOP_MOVE
from core.helpers import ALL_SPECS, players_for


def choice(*columns: int) -> Move:
    return Move.of(tuple(sorted(columns)))


class NoDice:
    def roll(self, n: int, faces: int) -> tuple[int, ...]:
        raise AssertionError("no dice are rolled here")


def test_new_game_rolls_off_for_who_starts_and_records_it() -> None:
    table = Table.new("classic", ["Ann", "Bob", "Cy"], SeededDice(1))
    assert "RollOff" in table.record.tags and "Date" in table.record.tags
    assert table.state.seat == table.record.first
    assert table.state.phase is Phase.ROLL and table.version == 0


def test_explicit_first_seat_skips_the_roll_off() -> None:
    table = Table.new("classic", ["Ann", "Bob"], SeededDice(1), first=1)
    assert table.state.seat == 1 and "RollOff" not in table.record.tags


def test_a_player_alone_does_not_roll_off() -> None:
    table = Table.new("solitaire", ["Ann"], NoDice())
    assert table.state.seat == 0 and table.record.first == 0 and "RollOff" not in table.record.tags


def test_wrong_number_of_players_is_refused_precisely() -> None:
    with pytest.raises(SetupError, match="players"):
        Table.new("solitaire", ["Ann", "Bob"], NoDice(), first=0)


def test_moves_the_record_and_the_happenings_follow_each_other() -> None:
    table = Table.new("classic", ["Ann", "Bob"], NoDice(), first=0)
    assert table.play(Move.rolled((1, 5, 4, 6))) == [Rolled(0, (1, 5, 4, 6), ((5, 11), (6, 10), (7, 9)))]
    assert table.play(choice(6, 10)) == [Chose(0, (6, 10))]
    assert table.play(STOP_MOVE) == [Stopped(0, ((6, 1), (10, 1)))]
    assert table.record.events == [Roll((1, 5, 4, 6)), (6, 10), STOP]
    assert [m.text for m in table.moves] == ["1546", "6+10", "stop"] and table.version == 3
    assert table.state.seat == 1 and table.state.pieces[0][6] == 1


def test_roll_rolls_the_dice_at_once_and_the_record_keeps_only_the_dice() -> None:
    table = Table.new("classic", ["Ann", "Bob"], SeededDice(4), first=0)
    table.play(ROLL_MOVE)
    table.play(Move.of(table.state.options[0]))
    table.play(ROLL_MOVE)  # roll again: one move, its dice
    assert isinstance(table.record.events[-1], Roll) and ROLL not in table.record.events
    assert table.moves[-1].kind is Kind.ROLL and table.moves[-1].dice
    assert table.state.phase in (Phase.CHOOSE, Phase.ROLL)


def test_a_bust_and_a_claim_and_a_win_are_told() -> None:
    table = Table.new("classic+to_win=1", ["Ann", "Bob"], NoDice(), first=0)
    table.play(Move.rolled((1, 1, 1, 1)))
    table.play(choice(2, 2))
    table.play(Move.rolled((1, 1, 1, 1)))
    table.play(choice(2))
    before = table.state
    busted = table.play(Move.rolled((1, 1, 1, 1)))  # the runner in 2 is at the top
    assert busted == [Busted(0, (1, 1, 1, 1), before)] and table.state.seat == 1
    table.play(Move.rolled((1, 1, 1, 1)))
    table.play(choice(2, 2))
    table.play(STOP_MOVE)
    table.play(Move.rolled((1, 1, 1, 1)))
    table.play(choice(2, 2))
    table.play(Move.rolled((1, 1, 1, 1)))
    table.play(choice(2))
    told = table.play(STOP_MOVE)
    assert told[1:] == [Claimed(0, 2, (1,)), Won(0, 3, alone=False)] and table.over and table.winner == 0


def test_undo_takes_back_a_choice_but_keeps_the_dice() -> None:
    table = Table.new("classic", ["Ann", "Bob"], NoDice(), first=0)
    table.play(Move.rolled((1, 5, 4, 6)))
    table.play(choice(6, 10))
    assert table.undo().phase is Phase.CHOOSE
    assert table.record.events == [Roll((1, 5, 4, 6))] and table.version == 1
    with pytest.raises(IllegalActionError, match="nothing to undo"):
        table.undo()
    table.play(choice(7, 9))
    table.play(STOP_MOVE)
    with pytest.raises(IllegalActionError, match="the turn is over"):
        table.undo()


def test_illegal_stale_and_out_of_turn_moves_change_nothing() -> None:
    table = Table.new("classic", ["Ann", "Bob"], NoDice(), first=0)
    with pytest.raises(IllegalMoveError, match="the turn starts with a roll") as first:
        table.play(choice(6, 8))
    assert first.value.legal == (ROLL,)
    table.play(Move.rolled((1, 5, 4, 6)))
    before = (table.state, list(table.record.events), table.version)
    with pytest.raises(IllegalMoveError, match="legal actions: 5\\+11, 6\\+10, 7\\+9") as illegal:
        table.play(choice(6, 8))
    assert illegal.value.legal == ((5, 11), (6, 10), (7, 9))
    with pytest.raises(StaleMoveError, match="made on version 0 but the game is at version 1") as stale:
        table.play(choice(6, 10), version=0)
    assert (stale.value.made_on, stale.value.current) == (0, 1)
    with pytest.raises(NotYourTurnError, match=r"it is Ann's turn \(seat A\), not seat B's") as turn:
        table.play(choice(6, 10), seat=1)
    assert (turn.value.seat, turn.value.to_move) == (1, 0)
    with pytest.raises(IllegalMoveError, match="roll is not legal now"):
        table.play(ROLL_MOVE)
    assert (table.state, table.record.events, table.version) == before
    table.play(choice(6, 10), version=1, seat=0)
    assert table.version == 2


def test_prepare_gives_the_move_with_its_dice_and_applies_nothing() -> None:
    table = Table.new("classic", ["Ann", "Bob"], SeededDice(3), first=0)
    ready = table.prepare(ROLL_MOVE, version=0)
    assert ready.kind is Kind.ROLL and len(ready.dice) == 4 and table.version == 0
    table.play(ready, version=0)
    assert table.record.events == [Roll(ready.dice)]


def test_a_trial_plays_the_failure_policy_and_leaves_the_table_and_its_sink_alone() -> None:
    table = Table.new("classic", ["Ann", "Bob"], SeededDice(4), first=0)
    table.play(Move.rolled((1, 5, 4, 6)))
    kept = table.sink = Collected()
    before = (table.state, list(table.record.events), dict(table.record.tags), list(table.moves), table.version)
    trial = table.trial()
    told = trial.fail(Fault.TIMEOUT, "the clock ran out")
    made = trial.moves[table.version:]
    assert [m.kind for m in made] == [Kind.FALLBACK, Kind.CHOICE] and isinstance(told[0], FellBack)
    assert (table.state, table.record.events, table.record.tags, table.moves, table.version) == before
    assert kept.moves == [] and trial.sink is None
    for move in made:  # what the trial made, restored on the table, gives the trial's position
        table.restore(move)
    assert table.state == trial.state and table.moves == trial.moves


def test_a_seat_gets_its_player_through_the_table() -> None:
    table = Table.new("classic", ["Ann", "Bob"], SeededDice(4), first=0)
    bot = BotPlayer(get_bot("random"), rng=random.Random(1))
    table.set_player(1, bot)
    assert table.players == [None, bot]
    table.set_player(1, None)
    assert table.players == [None, None]
    with pytest.raises(IndexError, match=r"no seat 2: this game has seats 0\.\.1"):
        table.set_player(2, bot)


def broken(state: State, rng: random.Random, budget: Budget) -> Action:
    raise RuntimeError("out of ideas")


def cheat(state: State, rng: random.Random, budget: Budget) -> Action:
    return (13,)


def bot(play: object) -> BotPlayer:
    info = get_bot("random")
    return BotPlayer(type(info)(info.name, info.level, info.description, play, info.display))  # type: ignore[arg-type]


def test_a_failing_bot_falls_back_to_a_safe_move_and_the_game_goes_on() -> None:
    table = Table.new("classic", ["Ann", "Broken"], SeededDice(5), first=1, players=[None, bot(broken)])
    told = table.run()
    fell = [h for h in told if isinstance(h, FellBack)]
    assert fell and fell[0] == FellBack(1, Fault.CRASH, "RuntimeError: out of ideas", fell[0].action)
    assert table.state.seat == 0 and not table.over  # a fallback stops for the seat: Ann's turn
    assert any(m.kind is Kind.FALLBACK and "out of ideas" in m.reason for m in table.moves)


def test_under_the_forfeit_policy_a_cheating_bot_loses_and_it_is_recorded() -> None:
    table = Table.new("classic", ["Ann", "Cheat"], SeededDice(5), first=1, players=[None, bot(cheat)],
                      policy=Policy.FORFEIT)
    told = table.run()
    assert told[-1] == Forfeited(1, Fault.ILLEGAL, told[-1].reason, winner=0)  # type: ignore[union-attr]
    assert "13 is not legal" in table.record.tags["Forfeit"] and table.over and table.winner == 0
    assert table.moves[-1].text == "resign:B"
    with pytest.raises(GameOverError, match="the game is over: Ann won") as over:
        table.play(ROLL_MOVE)
    assert over.value.winner == 0 and isinstance(over.value, IllegalActionError)


def test_under_the_raise_policy_a_failing_bot_raises_and_nothing_is_applied() -> None:
    table = Table.new("classic", ["Ann", "Broken"], SeededDice(5), first=1, players=[None, bot(broken)],
                      policy=Policy.RAISE)
    with pytest.raises(SeatFailed, match=r"crash: seat B \(Broken\): RuntimeError: out of ideas"):
        table.run()
    assert table.state.phase is Phase.CHOOSE and table.version == 1  # the roll, and nothing for the failure
    assert not any(m.out_of_band for m in table.moves) and not table.over


def test_a_timeout_goes_through_the_same_policy() -> None:
    table = Table.new("classic", ["Ann", "Bob"], NoDice(), first=0)
    table.play(Move.rolled((1, 5, 4, 6)))
    with pytest.raises(IllegalActionError, match="only the seat to move"):
        table.play(Move.timeout(1))
    told = table.play(Move.timeout(0))
    assert isinstance(told[0], FellBack) and told[0].fault is Fault.TIMEOUT and told[0].action == (5, 11)
    assert [m.text for m in table.moves] == ["1546", "fallback:A", "5+11"]


def test_a_resignation_among_people_lets_the_others_play_on() -> None:
    table = Table.new("classic", ["Ann", "Bob", "Cy"], NoDice(), first=0)
    told = table.play(Move.resign(2))
    assert told == [Forfeited(2, None, "resigned", None)] and not table.over and table.state.out == (2,)
    told = table.play(Move.resign(0))
    assert told == [Forfeited(0, None, "resigned", 1)] and table.over and table.winner == 1


def test_a_resignation_in_a_match_ends_the_game_for_the_seat() -> None:
    table = Table.new("classic", ["Ann", "Bob", "Cy"], NoDice(), first=0, policy=Policy.FORFEIT)
    told = table.play(Move.resign(2))
    assert told == [Forfeited(2, None, "resigned", None)] and table.over and table.winner is None


def test_ask_returns_a_failure_instead_of_raising() -> None:
    table = Table.new("classic", ["Ann", "Bob"], NoDice(), first=0, players=[bot(broken), None])
    table.play(Move.rolled((1, 5, 4, 6)))
    answer = table.ask()
    assert isinstance(answer, SeatFailed) and answer.fault is Fault.CRASH and table.version == 1


def test_run_stops_at_a_person_and_at_until() -> None:
    players = [None, BotPlayer(get_bot("rule28"))]
    table = Table.new("classic", ["Ann", "Bot"], SeededDice(2), first=1, players=players)
    table.run(until=lambda t: t.version >= 1)
    assert table.version == 1
    table.run()
    assert table.state.seat == 0 and table.state.phase is Phase.ROLL  # Ann rolls for herself
    table.run(roll_for_people=True)
    assert table.state.seat == 0 and table.state.phase is Phase.CHOOSE  # her first decision


class TableMachine(RuleBasedStateMachine):
    """Random roll/choose/decide/undo sequences: the record must always replay to the state."""

    @initialize(spec=st.sampled_from(ALL_SPECS), seed=st.integers(0, 10**6))
    def start(self, spec: str, seed: int) -> None:
        players = players_for(spec)
        self.table = Table.new(spec, [f"P{i}" for i in range(players)], SeededDice(seed))
        self.rng = random.Random(seed)

    @precondition(lambda self: self.table.state.phase is Phase.ROLL)
    @rule()
    def roll(self) -> None:
        turn = self.table.state.turn
        self.table.play(ROLL_MOVE)
        state = self.table.state
        assert state.phase is Phase.CHOOSE or (state.turn == turn + 1 and state.phase is Phase.ROLL)

    @precondition(lambda self: self.table.state.phase in (Phase.CHOOSE, Phase.DECIDE))
    @rule(data=st.data())
    def act(self, data: st.DataObject) -> None:
        actions = self.table.state.legal_actions()
        self.table.play(Move.of(data.draw(st.sampled_from(actions))))

    @precondition(lambda self: self.table.state.phase in (Phase.CHOOSE, Phase.DECIDE))
    @rule()
    def stop_if_possible(self) -> None:
        state = self.table.state
        if state.phase is Phase.DECIDE and STOP in state.legal_actions():
            self.table.play(STOP_MOVE)
        elif state.phase is Phase.CHOOSE:
            self.table.play(Move.of(self.rng.choice(state.options)))

    @precondition(lambda self: self.table.state.phase is Phase.DECIDE)
    @rule()
    def undo(self) -> None:
        before = self.table.state
        undone = self.table.undo()
        assert undone.phase is Phase.CHOOSE and undone.dice is not None
        assert undone.seat == before.seat and undone.turn == before.turn

    @rule()
    def illegal_action(self) -> None:
        state = self.table.state
        events = list(self.table.record.events)
        with pytest.raises(IllegalActionError):
            self.table.play(choice(99))
        assert self.table.state == state and self.table.record.events == events

    @invariant()
    def record_replays_to_the_state(self) -> None:
        if hasattr(self, "table"):
            assert self.table.record.final() == self.table.state
            assert read_record(write_record(self.table.record)).final() == self.table.state
            assert len(self.table.moves) == self.table.version


TableMachine.TestCase.settings = settings(max_examples=15, stateful_step_count=40, deadline=None)
test_table_machine = TableMachine.TestCase


@pytest.mark.parametrize("spec", ALL_SPECS)
def test_every_variant_plays_to_the_end_with_any_policy(spec: str) -> None:
    # A policy that never stops never finishes; any chance of stopping does, however small.
    for seed, stop_chance in ((1, 1.0), (2, 0.05), (3, 0.5)):
        rng = random.Random(seed)
        table = Table.new(spec, [f"P{i}" for i in range(players_for(spec))], SeededDice(seed))
        for _ in range(50_000):
            state = table.state
            if state.is_over:
                break
            if state.phase is Phase.ROLL:
                table.play(ROLL_MOVE)
            elif state.phase is Phase.CHOOSE:
                table.play(Move.of(rng.choice(state.options)))
            else:
                table.play(STOP_MOVE if STOP in state.legal_actions() and rng.random() < stop_chance else ROLL_MOVE)
        assert table.state.is_over, f"{spec} with stop chance {stop_chance} did not end"


def test_the_variant_is_the_records() -> None:
    table = Table.new("turtles", ["Ann", "Bob"], SeededDice(1), first=0)
    assert isinstance(table.variant, Variant) and table.variant.name == "turtles"


def test_preview_shows_where_a_choice_leads_and_applies_nothing() -> None:
    table = Table.new("classic", ["Ann", "Bob"], NoDice(), first=0)
    table.play(Move.rolled((1, 5, 4, 6)))
    after = table.preview(choice(6, 10))
    assert after.runners[6] == 1 and after.runners[10] == 1 and table.version == 1
    with pytest.raises(IllegalActionError):
        table.preview(choice(6, 8))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32))
@pytest.mark.parametrize("policy", [Policy.FORFEIT, Policy.FALLBACK])  # under RAISE a failure is never stored
def test_stored_moves_restore_the_same_game_and_tell_it_alike(policy: Policy, seed: int) -> None:
    """Moves a table made, timeouts and fallbacks and forfeits included, restored one by one
    into a fresh table give the same position, moves, record and happenings (a server restart)."""
    rng = random.Random(seed)
    live = Table.new("classic", ["Ann", "Bob", "Cy"], SeededDice(seed), first=0, policy=policy)
    kept = live.sink = Collected()
    told = []
    while not live.over and live.version < 400:
        state = live.state
        roll = rng.random()
        if roll < 0.05:
            told += live.play(Move.timeout(live.seat))
        elif roll < 0.06:
            told += live.play(Move.resign(rng.choice([p for p in range(3) if p not in state.out]), "had to go"))
        elif state.phase is Phase.ROLL:
            told += live.play(ROLL_MOVE)
        else:
            told += live.play(Move.of(rng.choice(state.legal_actions())))
    again = Table(Table.new("classic", ["Ann", "Bob", "Cy"], SeededDice(0), first=0).record, SeededDice(99), policy=policy)
    retold = [h for move in kept.moves for h in again.restore(move)]
    assert again.state == live.state and again.moves == live.moves and again.version == live.version
    assert again.record.events == live.record.events and again.winner == live.winner
    assert retold == told


def test_a_timeout_is_never_restored_as_such() -> None:
    table = Table.new("classic", ["Ann", "Bob"], SeededDice(1), first=0)
    with pytest.raises(IllegalActionError, match="never stored"):
        table.restore(Move.timeout(0))
    assert table.version == 0


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), spec=st.sampled_from(ALL_SPECS))
def test_advance_reaches_what_the_table_reaches_move_by_move(seed: int, spec: str) -> None:
    """`advance` is the table's own step without a record: the same moves from the same
    position lead to the same positions; a roll decision and its dice may come apart."""
    rng = random.Random(seed)
    table = Table.new(spec, ["Ann"] * players_for(spec), SeededDice(seed), first=0)
    state = table.state
    while not table.over and table.version < 300:
        legal = table.state.legal_actions() if table.state.phase is not Phase.ROLL else [ROLL]
        table.play(Move.of(rng.choice(legal)))
        move = table.moves[-1]
        if move.kind is Kind.ROLL and rng.random() < 0.5 and state.phase is Phase.DECIDE:
            state = advance(advance(state, ROLL_MOVE), move)  # OpenSpiel: decide to roll, then the chance node
        else:
            state = advance(state, move)
        assert state == table.state


def test_advance_refuses_an_illegal_move_naming_the_legal_ones() -> None:
    table = Table.new("classic", ["Ann", "Bob"], NoDice(), first=0)
    table.play(Move.rolled((1, 5, 4, 6)))
    with pytest.raises(IllegalActionError, match="legal"):
        advance(table.state, choice(6, 8))


def test_a_table_with_a_player_list_that_does_not_fit_the_seats_is_a_setup_error() -> None:
    record = Table.new("classic", ["Ann", "Bob"], SeededDice(0), first=0).record
    with pytest.raises(SetupError, match="1 players for 2 seats: one per seat"):
        Table(record, SeededDice(0), [None])
