"""The start screen: up to four seats (a person, a bot level or bot, or empty) and the variant."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Footer, Input, Select, Static

from cantstop.bots import bot_names, get_bot
from cantstop.core.errors import SetupError, UnknownBotError
from cantstop.core.variant import PRESET_TITLES, PRESETS, preset
from cantstop.tui.messages import NewGame
from cantstop.tui.seats import BOT_PREFIX, LEVELS, check_name, check_seats, parse_seats, resolve_bot
from cantstop.tui.widgets import SizedScreen, TooSmall

PERSON, EMPTY = "person", "empty"
DEFAULT_KINDS = (PERSON, "bot:medium", "bot:medium", EMPTY)
DEFAULT_NAMES = ("You", "Player 2", "Player 3", "Player 4")


def kind_options() -> list[tuple[str, str]]:
    """Person, then every bot once by its display name: the levels' own bots first."""
    options = [("Person", PERSON)]
    by_level = set()
    for level in LEVELS:
        info, _ = resolve_bot(level.value)
        by_level.add(info.name)
        options.append((f"{info.display} ({level.value})", BOT_PREFIX + level.value))
    options += [
        (f"{get_bot(name).display} ({get_bot(name).level.value})", BOT_PREFIX + name)
        for name in bot_names()
        if name not in by_level
    ]
    options.append(("Empty seat", EMPTY))
    return options


class StartScreen(SizedScreen):
    DEFAULT_CSS = """
    StartScreen { align: center top; }
    #form { width: 76; height: auto; padding: 0 1; }
    .seat { height: 3; }
    .seat Select { width: 34; }
    .seat Input { width: 1fr; }
    .label { width: 8; padding: 1 0; }
    #variant-row { height: 3; }
    #variant { width: 1fr; }
    #start { width: 100%; margin-top: 1; }
    #problem { color: $error; height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+s", "start", "Start the game"), Binding("escape", "app.request_quit", "Quit")]

    def __init__(self, records: str) -> None:
        super().__init__()
        self.records = records

    def compose(self) -> ComposeResult:
        yield TooSmall()
        with Vertical(id="form"):
            yield Static(Text("Can't Stop — who plays?", style="bold"))
            for i in range(4):
                with Horizontal(classes="seat"):
                    yield Static(f"Seat {'ABCD'[i]}", classes="label")
                    yield Select(kind_options(), value=DEFAULT_KINDS[i], allow_blank=False, id=f"kind{i}")
                    yield Input(DEFAULT_NAMES[i], id=f"name{i}", tooltip="the name shown on the board and in the record")
            with Horizontal(id="variant-row"):
                yield Static("Rules", classes="label")
                yield Select([(PRESET_TITLES[name], name) for name in PRESETS], value="classic", allow_blank=False, id="variant")
            yield Static(id="problem")
            yield Button("Start (Ctrl-S)", id="start", variant="success")
            yield Static(Text(f"Records are saved in {self.records}", style="grey50"))
        yield Footer()

    def on_mount(self) -> None:
        for i in range(4):
            self.sync_name(i)

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id and event.select.id.startswith("kind"):
            self.sync_name(int(event.select.id[4:]))

    def sync_name(self, i: int) -> None:
        kind = self.query_one(f"#kind{i}", Select).value
        self.query_one(f"#name{i}", Input).display = kind == PERSON

    def spec(self) -> str:
        parts = []
        for i in range(4):
            kind = self.query_one(f"#kind{i}", Select).value
            if kind == PERSON:
                parts.append(self.query_one(f"#name{i}", Input).value.strip() or f"Player {i + 1}")
            elif kind != EMPTY:
                parts.append(str(kind))
        return ",".join(parts)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.action_start()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_start()

    def action_start(self) -> None:
        problem = self.query_one("#problem", Static)
        variant = preset(str(self.query_one("#variant", Select).value))
        try:
            for i in range(4):  # before joining: a ',' in a name would split it into two seats
                if self.query_one(f"#kind{i}", Select).value == PERSON:
                    check_name(self.query_one(f"#name{i}", Input).value.strip())
            seats, notices = parse_seats(self.spec())
        except (SetupError, UnknownBotError) as error:
            problem.update(str(error) if self.spec() else "Fill at least one seat.")
            return
        try:
            check_seats(seats, variant)
        except SetupError as error:
            problem.update(f"{error}. Change a seat or the rules.")
            return
        self.post_message(NewGame(seats, variant, notices))
