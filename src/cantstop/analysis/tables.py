"""An analysis's tables as rich renderables: `cantstop analyse` prints them, the terminal
game's analysis screen shows them, so both read the same."""

from __future__ import annotations

from collections.abc import Sequence

from rich.style import Style
from rich.table import Table
from rich.text import Text

from cantstop.analysis.game import GameAnalysis
from cantstop.analysis.judges import Units
from cantstop.analysis.rollmap import RollMap
from cantstop.analysis.wording import (
    GROUP_HEADINGS,
    group_cells,
    report_cells,
    report_headings,
    seat_names,
    turn_rows,
    value_cell,
)

GROUPS_SHOWN = 20  # a roll map's likeliest groups listed by default; the rest are counted


def _seat(name: str, seat: int, styles: Sequence[Style] | None) -> Text:
    return Text(name, style=styles[seat % len(styles)] if styles else "")


def turns_table(analysis: GameAnalysis, styles: Sequence[Style] | None = None) -> Table:
    """A row per turn: who, its dice and decisions with grade marks, every seat's value after it
    (alone: the expected turns). `styles` colours each seat's name."""
    units = analysis.units
    names = seat_names(analysis)
    table = Table(box=None, pad_edge=False)
    table.add_column("turn", justify="right")
    table.add_column("player")
    table.add_column("play (?! inaccuracy, ? mistake, ?? blunder)")
    for seat, name in enumerate(names if units is Units.CHANCE else ["expected turns"]):
        heading = _seat(name.split(" ", 1)[0], seat, styles) if units is Units.CHANCE else Text(name)
        table.add_column(heading, justify="right")
    for row in turn_rows(analysis):
        values = [] if row.after is None else [value_cell(v, units) for v in row.after.values]
        table.add_row(str(row.turn), _seat(names[row.seat], row.seat, styles), row.words, *values)
    return table


def summary_table(analysis: GameAnalysis, styles: Sequence[Style] | None = None) -> Table:
    """A row per player: accuracy, graded decisions, loss, luck and how many of each grade."""
    table = Table(box=None, pad_edge=False)
    for heading in report_headings(analysis.units):
        table.add_column(heading, justify="left" if heading == "player" else "right")
    for report in analysis.reports:
        name, *cells = report_cells(analysis, report)
        table.add_row(_seat(name, report.seat, styles), *cells)
    return table


def roll_map_table(
    found: RollMap,
    shown: int | None = GROUPS_SHOWN,
    marked: frozenset[str] | None = None,
    examples: bool = True,
) -> tuple[Table, int]:
    """The roll map's groups, the likeliest first, `shown` of them (None: all), and how many
    are left out. With `marked` (the choices of the roll that came), that roll's group is
    marked ▶ and shown wherever it ranks. Without `examples`, no column of example dice
    (for a narrow panel)."""
    kept = [i for i, heading in enumerate(GROUP_HEADINGS) if examples or heading != "e.g."]
    table = Table(box=None, pad_edge=False)
    if marked is not None:
        table.add_column("")
    for i in kept:
        heading = GROUP_HEADINGS[i]
        table.add_column(heading, justify="right" if heading in ("chance", "then") else "left")
    left_out = 0
    for index, group in enumerate(found.groups):
        hit = marked is not None and frozenset(group.choices) == marked
        if shown is not None and index >= shown and not hit:
            left_out += 1
            continue
        every = group_cells(group, found.units)
        cells = [every[i] for i in kept]
        if marked is None:
            table.add_row(*cells)
        else:
            table.add_row("▶" if hit else "", *cells, style="bold" if hit else "")
    return table, left_out
