"""The terminal game's application: a start screen or a game, quitting only when confirmed."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from cantstop.core.dice import DiceSource, SeededDice
from cantstop.core.variant import Variant, preset
from cantstop.tui.game_screen import GameScreen
from cantstop.tui.messages import NewGame
from cantstop.tui.modals import ConfirmQuit
from cantstop.tui.seats import Seat
from cantstop.tui.session import Session
from cantstop.tui.start_screen import StartScreen
from cantstop.tui.terminal import leave_with_the_terminal


@dataclass
class PlayConfig:
    """What `cantstop play` was asked for; with no seats, the start screen asks."""

    records: Path
    seats: list[Seat] | None = None
    variant: Variant = field(default_factory=lambda: preset("classic"))
    seed: int | None = None
    first: int | None = None
    dice: DiceSource | None = None
    bot_delay: float = 0.7
    notices: list[str] = field(default_factory=list)
    resume: Session | None = None


class CantStopApp(App[str]):
    """Returns the path of the last record when it exits."""

    TITLE = "Can't Stop"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "request_quit", "Quit", show=False, priority=True),
        Binding("ctrl+q", "request_quit", "Quit", show=False, priority=True),
        Binding("q", "request_quit", "Quit"),
    ]

    def __init__(self, config: PlayConfig) -> None:
        super().__init__()
        self.config = config
        self.session: Session | None = None
        self.games = 0

    def on_mount(self) -> None:
        leave_with_the_terminal(self)
        c = self.config
        if c.resume is not None:
            self.show_game(c.resume, c.notices)
        elif c.seats is not None:
            self.new_game(c.seats, c.variant, c.notices)
        else:
            self.push_screen(StartScreen(str(c.records)))

    def on_new_game(self, message: NewGame) -> None:
        self.new_game(message.seats, message.variant, message.notices)

    def new_game(self, seats: list[Seat], variant: Variant, notices: list[str] | None = None) -> None:
        c = self.config
        # Each game gets its own dice; a seeded first game makes seeded later ones.
        if c.dice is not None and self.games == 0:
            dice = c.dice
        elif c.seed is not None:
            dice = SeededDice(f"{c.seed}:{self.games}" if self.games else c.seed)
        else:
            dice = SeededDice()
        session = Session.start(seats, variant, c.records, dice, c.first, c.seed)
        self.show_game(session, notices)

    def show_game(self, session: Session, notices: list[str] | None) -> None:
        self.session = session
        self.games += 1
        screen = GameScreen(session, self.config.bot_delay, notices)
        if len(self.screen_stack) > 1:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    def action_request_quit(self) -> None:
        if isinstance(self.screen, ConfirmQuit):
            return
        if self.session is None:
            detail = "No game has started yet."
        elif self.session.state.is_over:
            self.exit(str(self.session.path))
            return
        else:
            path = self.session.path
            detail = f"The game is saved in {path}\nContinue it later with:\n  cantstop play --resume {path}"
        self.push_screen(ConfirmQuit(detail), self.quit_answer)

    def quit_answer(self, answer: bool | None) -> None:
        if answer:
            self.exit(str(self.session.path) if self.session else None)
