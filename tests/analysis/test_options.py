"""A position's options before the decision: the same numbers a game's analysis gives it afterwards."""

from __future__ import annotations

import pytest
from analysis_games import MIXED, SMALL, games

from cantstop.analysis import AnalysisError, Grade, Units, analyse
from cantstop.analysis.options import DecisionOptions, Option, decision_options
from cantstop.analysis.wording import warning_text
from cantstop.core.notation import from_notation
from cantstop.core.state import new_game


def test_every_decision_of_an_analysis_has_the_options_asked_of_its_position_beforehand() -> None:
    for record in games(SMALL, MIXED, 40, seed=3):
        analysis = analyse(record)
        for note in analysis.decisions:
            if note.chosen == "resign":  # leaving is no option of the rules
                continue
            asked = decision_options(from_notation(note.position))
            assert asked.options == note.options
            assert asked.loss(note.chosen) == pytest.approx(note.loss, abs=1e-12)
            assert asked.grade(note.chosen) is note.grade
            assert (asked.seat, asked.turn) == (note.seat, note.turn)


def test_a_position_with_no_decision_is_refused_with_the_reason() -> None:
    with pytest.raises(AnalysisError, match="dice are still to be rolled"):
        decision_options(new_game("classic", 2))
    (record,) = games(SMALL, ("rule28", "expert"), 1)
    with pytest.raises(AnalysisError, match="game is over"):
        decision_options(record.final())


def test_an_action_that_is_no_option_is_refused_naming_the_options() -> None:
    state = new_game("classic", 2).roll((1, 2, 3, 4))
    found = decision_options(state)
    with pytest.raises(AnalysisError, match="the options are"):
        found.loss("2+12")


CHANCES = DecisionOptions("x", 0, 3, Units.CHANCE, (Option("roll", 58.2), Option("stop", 46.1)))
TURNS = DecisionOptions("x", 0, 3, Units.TURNS, (Option("stop", 7.41), Option("roll", 7.72)))


@pytest.mark.parametrize(
    ("options", "action", "said"),
    [
        (CHANCES, "stop", "this stop gives up 12.1 points: rolling on wins 58.2%, stopping 46.1%"),
        (CHANCES, "roll", "rolling on is the best option (58.2%)"),
        (TURNS, "roll", "rolling on costs 0.31 turns: stopping takes 7.41 turns, rolling on 7.72 turns"),
        (DecisionOptions("x", 1, 2, Units.CHANCE, (Option("6+8", 51.0), Option("4+10", 48.5))), "4+10",
         "playing 4+10 gives up 2.5 points: 6+8 wins 51.0%, 4+10 48.5%"),
    ],
)
def test_the_tutor_says_what_an_option_gives_up_and_against_what(options: DecisionOptions, action: str, said: str) -> None:
    assert warning_text(options, action) == said


def test_a_forced_decision_is_graded_forced() -> None:
    alone = DecisionOptions("x", 0, 1, Units.CHANCE, (Option("7", 50.0),))
    assert alone.grade("7") is Grade.FORCED
    assert alone.loss("7") == 0.0
