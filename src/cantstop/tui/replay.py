"""`cantstop replay FILE --tui`: step through a recorded game forwards and backwards."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from cantstop.analysis import Grade
from cantstop.analysis.wording import decision_text, roll_text, values_text
from cantstop.board import seat_style
from cantstop.core.notation import seat_letter
from cantstop.core.record import Record, Roll
from cantstop.core.state import Phase, turn_ended
from cantstop.table.happenings import Busted, Claimed, Stopped, Won, told
from cantstop.table.wording import choices_text, explain_bust, say
from cantstop.tui.analysed import Analysed
from cantstop.tui.analysis_screen import AnalysisScreen, event_notes
from cantstop.tui.modals import HelpScreen
from cantstop.tui.terminal import leave_with_the_terminal
from cantstop.tui.widgets import (
    STEP_KEYS,
    BoardView,
    SizedScreen,
    TooSmall,
    dice_text,
    players_text,
)

REPLAY_KEYS = (
    ("→ ←", "next / previous event"),
    ("↓ ↑  PgDn PgUp", "next / previous turn"),
    ("Home End", "start / end of the game"),
    ("a", "the analysis on/off: each player's accuracy and luck, every decision's options and "
          "roll map; once it is worked out, each event shows its grade and luck here"),
    ("q", "quit"),
)


def event_lines(record: Record) -> list[Text]:
    """One line per event: 'T3 A Ann rolls 1 5 4 6: 6+10, 5+11' and so on."""
    lines = []
    for before, happened, _ in told(record):
        seat = before.seat
        text = Text(f"T{before.turn + 1} ", style="grey50")
        text.append(seat_letter(seat), style=seat_style(seat, reverse=True))
        for happening in happened:
            style = "bold red" if isinstance(happening, Busted) else "bold" if isinstance(happening, Stopped | Claimed | Won) else ""
            text.append(" " + say(happening, record.players, record.variant, brief=True), style=style)
        lines.append(text)
    return lines


class ReplayScreen(SizedScreen):
    DEFAULT_CSS = """
    #status { height: 1; background: $primary-background; padding: 0 1; }
    #main { height: 1fr; }
    #left { width: 1fr; }
    #board { padding: 0 1; }
    #detail { height: auto; padding: 0 1; border-top: solid $primary; }
    #side { width: 36; border-left: solid $primary; }
    #players { height: auto; padding: 0 1; }
    #events { height: 1fr; border: none; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        *STEP_KEYS,
        Binding("pagedown", "turn(1)", "Next turn", show=False),
        Binding("pageup", "turn(-1)", "Prev turn", show=False),
        Binding("home", "go(0)", "Start"),
        Binding("end", "go(-1)", "End"),
        Binding("a", "analysis", "Analysis"),
        Binding("question_mark", "help", "Help"),
        Binding("q,escape", "app.quit", "Quit"),
    ]

    def __init__(self, record: Record, title: str) -> None:
        super().__init__()
        self.record = record
        self.title_text = title
        self.analysed = Analysed(record)
        self.states = self.analysed.states
        self.lines = event_lines(record)
        self.annotated = False  # whether the events carry their grades and luck yet
        self.index = 0  # a replay starts where the game did; End jumps to the end

    def compose(self) -> ComposeResult:
        yield TooSmall()
        yield Static(id="status")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield BoardView(self.states[0], id="board")
                yield Static(id="detail")
            with Vertical(id="side"):
                yield Static(id="players")
                events = OptionList(*[Option(line) for line in self.lines], id="events")
                events.can_focus = False  # the screen's keys step the game, not the list
                yield events
        yield Footer()

    def on_mount(self) -> None:
        self.show()

    def show(self) -> None:
        self.annotate()
        i = self.index
        state = self.states[i]
        event = self.record.events[i - 1] if i else None
        before = self.states[i - 1] if i else state
        busted = isinstance(event, Roll) and state.turn != before.turn
        self.query_one(BoardView).show(before if busted else state)
        status = Text(f"Replay {self.title_text} · event {i}/{len(self.states) - 1} · ")
        if state.is_over:
            won = Won(state.seat, state.turn, alone=state.num_players == 1)
            status.append(say(won, self.record.players, state.variant).rstrip("."), style="bold")
        else:
            status.append(f"turn {state.turn + 1}")
        self.query_one("#status", Static).update(status)
        self.query_one("#players", Static).update(
            players_text(state, self.record.players, [False] * len(self.record.players))
        )
        detail = Text()
        if event is None:
            detail.append("The start of the game. → steps forward, End jumps to the end, a analyses the game.")
        else:
            detail.append_text(self.lines[i - 1])
            if isinstance(event, Roll):
                detail.append("\nDice ")
                detail.append_text(dice_text(tuple(event), state.variant))
                if busted:
                    detail.append("\n" + explain_bust(before, tuple(event)), style="red")
                else:
                    detail.append("\nChoices: " + choices_text(state.options))
        detail.append_text(self.judged(i))
        self.query_one("#detail", Static).update(detail)
        events = self.query_one("#events", OptionList)
        events.highlighted = i - 1 if i else None

    def action_step(self, delta: int) -> None:
        self.index = max(0, min(len(self.states) - 1, self.index + delta))
        self.show()

    def action_go(self, where: int) -> None:
        self.index = where % len(self.states)
        self.show()

    def action_turn(self, delta: int) -> None:
        """Jump to the start of the next or previous turn (where the dice are to be rolled)."""
        starts = [i for i, s in enumerate(self.states) if s.phase in (Phase.ROLL, Phase.OVER)
                  and (i == 0 or turn_ended(self.states[i - 1], s))]
        if delta > 0:
            later = [i for i in starts if i > self.index]
            self.index = later[0] if later else len(self.states) - 1
        else:
            earlier = [i for i in starts if i < self.index]
            self.index = earlier[-1] if earlier else 0
        self.show()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(REPLAY_KEYS))

    def action_analysis(self) -> None:
        """The analysis view, at the first decision from the event on show; back at the one left on."""
        screen = AnalysisScreen(self.analysed, self.index or None)
        self.app.push_screen(screen, lambda _: self.analysis_closed(screen.ply))

    def analysis_closed(self, ply: int | None) -> None:
        if ply is not None:
            self.index = ply
        self.show()

    def annotate(self) -> None:
        """Once the analysis is there, each event's line gets its grade mark and luck."""
        analysis = self.analysed.analysis
        if analysis is None or self.annotated:
            return
        self.annotated = True
        notes = event_notes(analysis)
        for ply, note in notes.items():
            self.lines[ply - 1] = self.lines[ply - 1] + note
        events = self.query_one("#events", OptionList)
        events.clear_options()
        events.add_options([Option(line) for line in self.lines])

    def judged(self, ply: int) -> Text:
        """What the analysis says of event `ply`: its decisions and roll, and the chances after it."""
        analysis = self.analysed.analysis
        if analysis is None or ply == 0:
            return Text()
        units = analysis.units
        said = [decision_text(d, units) for d in analysis.decisions if d.ply == ply and d.grade is not Grade.FORCED]
        said += [roll_text(r, units) for r in analysis.rolls if r.ply == ply]
        text = Text("".join(f"\nAnalysis: {line}" for line in said), style="cyan")
        point = next((p for p in analysis.points if p.ply == ply), None)
        if point is not None:
            text.append(f"\nAfter it: {values_text(point, units)}", style="grey70")
        return text


class ReplayApp(App[None]):
    TITLE = "Can't Stop replay"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [Binding("q", "quit", "Quit")]  # the analysis view's too

    def __init__(self, record: Record, path: Path) -> None:
        super().__init__()
        self.record, self.path = record, path

    def on_mount(self) -> None:
        leave_with_the_terminal(self)
        self.push_screen(ReplayScreen(self.record, self.path.name))


def run_replay(record: Record, path: Path) -> None:
    ReplayApp(record, path).run()
