"""Widgets shared by the game and the replay: the board, the dice, the players, size guard."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.app import RenderResult
from textual.binding import Binding
from textual.events import Resize
from textual.geometry import Size
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from cantstop.board import board_size, cell_width, render_board, seat_style, seat_tag
from cantstop.core.dice import Dice
from cantstop.core.state import State
from cantstop.core.variant import Variant
from cantstop.table.wording import die_labels
from cantstop.tui.session import columns_text

MIN_WIDTH, MIN_HEIGHT = 80, 24
# Stepping through a game, the same keys in the replay and the analysis: an event (or a
# decision) at a time, and a turn at a time.
STEP_KEYS = (
    Binding("right,l", "step(1)", "Next"),
    Binding("left,h", "step(-1)", "Back"),
    Binding("down,j", "turn(1)", "Next turn"),
    Binding("up,k", "turn(-1)", "Prev turn"),
)
NAME_WIDTH = 17  # "Rule-of-28 bot B" whole; with four two-digit claims the line fits the side panel
SPARE_LINES = 8  # kept for the log under the board before the board spreads out


class BoardView(Widget):
    """The board of a state, with an optional preview of a choice; cells widen with room."""

    DEFAULT_CSS = "BoardView { height: auto; width: 1fr; content-align: center top; }"

    def __init__(self, state: State, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.state = state
        self.preview: State | None = None

    def show(self, state: State, preview: State | None = None) -> None:
        self.state, self.preview = state, preview
        self.refresh(layout=True)

    def render(self) -> RenderResult:
        cell = cell_width(self.state, self.size.width or MIN_WIDTH, self.size.height)
        spaced = self.size.height >= board_size(self.state, cell, spaced=True)[1]
        return render_board(self.state, self.preview, cell, spaced)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        # Blank lines between the rows when the screen is tall enough to keep a log below.
        spaced = board_size(self.state, 3, spaced=True)[1]
        return spaced if container.height - spaced >= SPARE_LINES else board_size(self.state, 3)[1]

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return board_size(self.state, 3)[0]


def dice_text(dice: Dice | None, variant: Variant) -> Text:
    """The dice as little boxes; wild (turtle) faces are marked T."""
    if not dice:
        return Text("no roll yet", style="grey50")
    text = Text()
    for label in die_labels(variant, dice):
        text.append(f" {label} ", style="bold black on white")
        text.append(" ")
    return text


def players_text(state: State, names: list[str], bots: list[bool]) -> Text:
    """One line per seat: letter, name, columns claimed; the seat to move is marked."""
    text = Text(f"    {'player':<{NAME_WIDTH}} claimed\n", style="grey50")
    for seat, name in enumerate(names):
        if seat:
            text.append("\n")
        mover = seat == state.seat and not state.is_over
        text.append("▶ " if mover else "  ", style="bold")
        text.append_text(seat_tag(seat))
        # Bots' names say "bot" ("Rule-of-28 bot B"); italics mark them too, whatever a record calls them.
        style = Style.combine([seat_style(seat) if mover else Style(), Style(italic=bots[seat])])
        text.append(f" {name[:NAME_WIDTH]:<{NAME_WIDTH}}", style=style)
        # Compact, so that four two-digit columns fit the side panel without wrapping.
        text.append(f" {columns_text(state, seat, ',')}")
    return text


class TooSmall(Static):
    """Shown instead of the screen when the terminal is smaller than the game needs."""

    DEFAULT_CSS = """
    TooSmall { display: none; width: 1fr; height: 1fr; content-align: center middle;
               text-align: center; background: $error 30%; }
    """


class SizedScreen(Screen[None]):
    """A screen that replaces itself by a clear message when the terminal is too small."""

    DEFAULT_CSS = """
    SizedScreen.-small > * { display: none; }
    SizedScreen.-small > TooSmall { display: block; }
    """

    def on_resize(self, event: Resize) -> None:
        self.check_size(event.size.width, event.size.height)

    def on_mount(self) -> None:
        self.check_size(self.app.size.width, self.app.size.height)

    def check_size(self, width: int, height: int) -> None:
        small = width < MIN_WIDTH or height < MIN_HEIGHT
        self.set_class(small, "-small")
        if small:
            self.query_one(TooSmall).update(
                f"The terminal is {width}×{height}.\n"
                f"Can't Stop needs at least {MIN_WIDTH}×{MIN_HEIGHT}:\n"
                "please make the window bigger."
            )
