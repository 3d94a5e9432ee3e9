"""The analysis of a finished game: it adds up, it is the table where one exists, it refuses what it cannot judge."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from analysis_games import MIXED, SMALL, games

from cantstop.analysis import AnalysisError, Grade, Method, Units, analyse, judge_for
from cantstop.analysis.grades import accuracy, grade
from cantstop.core.record import Leave, Record, read_record
from cantstop.core.state import new_game
from cantstop.core.variant import preset

GOLDEN = Path(__file__).parents[1] / "core" / "golden"


def test_a_player_s_chance_plus_luck_less_losses_is_the_result_in_a_thousand_games() -> None:
    # Start + own luck − rival's luck − own losses + rival's losses + corrections = 1 or 0.
    for record in games(SMALL, MIXED, 1000):
        analysis = analyse(record)
        assert analysis.method is Method.LEARNED
        for seat in (0, 1):
            assert analysis.balance(seat) / 100 == pytest.approx(0.0, abs=1e-9), (record.tags, seat)
        assert {r.result for r in analysis.reports} == {0.0, 100.0}


def test_classic_games_add_up_and_the_rivals_bot_loses_nothing_against_its_own_value() -> None:
    for record in games("classic", ("rivals", "expert"), 6):
        analysis = analyse(record)
        rivals = record.players.index("rivals")
        assert analysis.reports[rivals].loss == pytest.approx(0.0, abs=1e-9)
        for seat in (0, 1):
            assert analysis.balance(seat) / 100 == pytest.approx(0.0, abs=1e-9)
        values = [v for p in analysis.points for v in p.values if v is not None]
        assert all(0.0 <= v <= 100.0 for v in values)
        # every point is a chance of each player, the two summing to 100
        assert all(sum(p.values) == pytest.approx(100.0) for p in analysis.points)  # type: ignore[arg-type]


def test_each_event_moves_the_value_by_its_luck_its_loss_or_a_correction() -> None:
    (record,) = games("classic", ("expert", "rule28"), 1, seed=7)
    analysis = analyse(record)
    rolls = {r.ply: r for r in analysis.rolls}
    decisions: dict[int, list[float]] = {}
    for d in analysis.decisions:
        decisions.setdefault(d.ply, []).append(d.loss)
    corrections = {c.ply: c for c in analysis.corrections}
    movers = {n.ply: n.seat for n in (*analysis.decisions, *analysis.rolls)}
    for before, after in zip(analysis.points, analysis.points[1:], strict=False):
        mover = movers[after.ply]
        assert before.values[mover] is not None and after.values[mover] is not None
        change = after.values[mover] - before.values[mover]
        explained = -sum(decisions.get(after.ply, [])) + (rolls[after.ply].luck if after.ply in rolls else 0.0)
        if after.ply in corrections:  # the rival's turn starts: its correction counts against the mover
            explained -= corrections[after.ply].change
        assert change == pytest.approx(explained, abs=1e-9)


@pytest.mark.parametrize("options", ["+skip", "+skip+no_stop_on_occupied"])
def test_under_skip_the_rivals_bot_still_loses_nothing_against_its_own_value(options: str) -> None:
    # A runner that passes a rival's piece has climbed more spaces than it took steps: read as
    # spaces, its in-turn state would be another one, and the bot's own moves would cost it.
    for record in games(SMALL + options, ("rivals", "expert"), 40):
        analysis = analyse(record)
        rivals = record.players.index("rivals")
        assert analysis.reports[rivals].loss == pytest.approx(0.0, abs=1e-9), record.tags
        for seat in (0, 1):
            assert analysis.balance(seat) / 100 == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize(
    "variant",
    ["classic-long", "classic+to_win=5", "turtles", "turtles-long", "turtles+to_win=5", "turtles-relay",
     "turtles-relay+to_win=4", "turtles-relay+to_win=5"],
)
def test_every_rated_board_beyond_classic_is_analysed_and_adds_up(variant: str) -> None:
    # Each has a learned value of its own (docs/bots.md, "Every rated variant"): none is refused.
    for record in games(variant, ("rivals", "expert"), 2):
        analysis = analyse(record)
        assert analysis.method is Method.LEARNED
        assert analysis.reports[record.players.index("rivals")].loss == pytest.approx(0.0, abs=1e-9)
        for seat in (0, 1):
            assert analysis.balance(seat) / 100 == pytest.approx(0.0, abs=1e-9)


def test_three_and_four_players_are_analysed_for_the_mover_of_each_turn() -> None:
    for players in (3, 4):
        (record,) = games("classic", ("rivals", "expert", "rule28", "ga")[:players], 1, seed=3, per_game=players)
        analysis = analyse(record)
        assert analysis.method is Method.LEARNED
        assert len(analysis.reports) == players
        winner = analysis.winner
        assert analysis.points[-1].values == tuple(100.0 if s == winner else 0.0 for s in range(players))
        for point in analysis.points[:-1]:
            assert all(v is not None and 0.0 <= v <= 100.0 for v in point.values)
        assert analysis.reports[record.players.index("rivals")].loss == pytest.approx(0.0, abs=1e-9)


def test_alone_the_expected_turns_add_up_to_the_turns_taken() -> None:
    for record in games("solitaire", ("expert", "rule28", "random"), 6, per_game=1):
        analysis = analyse(record)
        assert analysis.units is Units.TURNS and analysis.method is Method.FITTED
        assert analysis.reports[0].result == record.final().turn
        assert analysis.balance(0) == pytest.approx(0.0, abs=1e-9)


def test_a_resignation_costs_the_resigner_its_chance() -> None:
    (record,) = games("classic", ("expert", "rule28"), 1, seed=5)
    cut = next(i for i, state in enumerate(record.states()) if state.turn == 4)
    resigned = Record(record.variant, record.players, record.first, [*record.events[:cut], Leave(1)])
    analysis = analyse(resigned)
    last = analysis.decisions[-1]
    assert last.chosen == "resign" and last.seat == 1
    assert last.loss == pytest.approx(analysis.points[-2].values[1])
    assert analysis.points[-1].values == (100.0, 0.0)
    assert analysis.balance(1) / 100 == pytest.approx(0.0, abs=1e-9)


def test_a_game_still_going_is_refused_and_names_whose_turn_it_is() -> None:
    (record,) = games("classic", ("expert", "rule28"), 1)
    unfinished = Record(record.variant, record.players, record.first, record.events[:20])
    with pytest.raises(AnalysisError, match="not over"):
        analyse(unfinished)


def test_a_board_no_model_knows_is_refused_with_the_reason() -> None:
    variant = preset("classic+heights=2.2.2.2.2.2.2.2.2.2.2")
    with pytest.raises(AnalysisError, match="no value for"):
        judge_for(variant, 2)
    with pytest.raises(AnalysisError, match="fitted curve"):
        judge_for(preset("solitaire+heights=2.2.2.2.2.2.2.2.2.2.2"), 1)


def test_a_golden_record_of_four_players_is_analysed_to_its_end() -> None:
    record = read_record((GOLDEN / "classic-4p.txt").read_text(encoding="utf-8"))
    analysis = analyse(record)
    assert analysis.winner == record.final().winner
    assert analysis.stopped is None
    assert sum(len(r.mistakes) for r in analysis.reports) > 0


@pytest.mark.parametrize(
    ("loss", "units", "expected"),
    [
        (0.0, Units.CHANCE, Grade.BEST), (0.5, Units.CHANCE, Grade.GOOD), (2.0, Units.CHANCE, Grade.INACCURACY),
        (5.0, Units.CHANCE, Grade.MISTAKE), (20.0, Units.CHANCE, Grade.BLUNDER), (0.01, Units.TURNS, Grade.GOOD),
        (1.0, Units.TURNS, Grade.BLUNDER),
    ],
)
def test_grades_follow_the_documented_thresholds(loss: float, units: Units, expected: Grade) -> None:
    assert grade(loss, units) is expected


def test_accuracy_is_the_share_of_the_stakes_kept() -> None:
    assert accuracy([(0.0, 5.0), (0.0, 1.0)]) == 100.0
    assert accuracy([(5.0, 5.0)]) == 0.0
    assert accuracy([(1.0, 4.0), (0.0, 4.0)]) == pytest.approx(87.5)
    assert accuracy([(0.0, 0.0)]) is None
    assert math.isclose(accuracy([(2.0, 10.0)]) or 0.0, 80.0)


def test_the_start_is_the_first_mover_s_exact_turn() -> None:
    (record,) = games("classic", ("rivals", "expert"), 1)
    analysis = analyse(record)
    judge = judge_for(preset("classic"), 2)
    start = new_game("classic", 2, record.first)
    assert analysis.reports[record.first].start == pytest.approx(100 * judge.rivals.start_chance(start))  # type: ignore[attr-defined]


def test_every_decision_lists_its_options_best_first_and_grades_its_loss() -> None:
    for record in games("classic", ("random", "expert"), 2, seed=21):
        analysis = analyse(record)
        for d in analysis.decisions:
            values = [o.value for o in d.options]
            assert values == sorted(values, reverse=True)
            chosen = next(o.value for o in d.options if o.action == d.chosen)
            assert d.loss == pytest.approx(values[0] - chosen, abs=1e-12) and d.loss >= 0.0
            assert d.stakes == pytest.approx(values[0] - values[-1], abs=1e-12)
            assert d.grade is (Grade.FORCED if len(d.options) == 1 else grade(d.loss, Units.CHANCE))


def test_without_the_fast_extra_the_analysis_names_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "cantstop.solve.kernels", None)  # as if numba were missing
    with pytest.raises(AnalysisError, match=r"the analysis needs the .fast. extra .*pip install -e"):
        judge_for(preset("classic"), 2)
