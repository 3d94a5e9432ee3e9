"""The analysis of a finished game: each decision's options and loss, each roll's luck.

A game is walked event by event. At every point the mover's value is known under best
play for the rest of its turn (`judges`): before a roll, the expectation over every roll;
after it, what its best choice is worth (or the bust's); after a choice, the better of
rolling on and stopping. So each event moves the mover's value by exactly one of:

- a roll's **luck**: what it brought less what rolling was expected to bring;
- a decision's **loss**: the best option's value less the chosen one's (never negative);
- where a turn hands over, the value model's **correction**: the exact value of the next
  turn less the model's value of the position it starts from (0 on a solved board).

With two players, a player's chance at the start, plus its rolls' luck, less its rival's,
less its own losses, plus its rival's, plus its side of the corrections, is the result
(`GameAnalysis.balance` checks it). Chances are shown in points (0 to 100); alone, values
are the expected number of turns the game takes, and luck is turns saved.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from cantstop.analysis.grades import Grade, accuracy, grade
from cantstop.analysis.judges import AnalysisError, Judge, Method, TurnView, Units, judge_for
from cantstop.analysis.options import Option, option_values, ranked, shown
from cantstop.core.choices import format_choice
from cantstop.core.notation import format_dice, seat_letter, to_notation
from cantstop.core.record import Event, Leave, Record, Roll
from cantstop.core.state import ROLL, Decision, Phase, State
from cantstop.core.variant import variant_spec

RESIGN = "resign"
BIGGEST = 3  # mistakes and swings listed per player


@dataclass(frozen=True)
class DecisionNote:
    """A decision: which choice to play, roll or stop, or to resign."""

    ply: int  # the event's number in the record, from 1
    turn: int  # the turn's number, from 1
    seat: int
    position: str  # the position it was taken in (notation)
    options: tuple[Option, ...]  # best first
    chosen: str
    loss: float  # the best option's value less the chosen one's, in the analysis's units
    stakes: float  # the best option's value less the worst's
    grade: Grade


@dataclass(frozen=True)
class RollNote:
    """A roll and its luck for the seat that rolled."""

    ply: int
    turn: int
    seat: int
    position: str  # before the roll
    dice: str
    expected: float  # the mover's value before the dice were seen
    got: float  # after them, with the best choice they offer (or the bust)
    luck: float  # good for the mover when positive: points gained, or turns saved
    bust: bool


@dataclass(frozen=True)
class Correction:
    """Where a turn starts: the model's value of the position for its mover, and the exact turn's."""

    ply: int  # the point the turn starts at (the event before it)
    seat: int
    learned: float
    exact: float

    @property
    def change(self) -> float:
        return self.exact - self.learned


@dataclass(frozen=True)
class Point:
    """Every seat's value after event `ply` (0: the start): a chance in points, or alone the
    expected turns; None for a seat that has left, or where the analysis stopped."""

    ply: int
    turn: int
    values: tuple[float | None, ...]


@dataclass(frozen=True)
class PlayerReport:
    seat: int
    name: str
    start: float
    result: float | None  # None where the analysis stopped before the end
    accuracy: float | None  # see grades.accuracy; None without a decision at stake
    decisions: int  # decisions with more than one option
    loss: float
    luck: float
    correction: float  # the corrections as this seat felt them
    grades: dict[str, int]
    mistakes: tuple[int, ...]  # plies of its worst decisions (inaccuracy or worse), worst first
    swings: tuple[int, ...]  # plies of its rolls of greatest luck either way


@dataclass(frozen=True)
class GameAnalysis:
    variant: str
    players: tuple[str, ...]
    method: Method
    description: str
    units: Units
    points: tuple[Point, ...]
    decisions: tuple[DecisionNote, ...]
    rolls: tuple[RollNote, ...]
    corrections: tuple[Correction, ...]
    reports: tuple[PlayerReport, ...]
    winner: int | None
    stopped: str | None = None  # why the analysis ends before the game did, if it does
    notes: dict[str, str] = field(default_factory=dict)

    @property
    def correction(self) -> float:
        """The model's corrections in all, each as its turn's mover felt it."""
        return sum(c.change for c in self.corrections)

    def balance(self, seat: int) -> float:
        """Start + luck − losses + corrections − result, as `seat` feels them: 0 but for rounding.

        With two players the rival's luck counts against the seat and its losses for it;
        alone, luck saves turns and losses cost them.
        """
        report = self.reports[seat]
        if report.result is None:
            raise AnalysisError(f"the analysis stopped before the end ({self.stopped}): nothing to balance")
        if self.units is Units.TURNS:
            return report.start - report.luck + report.loss + report.correction - report.result
        rival = self.reports[1 - seat]
        return report.start + report.luck - rival.luck - report.loss + rival.loss + report.correction - report.result

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["method"] = self.method.value
        data["units"] = self.units.value
        return data


def analyse(record: Record, judge: Judge | None = None) -> GameAnalysis:
    """The analysis of the finished game `record`.

    Raises `AnalysisError` for a game that is not over or that no value model can judge
    (saying why), and `RecordError` for a record that does not replay.
    """
    states = list(record.states())
    final = states[-1]
    players = len(record.players)
    if not final.is_over:
        raise AnalysisError(
            f"the game is not over (turn {final.turn + 1}, {seat_letter(final.seat)} to play): "
            "only a finished game can be analysed"
        )
    judge = judge or judge_for(record.variant, players)
    return _Walk(record, states, judge).run()


class _Walk:
    """One pass over a game's events, keeping the mover's value as it goes."""

    def __init__(self, record: Record, states: list[State], judge: Judge) -> None:
        self.record = record
        self.states = states
        self.judge = judge
        self.units = judge.units
        self.scale = 100.0 if self.units is Units.CHANCE else 1.0
        self.n = len(record.players)
        self.decisions: list[DecisionNote] = []
        self.rolls: list[RollNote] = []
        self.corrections: list[Correction] = []
        self.points: list[Point] = []
        self.stopped: str | None = None
        self._view: TurnView | None = None
        self._view_of: tuple[Any, ...] | None = None
        self.others: tuple[float, ...] | None = None  # the non-movers' chances this turn (3-4 players)

    # ---------------------------------------------------------------- values
    def view(self, state: State) -> TurnView:
        """The turn `state` is in (one per turn: its start's pieces, claims and mover)."""
        key = (state.pieces, state.claimed, state.seat)
        if self._view is None or self._view_of != key:
            self._view = self.judge.turn(state)
            self._view_of = key
        return self._view

    def rolling(self, state: State) -> float:
        """The cost of rolling from `state` (about to roll, or deciding whether to)."""
        return self.view(state).roll_cost(state)

    def rolled(self, before: State, after: State) -> float:
        """The cost the dice that led from `before` to `after` brought: their best choice's, or the bust's."""
        view = self.view(before)
        if after.phase is Phase.CHOOSE and after.turn == before.turn:
            return min(view.cost(after.play(choice)) for choice in after.options)
        return view.x

    def shown(self, state: State, cost: float) -> float:
        """A cost of the turn `state` is in, as the mover's value: points, or turns in all."""
        return shown(state, cost, self.units)

    def point(self, ply: int, state: State, mover: int, value: float) -> None:
        values: list[float | None]
        if self.units is Units.TURNS:
            values = [value]
        elif self.n == 2:
            values = [100.0 - value] * 2
            values[mover] = value
        else:
            assert self.others is not None
            values = [100.0 * c for c in self.others]
            values[mover] = value
        for seat in state.out:
            values[seat] = None
        self.points.append(Point(ply, state.turn + (0 if state.is_over else 1), tuple(values)))

    # ---------------------------------------------------------------- the walk
    def run(self) -> GameAnalysis:
        start = self.states[0]
        value = self.start_turn(0, start, None)
        self.point(0, start, start.seat, value)
        for ply, event in enumerate(self.record.events, 1):
            before, after = self.states[ply - 1], self.states[ply]
            if isinstance(event, Leave):
                if not self.leave(ply, event, before, after):
                    break
                continue
            value = self.step(ply, event, before, after)
            if after.is_over:
                self.final_point(ply, after)
                break
            if after.turn != before.turn:  # the turn ended: the next one starts, with its correction
                value = self.start_turn(ply, after, value)
                self.point(ply, after, after.seat, value)
            else:
                self.point(ply, after, after.seat, value)
        return self.result()

    def start_turn(self, ply: int, state: State, ended: float | None) -> float:
        """The next turn's exact value for its mover; notes the correction where one ended."""
        if self.units is Units.CHANCE and self.n > 2:
            self.others = self.judge.between(state)
        exact = self.shown(state, self.rolling(state))
        if ended is not None:
            if self.units is Units.TURNS:
                learned = ended  # the same player: its expected turns as the stop left them
            elif self.n == 2:
                learned = 100.0 - ended
            else:
                assert self.others is not None
                learned = 100.0 * self.others[state.seat]
            self.corrections.append(Correction(ply, state.seat, learned, exact))
        return exact

    def step(self, ply: int, event: Event, before: State, after: State) -> float:
        """Note the roll or decision `event`; the mover's value after it."""
        mover = before.seat
        turn = before.turn + 1
        if isinstance(event, Roll):
            if before.phase is Phase.DECIDE:  # rolling on is a decision, then the roll
                self.decide(ply, before, ROLL)
                before = before.play(ROLL)
            expected = self.shown(before, self.rolling(before))
            bust = not (after.phase is Phase.CHOOSE and after.turn == before.turn)
            got = self.shown(before, self.rolled(before, after))
            luck = got - expected if self.units is Units.CHANCE else expected - got
            self.rolls.append(RollNote(ply, turn, mover, to_notation(before), format_dice(event), expected, got, luck, bust))
            return got
        if isinstance(event, Decision):
            return self.decide(ply, before, event)
        assert not isinstance(event, Leave)  # `run` hands leaving to `leave`
        return self.note(ply, before, format_choice(event))

    def decide(self, ply: int, before: State, decision: Decision) -> float:
        """Roll on or stop, from a DECIDE state."""
        return self.note(ply, before, str(decision))

    def note(self, ply: int, before: State, chosen: str) -> float:
        """Note the decision taken in `before` (a choice, or rolling on against stopping)."""
        options = option_values(before, self.view(before), self.units)
        order = ranked(options, self.units)
        best, worst = order[0].value, order[-1].value
        value = dict(options)[chosen]
        loss = abs(best - value)
        graded = grade(loss, self.units) if len(options) > 1 else Grade.FORCED
        self.decisions.append(
            DecisionNote(ply, before.turn + 1, before.seat, to_notation(before), tuple(order), chosen, loss, abs(best - worst), graded)
        )
        return value

    def leave(self, ply: int, event: Leave, before: State, after: State) -> bool:
        """A seat resigned: with two players its chance is its loss. False: stop the walk here."""
        if self.n != 2 or not after.is_over:
            self.stopped = (
                f"{self.record.players[event.seat]} left at event {ply}; the value knows no games with a "
                "seat gone, so the analysis ends there"
            )
            return False
        value = self.points[-1].values[event.seat]
        assert value is not None
        self.decisions.append(
            DecisionNote(
                ply, before.turn + 1, event.seat, to_notation(before), (Option(RESIGN, 0.0),),
                RESIGN, value, value, grade(value, self.units),
            )
        )
        self.final_point(ply, after)
        return False

    def final_point(self, ply: int, state: State) -> None:
        if self.units is Units.TURNS:
            values: tuple[float | None, ...] = (float(state.turn),)
        else:
            values = tuple(100.0 if seat == state.winner else 0.0 for seat in range(self.n))
        self.points.append(Point(ply, state.turn, values))

    # ---------------------------------------------------------------- summary
    def result(self) -> GameAnalysis:
        final = self.states[-1]
        winner = final.winner
        reports = []
        for seat, name in enumerate(self.record.players):
            mine = [d for d in self.decisions if d.seat == seat]
            graded = [d for d in mine if d.grade is not Grade.FORCED]
            rolls = [r for r in self.rolls if r.seat == seat]
            counts = {g.value: sum(d.grade is g for d in mine) for g in Grade}
            wrong = sorted(
                (d for d in graded if d.grade in (Grade.INACCURACY, Grade.MISTAKE, Grade.BLUNDER)),
                key=lambda d: -d.loss,
            )
            swings = sorted(rolls, key=lambda r: -abs(r.luck))
            start = self.points[0].values[seat]
            end = self.points[-1].values[seat] if self.stopped is None else None
            reports.append(
                PlayerReport(
                    seat, name,
                    start=start if start is not None else 0.0,
                    result=end,
                    accuracy=accuracy((d.loss, d.stakes) for d in graded),
                    decisions=len(graded),
                    loss=sum(d.loss for d in mine),
                    luck=sum(r.luck for r in rolls),
                    correction=self.felt(seat),
                    grades=counts,
                    mistakes=tuple(d.ply for d in wrong[:BIGGEST]),
                    swings=tuple(r.ply for r in swings[:BIGGEST]),
                )
            )
        return GameAnalysis(
            variant_spec(self.record.variant), tuple(self.record.players), self.judge.method,
            self.judge.description, self.units, tuple(self.points), tuple(self.decisions),
            tuple(self.rolls), tuple(self.corrections), tuple(reports), winner, self.stopped,
        )

    def felt(self, seat: int) -> float:
        """The corrections as `seat` felt them: its own turns', and with one rival the rival's against it."""
        if self.units is Units.TURNS or self.n > 2:
            return sum(c.change for c in self.corrections if c.seat == seat)
        return sum(c.change if c.seat == seat else -c.change for c in self.corrections)

