"""The words and marks of an analysis, shared by the command line, the terminal game and the web.

Values read as chances ("58.2%") or alone as turns ("7.41 turns"); a decision's grade
gets the mark chess players know (?! inaccuracy, ? mistake, ?? blunder).
"""

from __future__ import annotations

from dataclasses import dataclass

from cantstop.analysis.game import DecisionNote, GameAnalysis, PlayerReport, Point, RollNote
from cantstop.analysis.grades import ORDER, Grade
from cantstop.analysis.judges import Units
from cantstop.analysis.options import DecisionOptions
from cantstop.analysis.rollmap import RollGroup, RollMap
from cantstop.core.notation import seat_letter
from cantstop.core.state import ROLL, STOP

MARKS = {Grade.INACCURACY: "?!", Grade.MISTAKE: "?", Grade.BLUNDER: "??"}
LOSSES = tuple(MARKS)  # the grades of a decision that lost enough to be marked
MARK_HEADINGS = {Grade.BEST: "best", Grade.GOOD: "good", **MARKS}


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


def seat_names(analysis: GameAnalysis) -> list[str]:
    """'A Ann', 'B Bob', ...: how a report names its players."""
    return [f"{seat_letter(seat)} {name}" for seat, name in enumerate(analysis.players)]


def headline(analysis: GameAnalysis) -> str:
    """'classic: A Ann, B Bob. Bob won after 14 turns.'"""
    return f"{analysis.variant}: {', '.join(seat_names(analysis))}. {result_text(analysis)}."


def values_line(analysis: GameAnalysis) -> str:
    return f"Values: {analysis.description}."


def values_text(point: Point, units: Units) -> str:
    """Every seat's value at a point: 'A 55.1% · B 44.9%', or alone '7.41 turns'."""
    values = enumerate(point.values)
    if units is Units.TURNS:
        return " · ".join(value_text(v, units) for _, v in values if v is not None)
    return " · ".join(f"{seat_letter(seat)} {value_text(v, units)}" for seat, v in values if v is not None)


def value_cell(value: float | None, units: Units) -> str:
    """A value in a table's cell: '58.2' (points) or '7.41' (turns); '—' for none."""
    if value is None:
        return "—"
    return f"{value:.1f}" if units is Units.CHANCE else f"{value:.2f}"


@dataclass(frozen=True)
class TurnRow:
    """One turn of a game as a report's table shows it."""

    turn: int
    seat: int
    words: str  # its dice, choices and stops, each decision that lost marked ?! ? ??
    last: int  # the ply of its last event
    after: Point | None  # every seat's value once it is over (None where the analysis stopped)


def turn_rows(analysis: GameAnalysis) -> list[TurnRow]:
    """Each turn: dice, choices and stops with grade marks, and the values it left behind."""
    by_ply: dict[int, list[str]] = {}
    seats: dict[int, tuple[int, int]] = {}
    notes: list[DecisionNote | RollNote] = [*analysis.decisions, *analysis.rolls]
    # A roll after a choice is the decision to roll and the roll, both of one event.
    for note in sorted(notes, key=lambda n: (n.ply, isinstance(n, RollNote))):
        seats.setdefault(note.ply, (note.turn, note.seat))
        said = by_ply.setdefault(note.ply, [])
        if isinstance(note, RollNote):
            said.append(note.dice + (" bust" if note.bust else ""))
        elif note.chosen != "roll" or note.grade in LOSSES:
            said.append(note.chosen + mark(note.grade))
    points = {p.ply: p for p in analysis.points}
    plies = sorted(by_ply)
    rows: list[TurnRow] = []
    words: list[str] = []
    for ply, following in zip(plies, [*plies[1:], None]):
        words += by_ply[ply]
        if following is None or seats[following] != seats[ply]:
            turn, seat = seats[ply]
            rows.append(TurnRow(turn, seat, " ".join(words), ply, points.get(ply)))
            words = []
    return rows


def report_headings(units: Units) -> tuple[str, ...]:
    """The columns of the players' summary, as `report_cells` fills them."""
    lost = "loss (points)" if units is Units.CHANCE else "loss (turns)"
    return ("player", "accuracy", "decisions", lost, "luck", *(MARK_HEADINGS[g] for g in ORDER))


def report_cells(analysis: GameAnalysis, report: PlayerReport) -> tuple[str, ...]:
    """A player's accuracy, decisions, loss, luck (as the player felt it) and grade counts."""
    units = analysis.units
    accuracy = "—" if report.accuracy is None else f"{report.accuracy:.1f}"
    loss = f"{report.loss:.1f}" if units is Units.CHANCE else f"{report.loss:.2f}"
    luck = change_text(report.luck if units is Units.CHANCE else -report.luck, units)
    grades = (str(report.grades[g.value]) for g in ORDER)
    return (seat_names(analysis)[report.seat], accuracy, str(report.decisions), loss, luck, *grades)


def mistake_lines(analysis: GameAnalysis) -> list[str]:
    """Each player's worst decisions (an inaccuracy or worse), worst first."""
    names = seat_names(analysis)
    decisions = {d.ply: d for d in analysis.decisions if d.grade is not Grade.FORCED}
    return [
        f"{names[r.seat]}, turn {decisions[p].turn}: {decision_text(decisions[p], analysis.units)}"
        for r in analysis.reports
        for p in r.mistakes
    ]


def swing_lines(analysis: GameAnalysis) -> list[str]:
    """Each player's rolls of greatest luck, either way."""
    names = seat_names(analysis)
    rolls = {r.ply: r for r in analysis.rolls}
    return [
        f"{names[r.seat]}, turn {rolls[p].turn}: {roll_text(rolls[p], analysis.units)}"
        for r in analysis.reports
        for p in r.swings
    ]


def corrections_line(analysis: GameAnalysis) -> str | None:
    """How far the value model was from each next turn's exact value, on average (None: no turn)."""
    if not analysis.corrections:
        return None
    size = sum(abs(c.change) for c in analysis.corrections) / len(analysis.corrections)
    unit = "points" if analysis.units is Units.CHANCE else "turns"
    return (
        f"The value model's corrections where turns start: {size:.2f} {unit} "
        f"on average over {len(analysis.corrections)} turns (0 on a solved board)."
    )


def roll_map_lines(found: RollMap) -> list[str]:
    """The bust's chance, rolling's value, and stopping's with the better of the two."""
    units = found.units
    lines = [f"bust: {100 * found.bust:.1f}% of rolls", f"rolling: {value_text(found.roll, units)}"]
    if found.stop is not None:
        lines.append(f"stopping: {value_text(found.stop, units)} ({found.advice})")
    return lines


GROUP_HEADINGS = ("chance", "e.g.", "choices", "best", "then")


def group_cells(group: RollGroup, units: Units) -> tuple[str, ...]:
    """A group of rolls as the roll map's table shows it (see GROUP_HEADINGS)."""
    choices = " ".join(group.choices) or "bust"
    return (f"{100 * group.chance:.1f}%", group.example, choices, group.best or "—", value_text(group.value, units))
