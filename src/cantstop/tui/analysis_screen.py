"""The analysis of a finished game in the terminal: the report, then decision by decision.

Two views. The report: the result and the value model, each player's accuracy, loss, luck
and grade counts, the chance-to-win graph, the biggest mistakes and swings, and every turn
with its grade marks and each player's chance after it. The decisions (→ from the report):
the position on the board, every option with its value, the best, the loss and grade, and
the roll map of the position before the roll. The game screen opens it once a game is over,
the replay with a key; the analysis itself runs in a worker thread (`Analysed`).
"""

from __future__ import annotations

import asyncio
from typing import ClassVar

from rich.color import Color
from rich.console import Group, RenderableType
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Resize
from textual.widgets import ContentSwitcher, Footer, Static

from cantstop.analysis import GameAnalysis, Grade, Units
from cantstop.analysis.game import RESIGN, DecisionNote
from cantstop.analysis.graph import terminal_graph
from cantstop.analysis.rollmap import RollMap
from cantstop.analysis.tables import summary_table, turns_table
from cantstop.analysis.wording import (
    LOSSES,
    TurnRow,
    corrections_line,
    decision_text,
    headline,
    mark,
    mistake_lines,
    result_text,
    swing_lines,
    turn_rows,
    value_text,
    values_line,
    values_text,
)
from cantstop.board import COLOURS, seat_style
from cantstop.core.choices import format_choice
from cantstop.core.notation import seat_letter
from cantstop.core.state import Phase, State
from cantstop.tui.analysed import Analysed
from cantstop.tui.modals import HelpScreen
from cantstop.tui.roll_map import WORKING, roll_map_view
from cantstop.tui.widgets import STEP_KEYS, BoardView, SizedScreen, TooSmall, dice_text

ANALYSING = (
    "Analysing the game… The first analysis in a session loads the value model and compiles "
    "its kernels (some seconds); later ones take a second or two."
)
ANALYSIS_KEYS: tuple[tuple[str, str], ...] = (
    ("↓ ↑  PgDn PgUp", "the report: scroll"),
    ("→  Enter", "the report: step into the decisions"),
    ("→ ←", "next / previous decision (each with more than one option)"),
    ("↓ ↑", "first decision of the next / previous turn"),
    ("Home End", "first / last decision"),
    ("PgDn PgUp", "decisions: scroll the options and the roll map"),
    ("x", "the next inaccuracy, mistake or blunder (?! ? ??)"),
    ("Esc", "from the decisions back to the report; from the report, close"),
    ("a", "close the analysis"),
    ("?", "this help"),
)
GRAPH_HEIGHT = 16
SIDE_MIN, SIDE_MAX = 34, 56  # the decision panel's width: the board keeps 46 columns at 80
ROOMY = 42  # a decision panel this wide lists example dice in the roll map
OVERVIEW, DECISIONS = "overview", "decisions"


def seat_styles(players: int) -> list[Style]:
    return [seat_style(seat) for seat in range(players)]


def seat_colours() -> list[int]:
    """The seats' colours as the graph draws them: the board's, by their terminal numbers, so
    the terminal's own red is the board's red."""
    return [Color.parse(name).number or 0 for name in COLOURS]


def event_notes(analysis: GameAnalysis) -> dict[int, Text]:
    """What each event of the record gets beside it: the grade of a decision that lost, mark
    and word ("?! inaccuracy": the word also lets a narrow list wrap the line, where a lone
    mark may not start a line), and a roll's luck (points of chance, or alone turns saved)."""
    notes: dict[int, Text] = {}
    for decision in analysis.decisions:
        if decision.grade in LOSSES:
            graded = f" {mark(decision.grade)} {decision.grade.value}"
            notes.setdefault(decision.ply, Text()).append(graded, style="bold yellow")
    for roll in analysis.rolls:
        luck = roll.luck if analysis.units is Units.CHANCE else -roll.luck
        shown = f"{roll.luck:+.1f}" if analysis.units is Units.CHANCE else f"{roll.luck:+.2f} turns"
        style = "green" if luck > 0 else "red" if luck < 0 else "grey50"
        notes.setdefault(roll.ply, Text()).append(f" luck {shown.replace('-', '−')}", style=style)
    return notes


class AnalysisScreen(SizedScreen):
    """A finished game's analysis; `ply` is the decision on show (None: the report)."""

    DEFAULT_CSS = """
    AnalysisScreen { layout: vertical; }
    AnalysisScreen #status { height: 1; background: $primary-background; padding: 0 1; }
    AnalysisScreen #views { height: 1fr; }
    AnalysisScreen #overview { padding: 0 1; }
    AnalysisScreen #overview > Static { margin-bottom: 1; }
    AnalysisScreen #dleft { width: 1fr; }
    AnalysisScreen #board { padding: 0 1; }
    AnalysisScreen #where { height: auto; padding: 0 1; border-top: solid $primary; }
    AnalysisScreen #side { width: 34; border-left: solid $primary; padding: 0 1; }
    AnalysisScreen #map { margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        # The same key does one thing in the report and another among the decisions:
        # `check_action` lets through the binding of the view on show.
        Binding("right,l,enter", "decisions", "Decisions"),
        *STEP_KEYS,
        Binding("down,j", "scroll(1)", "Scroll", show=False),
        Binding("up,k", "scroll(-1)", "Scroll", show=False),
        Binding("pagedown", "page(1)", "Page", show=False),
        Binding("pageup", "page(-1)", "Page", show=False),
        Binding("home", "go(0)", "First", show=False),
        Binding("end", "go(-1)", "Last", show=False),
        Binding("x", "mistake", "Next mistake"),
        Binding("escape", "report", "Report"),
        Binding("escape,a", "close", "Close"),
        Binding("question_mark", "help", "Help"),
    ]
    DECISION_ACTIONS = frozenset({"step", "turn", "report"})
    REPORT_ACTIONS = frozenset({"decisions", "scroll"})

    def __init__(self, analysed: Analysed, start: int | None = None) -> None:
        """`start`: open at the first decision from this event of the record on (else the report)."""
        super().__init__()
        self.analysed = analysed
        self.start = start
        self.notes: list[DecisionNote] = []
        self.rows: dict[int, TurnRow] = {}  # each turn's row, by its number
        self.at: int | None = None  # the decision on show, an index of `notes`
        self.graph_width = 0

    # ---------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        yield TooSmall()
        yield Static(id="status")
        with ContentSwitcher(initial=OVERVIEW, id="views"):
            with VerticalScroll(id=OVERVIEW, can_focus=False):
                yield Static(Text(ANALYSING, style="italic"), id="head")
                yield Static(id="summary")
                yield Static(id="graph")
                yield Static(id="lists")
                yield Static(id="turns")
            with Horizontal(id=DECISIONS):
                with Vertical(id="dleft"):
                    yield BoardView(self.analysed.states[0], id="board")
                    yield Static(id="where")
                with VerticalScroll(id="side", can_focus=False):
                    yield Static(id="options")
                    yield Static(id="map")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#side").styles.width = self.side_width()
        self.query_one("#status", Static).update("Analysis · analysing…")
        if self.analysed.done:
            self.fill()
        else:
            self.run_worker(self.work(), group="analysis")

    async def work(self) -> None:
        await asyncio.to_thread(self.analysed.compute)
        self.fill()

    @property
    def analysis(self) -> GameAnalysis | None:
        return self.analysed.analysis

    @property
    def ply(self) -> int | None:
        """The event of the record whose decision is on show; None on the report."""
        return None if self.at is None else self.notes[self.at].ply

    # ---------------------------------------------------------------- the report
    def fill(self) -> None:
        analysis = self.analysis
        status = self.query_one("#status", Static)
        head = self.query_one("#head", Static)
        if analysis is None:
            status.update("Analysis · none")
            head.update(Text(f"No analysis: {self.analysed.refusal}", style="bold red"))
            self.refresh_bindings()
            return
        status.update(f"Analysis · {result_text(analysis)}")
        self.notes = [d for d in analysis.decisions if d.grade is not Grade.FORCED]
        self.rows = {row.turn: row for row in turn_rows(analysis)}
        styles = seat_styles(len(analysis.players))
        text = Text(headline(analysis), style="bold")
        text.append(f"\n{values_line(analysis)}", style="grey70")
        text.append("\n→ steps through the decisions, x jumps to the next mistake, Esc closes.", style="italic")
        head.update(text)
        self.query_one("#summary", Static).update(summary_table(analysis, styles))
        self.draw_graph()
        self.query_one("#lists", Static).update(self.lists(analysis))
        self.query_one("#turns", Static).update(turns_table(analysis, styles))
        if self.start:
            later = [i for i, note in enumerate(self.notes) if note.ply >= self.start]
            if self.notes:
                self.select(later[0] if later else len(self.notes) - 1)
        self.refresh_bindings()

    def lists(self, analysis: GameAnalysis) -> Text:
        text = Text()
        mistakes = mistake_lines(analysis)
        if mistakes:
            text.append("Biggest mistakes\n", style="bold")
            text.append("".join(f"  {line}\n" for line in mistakes) + "\n")
        text.append("Biggest swings of luck\n", style="bold")
        text.append("".join(f"  {line}\n" for line in swing_lines(analysis)))
        corrections = corrections_line(analysis)
        if corrections is not None:
            text.append("\n" + corrections, style="grey70")
        text.rstrip()
        return text

    def draw_graph(self) -> None:
        analysis = self.analysis
        width = max(40, self.size.width - 4)
        if analysis is None or width == self.graph_width:
            return
        self.graph_width = width
        drawn = terminal_graph(analysis, True, width, GRAPH_HEIGHT, seat_colours())
        self.query_one("#graph", Static).update(Text.from_ansi(drawn))

    def side_width(self) -> int:
        """The decision panel's width: what the board leaves, within bounds."""
        return max(SIDE_MIN, min(SIDE_MAX, self.app.size.width - 46))

    def on_resize(self, event: Resize) -> None:
        self.draw_graph()
        self.query_one("#side").styles.width = self.side_width()
        if self.at is not None:  # the roll map's columns follow the panel's width
            note = self.notes[self.at]
            found = self.analysed.cached_roll_map(note)
            if found is not None:  # else it is still being worked out, and shown when it is
                self.show_map(note, found)

    # ---------------------------------------------------------------- a decision
    def select(self, index: int) -> None:
        self.at = index
        self.query_one(ContentSwitcher).current = DECISIONS
        note = self.notes[index]
        analysis = self.analysis
        assert analysis is not None
        before = self.analysed.states[note.ply - 1]
        chosen = {format_choice(c): c for c in before.options}.get(note.chosen) if before.phase is Phase.CHOOSE else None
        self.query_one(BoardView).show(before, None if chosen is None else before.play(chosen))
        name = analysis.players[note.seat]
        status = Text(f"Analysis · decision {index + 1} of {len(self.notes)} · turn {note.turn} · ")
        status.append(f"{seat_letter(note.seat)} {name}", style=seat_style(note.seat))
        self.query_one("#status", Static).update(status)
        self.query_one("#where", Static).update(self.where(analysis, note))
        self.query_one("#options", Static).update(self.options(analysis, note, before))
        self.query_one("#side", VerticalScroll).scroll_home(animate=False)
        found = self.analysed.cached_roll_map(note)
        if found is None and self.analysed.rolling_position(note) is not None:
            self.query_one("#map", Static).update(Text(WORKING, style="italic"))
            self.run_worker(self.load_map(note), group="rollmap", exclusive=True)
        else:
            self.show_map(note, found)
        self.refresh_bindings()

    def where(self, analysis: GameAnalysis, note: DecisionNote) -> Text:
        """The turn the decision is in: its events with their marks, and the values after it."""
        row = self.rows[note.turn]
        text = Text(f"Turn {note.turn} · ")
        text.append(f"{seat_letter(note.seat)} {analysis.players[note.seat]}", style=seat_style(note.seat))
        text.append(f": {row.words}")
        if row.after is not None:
            text.append(f"\nafter the turn: {values_text(row.after, analysis.units)}", style="grey70")
        return text

    def options(self, analysis: GameAnalysis, note: DecisionNote, before: State) -> RenderableType:
        """Every option with its value and how far from the best, the chosen one marked ▶."""
        units = analysis.units
        name = analysis.players[note.seat]
        if note.chosen == RESIGN:
            title = Text(f"{name} resigns")
        elif before.phase is Phase.CHOOSE:
            title = Text(f"{name} to choose: ")
            title.append_text(dice_text(before.dice, before.variant))
        else:
            title = Text(f"{name}: roll on or stop?")
        title.stylize("bold")
        table = Table(box=None, pad_edge=False)
        table.add_column("")
        table.add_column("option")
        table.add_column("chance" if units is Units.CHANCE else "turns", justify="right")
        table.add_column("vs best", justify="right")
        best = note.options[0].value
        for option in note.options:
            gap = option.value - best
            against = "best" if abs(gap) < 1e-9 else (f"{gap:+.1f}" if units is Units.CHANCE else f"{gap:+.2f}")
            mine = option.action == note.chosen
            table.add_row(
                "▶" if mine else "", option.action, value_text(option.value, units), against.replace("-", "−"),
                style="bold" if mine else "",
            )
        verdict = Text(decision_text(note, units))
        if note.grade in LOSSES:
            verdict.stylize("yellow")
        return Group(title, table, verdict)

    async def load_map(self, note: DecisionNote) -> None:
        found = await asyncio.to_thread(self.analysed.roll_map, note)
        if self.at is not None and self.notes[self.at] is note:
            self.show_map(note, found)

    def show_map(self, note: DecisionNote, found: RollMap | str | None) -> None:
        shown = self.query_one("#map", Static)
        if found is None:
            shown.update(Text("No roll was due before this decision.", style="grey70"))
            return
        if isinstance(found, str):
            shown.update(Text(f"No roll map: {found}", style="red"))
            return
        state = self.analysed.rolling_position(note)
        assert state is not None
        before = self.analysed.states[note.ply - 1]
        came = frozenset(format_choice(c) for c in before.options) if before.phase is Phase.CHOOSE else None
        title = Text("Roll map before the roll" if came is not None else "Roll map of this position", style="bold")
        if came is not None:
            title.append(" (▶ the roll that came)", style="grey70")
        roomy = self.side_width() >= ROOMY
        shown.update(Group(title, roll_map_view(found, state, marked=came, examples=roomy)))

    # ---------------------------------------------------------------- keys
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Each view's own bindings: the others are passed over, so a key can serve both."""
        if action in self.DECISION_ACTIONS:
            return self.at is not None
        if action in self.REPORT_ACTIONS:
            return self.at is None
        return True

    def action_decisions(self) -> None:
        if not self.notes:
            self.hint(self.nothing_to_step())
            return
        self.select(0)

    def nothing_to_step(self) -> str:
        if self.analysis is None:
            return "No decisions to show: " + ("the analysis is still running." if not self.analysed.done else "there is no analysis.")
        return "No decision of this game had more than one option."

    def action_step(self, delta: int) -> None:
        if self.at is not None:
            self.select(max(0, min(len(self.notes) - 1, self.at + delta)))

    def action_turn(self, delta: int) -> None:
        """The first decision of the next turn; back: of this turn, or of the one before."""
        if self.at is None:
            return
        firsts = [i for i, note in enumerate(self.notes) if i == 0 or self.notes[i - 1].turn != note.turn]
        if delta > 0:
            later = [i for i in firsts if i > self.at]
            self.select(later[0] if later else len(self.notes) - 1)
        else:
            earlier = [i for i in firsts if i < self.at]
            self.select(earlier[-1] if earlier else 0)

    def action_go(self, where: int) -> None:
        if self.at is None:
            overview = self.query_one(f"#{OVERVIEW}", VerticalScroll)
            overview.scroll_home(animate=False) if where == 0 else overview.scroll_end(animate=False)
        elif self.notes:
            self.select(where % len(self.notes))

    def action_scroll(self, delta: int) -> None:
        overview = self.query_one(f"#{OVERVIEW}", VerticalScroll)
        overview.scroll_relative(y=delta, animate=False)

    def action_page(self, delta: int) -> None:
        pane = self.query_one("#side" if self.at is not None else f"#{OVERVIEW}", VerticalScroll)
        pane.scroll_page_down(animate=False) if delta > 0 else pane.scroll_page_up(animate=False)

    def action_mistake(self) -> None:
        """The next decision (after the one on show, round to the start) that lost enough to be marked."""
        marked = [i for i, note in enumerate(self.notes) if note.grade in LOSSES]
        if not marked:
            self.hint(self.nothing_to_step() if not self.notes else "No inaccuracy, mistake or blunder in this game.")
            return
        after = [i for i in marked if self.at is None or i > self.at]
        self.select(after[0] if after else marked[0])

    def action_report(self) -> None:
        self.at = None
        self.query_one(ContentSwitcher).current = OVERVIEW
        status = "analysing…" if self.analysis is None else result_text(self.analysis)
        self.query_one("#status", Static).update(f"Analysis · {status}")
        self.refresh_bindings()

    def action_close(self) -> None:
        self.dismiss()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(ANALYSIS_KEYS))

    def hint(self, text: str) -> None:
        self.notify(text, timeout=3)
