"""Small screens over the game: help, quit confirmation, a bust, the end of a game."""

from __future__ import annotations

from typing import ClassVar, TypeVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.events import Key
from textual.screen import ModalScreen
from textual.widgets import Static

T = TypeVar("T")

# Every key of the game, for the help screen (the bindings are declared where they act).
KEYS: tuple[tuple[str, str], ...] = (
    ("r", "roll the dice (again)"),
    ("s", "stop: your runners become your pieces"),
    ("1-9", "play that choice"),
    ("↑ ↓  Enter", "highlight a choice (previewed on the board as ◇), play it"),
    ("a", "advice on/off: bust chance, chance of each choice, what the Expert bot would do; "
          "once the game is over: analyse it"),
    ("m", "roll map: what the next roll can bring; roll on or stop?"),
    ("u", "undo your last choice (practice games: you alone against bots)"),
    ("space", "bots: play their next step now"),
    ("f", "bots: fast-forward to the next person's turn"),
    ("n", "new game with the same seats (once a game is over)"),
    ("?", "this help"),
    ("q  Ctrl-C", "quit (asks first; the game is already saved)"),
)

LEGEND = (
    "Board: A-D are the players' pieces (each in its colour), ◆ a runner of the player "
    "to move, ◇ where the highlighted choice would put a runner. A column filled with a "
    "letter is claimed by that player. Column numbers frame each column. "
    "A die showing T is a wild turtle: it counts as any value."
)



class Dialog(ModalScreen[T]):
    """A box in the middle of the screen over the dimmed game."""

    DEFAULT_CSS = """
    Dialog { align: center middle; }
    Dialog > Vertical { width: 76; height: auto; max-height: 22; border: thick $accent;
                        background: $surface; padding: 0 1; }
    """


class HelpScreen(Dialog[None]):
    DEFAULT_CSS = "HelpScreen > Vertical { max-height: 100%; }"  # every key, even at 24 lines
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,question_mark,q,enter", "dismiss", "Close")]

    def __init__(self, keys: tuple[tuple[str, str], ...] = KEYS) -> None:
        super().__init__()
        self.keys = keys

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold cyan", no_wrap=True)
        table.add_column()
        for key, what in self.keys:
            table.add_row(key, what)
        with Vertical():
            yield Static(Text("Keys", style="bold"))
            yield Static(table)
            yield Static(Text(LEGEND, style="grey70"))
            yield Static(Text("Esc or ? closes this help.", style="italic"))


class ConfirmQuit(Dialog[bool]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes, quit"),
        Binding("n,escape", "answer(False)", "No, keep playing"),
        Binding("ctrl+c", "answer(True)", show=False, priority=True),
    ]

    def __init__(self, detail: str) -> None:
        super().__init__()
        self.detail = detail

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("Quit Can't Stop?", style="bold"))
            yield Static(self.detail)
            yield Static(Text("y: quit   n or Esc: keep playing", style="bold cyan"))

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)


class Notice(Dialog[None]):
    """A message that waits for a key: a bust, so the player sees it before play passes."""

    DEFAULT_CSS = "Notice > Vertical { border: thick $error; }"

    def __init__(self, title: str, body: Text | str) -> None:
        super().__init__()
        self.title_text, self.body = title, body

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.title_text, style="bold red"))
            yield Static(self.body)
            yield Static(Text("Press any key to go on.", style="italic"))

    def on_key(self, event: Key) -> None:
        event.stop()
        if event.key not in ("ctrl+c", "ctrl+q"):
            self.dismiss()


class GameOver(Dialog[str]):
    """The result; answers 'again', 'analyse', 'quit' or 'board' (close to look at the board)."""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n,enter", "answer('again')", "Play again"),
        Binding("a", "answer('analyse')", "Analyse"),
        Binding("q", "answer('quit')", "Quit"),
        Binding("escape", "answer('board')", "Look at the board"),
    ]

    def __init__(self, summary: Text) -> None:
        super().__init__()
        self.summary = summary

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.summary)
            yield Static(
                Text("n or Enter: play again with the same seats   a: analyse the game\n"
                     "q: quit   Esc: see the board", style="bold cyan")
            )

    def action_answer(self, answer: str) -> None:
        self.dismiss(answer)
