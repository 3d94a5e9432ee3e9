"""The words and marks of an analysis, shared by the command line, the terminal game and the web.

Values read as chances ("58.2%") or alone as turns ("7.41 turns"); a decision's grade
gets the mark chess players know (?! inaccuracy, ? mistake, ?? blunder).
"""

from __future__ import annotations

from cantstop.analysis.game import DecisionNote, GameAnalysis, RollNote
from cantstop.analysis.grades import Grade
from cantstop.analysis.judges import Units
from cantstop.analysis.options import DecisionOptions
from cantstop.core.state import ROLL, STOP

MARKS = {Grade.INACCURACY: "?!", Grade.MISTAKE: "?", Grade.BLUNDER: "??"}


def value_text(value: float, units: Units) -> str:
    """A value as people read it: '58.2%' or '7.41 turns'."""
    return f"{value:.1f}%" if units is Units.CHANCE else f"{value:.2f} turns"


def change_text(change: float, units: Units) -> str:
    """A loss, a luck or a correction: '+3.2 points', '−0.15 turns' (signed)."""
    sign = "+" if change > 0 else "−" if change < 0 else "±"
    size = abs(change)
    return f"{sign}{size:.1f} points" if units is Units.CHANCE else f"{sign}{size:.2f} turns"


def mark(grade: Grade) -> str:
    return MARKS.get(grade, "")


def decision_text(note: DecisionNote, units: Units) -> str:
    """'played 4+8 (51.2%), best 6+8 (58.4%): −7.2 points, a mistake'."""
    values = {o.action: o.value for o in note.options}
    best = note.options[0]
    chosen = f"played {note.chosen} ({value_text(values[note.chosen], units)})"
    if note.grade in (Grade.BEST, Grade.FORCED):
        return f"{chosen}, the best"
    article = "an" if note.grade is Grade.INACCURACY else "a"
    return (
        f"{chosen}, best {best.action} ({value_text(best.value, units)}): "
        f"{change_text(-note.loss if units is Units.CHANCE else note.loss, units)}, {article} {note.grade.value}"
    )


def roll_text(note: RollNote, units: Units) -> str:
    """'rolled 1111: bust, −24.1 points' (luck as the roller felt it)."""
    what = "bust" if note.bust else f"{value_text(note.got, units)} after its best choice"
    luck = note.luck if units is Units.CHANCE else -note.luck
    return f"rolled {note.dice}: {what}, {change_text(luck, units)}"


def result_text(analysis: GameAnalysis) -> str:
    final = analysis.points[-1]
    if analysis.stopped is not None:
        return analysis.stopped
    if analysis.units is Units.TURNS:
        return f"finished in {final.turn} turns"
    assert analysis.winner is not None
    return f"{analysis.players[analysis.winner]} won after {final.turn} turns"


def option_words(action: str) -> tuple[str, str]:
    """An option as the subject of a warning and as one of a list: ('this stop', 'stopping')."""
    if action == str(STOP):
        return "this stop", "stopping"
    if action == str(ROLL):
        return "rolling on", "rolling on"
    return f"playing {action}", action


def warning_text(options: DecisionOptions, action: str) -> str:
    """What taking `action` gives up, against the best option, as the tutor says it: 'this stop
    gives up 12.0 points: rolling on wins 58.2%, stopping 46.1%' (alone: 'this stop costs
    0.31 turns: rolling on takes 7.41 turns, stopping 7.72 turns'); for the best option, that
    it is the best. Raises `AnalysisError` for an action that is no option here."""
    loss = options.loss(action)
    values = {o.action: o.value for o in options.options}
    subject, listed = option_words(action)
    best = options.options[0]
    if best.action == action or options.grade(action) is Grade.BEST:
        return f"{subject} is the best option ({value_text(values[action], options.units)})"
    _, best_listed = option_words(best.action)
    if options.units is Units.CHANCE:
        return (f"{subject} gives up {loss:.1f} points: {best_listed} wins {value_text(best.value, options.units)}, "
                f"{listed} {value_text(values[action], options.units)}")
    return (f"{subject} costs {loss:.2f} turns: {best_listed} takes {value_text(best.value, options.units)}, "
            f"{listed} {value_text(values[action], options.units)}")
