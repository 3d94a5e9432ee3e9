"""The game: board, players, dice, choices, advice and log; people act by keys, bots on their own."""

from __future__ import annotations

import asyncio
import time
from functools import partial
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Footer, OptionList, RichLog, Static
from textual.widgets.option_list import Option
from textual.worker import Worker

from cantstop.analysis.rollmap import not_rolling
from cantstop.board import seat_style
from cantstop.bots.advice import advise
from cantstop.core.choices import format_choice
from cantstop.core.dice import Dice
from cantstop.core.errors import CantStopError, PhaseError, UnknownBotError
from cantstop.core.notation import seat_letter
from cantstop.core.odds import next_roll, percent
from cantstop.core.state import STOP, Phase, State
from cantstop.table import (
    Busted,
    Claimed,
    FellBack,
    Happening,
    Move,
    Rolled,
    SeatFailed,
    Stopped,
    Won,
)
from cantstop.table.move import ROLL_MOVE, STOP_MOVE
from cantstop.table.wording import explain_bust, roll_off_line, say, turns_text, verb
from cantstop.tui.analysed import Analysed
from cantstop.tui.analysis_screen import AnalysisScreen
from cantstop.tui.messages import NewGame
from cantstop.tui.modals import GameOver, HelpScreen, Notice
from cantstop.tui.roll_map import RollMapScreen
from cantstop.tui.seats import resolve_bot
from cantstop.tui.session import Session, columns_text
from cantstop.tui.widgets import BoardView, SizedScreen, TooSmall, dice_text, players_text

PHASE_WORDS = {Phase.ROLL: "to roll", Phase.CHOOSE: "to choose", Phase.DECIDE: "to roll or stop"}
FAST_FORWARD_LIMIT = 20_000  # bot steps; far beyond any real game, a guard against a looping bot
FAST_FORWARD_SLICE = 0.25  # seconds of bot moves played at once; then keys get their turn


class GameScreen(SizedScreen):
    DEFAULT_CSS = """
    GameScreen { layout: vertical; }
    #status { height: 1; background: $primary-background; padding: 0 1; }
    #main { height: 1fr; }
    #left { width: 1fr; }
    #board { padding: 0 1; }
    #log { height: 1fr; min-height: 3; border-top: solid $primary; }
    #side { width: 34; border-left: solid $primary; padding: 0 1; }
    #players, #dice, #advice, #hint { height: auto; }
    #dice { margin-top: 1; }
    #choices { height: auto; max-height: 9; border: none; padding: 0; }
    #advice { color: $text-muted; }
    #buttons { height: 3; dock: bottom; }
    #buttons Button { width: 1fr; min-width: 8; }
    /* A coloured button reads as pressable even when disabled: grey it out entirely. */
    #buttons Button:disabled { background: $panel; color: $text-muted; border: tall $panel; tint: $background 40%; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "roll", "Roll"),
        Binding("s", "stop", "Stop"),
        Binding("a", "advice", "Advice"),
        Binding("a", "analyse", "Analyse"),  # once the game is over: `check_action` picks
        Binding("m", "roll_map", "Roll map"),
        Binding("u", "undo", "Undo"),
        Binding("f", "fast", "Fast-forward"),
        Binding("space", "step", "Bot step", show=False),
        Binding("n", "again", "New game"),
        Binding("question_mark", "help", "Help"),
        *(Binding(str(n), f"choose({n})", show=False) for n in range(1, 10)),
    ]

    def __init__(self, session: Session, bot_delay: float = 0.7, notices: list[str] | None = None) -> None:
        super().__init__()
        self.session = session
        self.bot_delay = bot_delay
        self.notices = list(dict.fromkeys(notices or []))  # two medium bots: one notice
        self.advice_on = False
        self.bust_view: tuple[State, Dice] | None = None  # the board as it was when a bust hit
        self.last_dice: Dice | None = None
        self.bot_worker: Worker[None] | None = None  # the bot's next move, thinking or waiting
        self.waiting = False  # a modal is up: bots wait too
        self.footer_over = False  # whether the footer shows the keys of a finished game
        self.fast = False  # fast-forwarding: bots move without a pause until a person is to move
        self.bots_ready = asyncio.Event()  # set once every bot seat is ready (compiled, loaded)
        self.compiling: set[str] = set()  # the bots numba compiled for, said once each in the log
        self.analysed: Analysed | None = None  # the finished game's analysis, once asked for
        self.no_roll_map: str | None = None  # why this game has no roll map, once a try said so

    # ---------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        yield TooSmall()
        yield Static(id="status")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield BoardView(self.session.state, id="board")
                yield RichLog(id="log", wrap=True, min_width=20)
            with Vertical(id="side"):
                yield Static(id="players")
                yield Static(id="dice")
                yield OptionList(id="choices")
                yield Static(id="advice")
                with Horizontal(id="buttons"):
                    yield Button("Roll (r)", id="roll", variant="success")
                    yield Button("Stop (s)", id="stop", variant="error")
        yield Footer()

    def on_mount(self) -> None:
        for button in self.query(Button):
            button.can_focus = False
        s = self.session
        names = ", ".join(f"{seat_letter(i)} {seat.name}" for i, seat in enumerate(s.seats))
        goal = (f"Claim {s.variant.to_win} columns in as few turns as you can; busted turns count."
                if len(s.seats) == 1 else f"First to claim {s.variant.to_win} columns wins.")
        self.note(f"{s.variant.name}: {names}. {goal}", "bold")
        roll_off = s.table.record.tags.get("RollOff")
        if roll_off:
            self.note(roll_off_line(roll_off))
        if s.state.turn or s.state.phase is not Phase.ROLL or s.table.record.events:
            self.note(f"Resumed at turn {s.state.turn + 1}.")
        self.note(f"Saving the record to {s.path}")
        for notice in self.notices:
            self.note(notice, "yellow")
        self.note("Press ? for every key.", "italic")
        self.update_view()
        self.run_worker(self.prepare_bots(), group="prepare")
        self.after_change()

    async def prepare_bots(self) -> None:
        """Get the bot seats ready (what their first move would compile or load) off the event
        loop, before any of them moves; the log says when numba compiles, a first run's cost."""
        told = partial(self.app.call_from_thread, self.compiling_for)
        await asyncio.to_thread(self.session.prepare_bots, told)
        if self.compiling:
            self.note("Ready.", "yellow")
        self.bots_ready.set()

    def compiling_for(self, display: str) -> None:
        if display not in self.compiling:
            self.compiling.add(display)
            self.note(f"Compiling the {display}'s kernels (first run only: they are kept for next time)…", "yellow")

    # ---------------------------------------------------------------- view
    def note(self, text: str | Text, style: str = "") -> None:
        self.query_one("#log", RichLog).write(Text(text, style=style) if isinstance(text, str) else text)

    def seat_name(self, seat: int | None = None) -> str:
        s = self.session
        return s.seats[s.state.seat if seat is None else seat].name

    def update_view(self) -> None:
        s = self.session
        state = s.state
        board = self.query_one(BoardView)
        if self.bust_view is not None and self.waiting:  # a person reads about their bust: its runners stay
            board.show(self.bust_view[0])
        else:
            board.show(state, self.preview_state())
        self.query_one("#status", Static).update(self.status_text())
        if self.footer_over != state.is_over:  # redrawing the footer is costly: only when it changes
            self.footer_over = state.is_over
            self.refresh_bindings()
        # While a person's bust message is up, the turn shown is still the busted one.
        shown = self.bust_view[0] if self.bust_view is not None and self.waiting else state
        self.query_one("#players", Static).update(
            players_text(shown, [x.name for x in s.seats], [not x.is_person for x in s.seats])
        )
        dice = state.dice if state.phase is Phase.CHOOSE else self.last_dice
        line = Text("Dice  ")
        line.append_text(dice_text(dice, s.variant))
        if self.bust_view is not None:
            line.append("BUST", style="bold white on red")
        self.query_one("#dice", Static).update(line)
        self.fill_choices()
        self.query_one("#advice", Static).update(self.advice_text())
        person = s.seat.is_person and not state.is_over
        self.query_one("#roll", Button).disabled = not (person and state.phase in (Phase.ROLL, Phase.DECIDE))
        self.query_one("#stop", Button).disabled = not (person and STOP in state.legal_actions())

    def status_text(self) -> Text:
        s = self.session
        state = s.state
        if state.is_over:
            text = Text(f"Can't Stop · {s.variant.name} · {state.turn} turns · ")
            text.append(f"{verb(self.seat_name(state.winner), 'win')}!", style="bold")
            return text
        if self.bust_view is not None and self.waiting:  # the bust message is up: the turn is not over yet
            busted = self.bust_view[0]
            text = Text(f"Can't Stop · {s.variant.name} · turn {busted.turn + 1} · ")
            text.append(f"{verb(self.seat_name(busted.seat), 'bust')}", style="bold white on red")
            return text
        text = Text(f"Can't Stop · {s.variant.name} · turn {state.turn + 1} · ")
        text.append(f"{self.seat_name()} ({seat_letter(state.seat)})", style=seat_style(state.seat))
        words = PHASE_WORDS[state.phase]
        if state.phase is Phase.DECIDE and not state.may_stop():
            words = "to roll (no stop: a runner is on another player's piece)"
        text.append(f" {words}")
        if not s.seat.is_person:
            text.append(" · f: skip ahead", style="grey70")
        return text

    def fill_choices(self) -> None:
        state = self.session.state
        choices = self.query_one("#choices", OptionList)
        wanted = state.options if state.phase is Phase.CHOOSE else ()
        labels = [self.choice_label(i, c) for i, c in enumerate(wanted)]
        current = [str(choices.get_option_at_index(i).prompt) for i in range(choices.option_count)]
        if [str(label) for label in labels] == current:
            return
        highlighted = choices.highlighted
        choices.clear_options()
        choices.add_options([Option(label) for label in labels])
        if labels:
            keep = highlighted if highlighted is not None and highlighted < len(labels) else 0
            choices.highlighted = keep
            if self.session.seat.is_person:
                choices.focus()

    def choice_label(self, index: int, choice: tuple[int, ...]) -> Text:
        key = str(index + 1) if index < 9 else " "
        text = Text(f"{key}  ", style="bold cyan")
        text.append(format_choice(choice))
        if self.advice_on and self.session.seat.is_person:
            after = self.session.table.preview(Move.of(choice))
            text.append(f"   then {percent(float(next_roll(after).bust))} bust", style="grey70")
        return text

    def preview_state(self) -> State | None:
        state = self.session.state
        if state.phase is not Phase.CHOOSE or not self.session.seat.is_person:
            return None  # a bot's pick is not the highlighted one: show what it plays instead
        index = self.query_one("#choices", OptionList).highlighted
        if index is None or not 0 <= index < len(state.options):
            index = 0
        return self.session.table.preview(Move.of(state.options[index]))

    def advice_text(self) -> Text:
        s = self.session
        state = s.state
        if state.is_over:
            return Text("a: analyse the game")
        if not self.advice_on:
            return Text("a: advice" if s.seat.is_person else "")
        if not s.seat.is_person:
            return Text("(advice shows on a person's turn)")
        text = Text("Advice\n", style="bold")
        if state.phase in (Phase.ROLL, Phase.DECIDE):
            odds = next_roll(state)
            text.append(f"Next roll: {percent(float(odds.bust))} bust, "
                        f"{float(odds.expected_steps):.2f} steps expected\n")
            likely = sorted(odds.choices.items(), key=lambda kv: -kv[1])[:3]
            if likely:
                text.append("Choices most often offered: " + ", ".join(
                    f"{format_choice(c)} {percent(float(p))}" for c, p in likely) + "\n")
        if state.phase in (Phase.CHOOSE, Phase.DECIDE):
            try:
                bot, notice = resolve_bot("expert")
                tip = advise(state, bot=bot.name)
                text.append(f"{tip.bot} says: {tip.reason}")
                if notice:
                    text.append(f"\n({notice})", style="italic")
            except (UnknownBotError, PhaseError) as error:
                text.append(f"no advice: {error}")
        return text

    # ---------------------------------------------------------------- flow
    def after_change(self) -> None:
        """Refresh, then let a bot move, or announce the end."""
        self.update_view()
        state = self.session.state
        if state.is_over or self.session.seat.is_person:
            self.fast = False
        if state.is_over:
            self.cancel_timer()
            self.show_result()
        elif not self.session.seat.is_person and not self.waiting:
            self.schedule_bot()

    def schedule_bot(self, delay: float | None = None) -> None:
        """Let the bot to move think (in a thread) and act once `delay` has passed."""
        self.cancel_timer()
        wait = 0.0 if self.fast else self.bot_delay if delay is None else delay
        self.bot_worker = self.run_worker(partial(self.bot_move_later, wait), group="bot", exclusive=True)

    async def bot_move_later(self, delay: float) -> None:
        await self.bots_ready.wait()
        s = self.session
        state, version = s.state, s.table.version
        start = time.monotonic()
        move: Move | SeatFailed | None = None
        if state.phase in (Phase.CHOOSE, Phase.DECIDE) and not s.seat.is_person:
            # Thinking happens during the pause between moves, off the event loop: keys stay live.
            move = await asyncio.to_thread(s.bot_move)
        await asyncio.sleep(max(0.0, delay - (time.monotonic() - start)))
        while self.app.screen is not self:  # help or the quit question is open: bots wait
            await asyncio.sleep(0.1)
        if s.table.version == version:  # nothing else moved the game meanwhile (a skip, an undo)
            self.bot_worker = None
            self.bot_step(move=move, version=version)

    def cancel_timer(self) -> None:
        if self.bot_worker is not None:
            self.bot_worker.cancel()
            self.bot_worker = None

    def bot_step(
        self, refresh: bool = True, move: Move | SeatFailed | None = None, version: int | None = None
    ) -> None:
        """One move of the bot to move: a roll, a choice or a decision (`move`, if thought out
        already on `version`; the table refuses it if the game moved on since)."""
        s = self.session
        if s.state.is_over or s.seat.is_person or self.waiting:
            return
        bust_shown = self.bust_view is not None
        self.bust_view = None
        if s.state.phase is Phase.ROLL:
            told = s.play(ROLL_MOVE)
        else:
            told = s.answer(move, version) if move is not None else s.answer(s.bot_move(), s.table.version)
        busted = self.tell(told, person=False)
        if refresh:
            self.update_view()
            if s.state.is_over:
                self.after_change()
            elif not s.seat.is_person:
                self.schedule_bot(self.bot_delay * (2.5 if busted or bust_shown else 1))
            else:
                self.fast = False
        # a person to move next sees the board (and any bust) as the bot left it

    def tell(self, told: list[Happening], person: bool) -> bool:
        """Log what happened (a person's bust in a dialog too); True when a turn busted."""
        s = self.session
        busted = False
        for happening in told:
            line = say(happening, s.names, s.variant)
            match happening:
                case Rolled(dice=dice):
                    self.last_dice = dice
                    self.note(line)
                case Busted(seat=seat, dice=dice, before=before):
                    self.last_dice = dice
                    self.bust_view = (before, dice)
                    self.note(Text(line, style="bold red"))
                    busted = True
                    if person:
                        self.waiting = True
                        title = f"{verb(s.names[seat], 'bust')}!"
                        self.app.push_screen(Notice(title, explain_bust(before, dice)), self.bust_seen)
                case Stopped(seat=seat):
                    self.note(line, str(seat_style(seat)))
                case Claimed():
                    self.note(line, "bold")
                case FellBack():
                    self.note(line, "bold yellow")
                case Won():
                    pass  # the result dialog tells it, once the board shows the end
                case _:
                    self.note(line)
        return busted

    def bust_seen(self, _: None = None) -> None:
        self.waiting = False
        self.after_change()

    def show_result(self) -> None:
        if self.waiting:
            return
        s = self.session
        state = s.state
        winner = state.winner
        assert winner is not None
        text = Text()
        text.append(f"{verb(s.seats[winner].name, 'win')}!", style=seat_style(winner, reverse=True))
        text.append(f"\n{s.variant.name}, {turns_text(state.turn)}.\n")
        for seat, person in enumerate(s.seats):
            text.append(f"{seat_letter(seat)} ", style=seat_style(seat, reverse=True))
            text.append(f" {person.name}: columns {columns_text(state, seat)}\n")
        text.append(f"Record: {s.path}")
        won = Won(winner, state.turn, alone=len(s.seats) == 1)
        self.note(Text(f"Game over: {say(won, s.names, s.variant)}", style="bold"))
        self.waiting = True
        self.app.push_screen(GameOver(text), self.result_seen)

    def result_seen(self, answer: str | None) -> None:
        self.waiting = False
        if answer == "again":
            self.action_again()
        elif answer == "analyse":
            self.action_analyse()
        elif answer == "quit":
            self.app.exit(str(self.session.path))

    # ---------------------------------------------------------------- keys
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Show in the footer only the keys that mean something in this game right now."""
        s = self.session
        if action == "again":
            return s.state.is_over
        if action == "undo":
            return s.practice and not s.state.is_over
        if action in ("fast", "step"):
            return any(not seat.is_person for seat in s.seats) and not s.state.is_over
        if action in ("advice", "roll_map"):
            return not s.state.is_over
        if action == "analyse":
            return s.state.is_over
        return True

    def person_to_move(self) -> bool:
        return self.session.seat.is_person and not self.session.state.is_over and not self.waiting

    def action_roll(self) -> None:
        state = self.session.state
        if not self.person_to_move() or state.phase not in (Phase.ROLL, Phase.DECIDE):
            self.hint("Rolling is not possible now.")
            return
        self.bust_view = None
        self.tell(self.session.play(ROLL_MOVE), person=True)
        if not self.waiting:
            self.after_change()
        else:
            self.update_view()

    def action_stop(self) -> None:
        state = self.session.state
        if not self.person_to_move() or STOP not in state.legal_actions():
            reason = "a runner shares a space with another player's piece" if (
                state.phase is Phase.DECIDE and not state.may_stop()) else "you can stop only after a roll you used"
            self.hint(f"Stopping is not possible now: {reason}.")
            return
        self.tell(self.session.play(STOP_MOVE), person=True)
        self.after_change()

    def action_choose(self, number: int) -> None:
        state = self.session.state
        if not self.person_to_move() or state.phase is not Phase.CHOOSE:
            return
        if not 1 <= number <= len(state.options):
            self.hint(f"There is no choice {number}: pick 1-{len(state.options)}.")
            return
        self.tell(self.session.play(Move.of(state.options[number - 1])), person=True)
        self.after_change()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.query_one(BoardView).show(self.session.state, self.preview_state())

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.action_choose(event.option_index + 1)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "roll":
            self.action_roll()
        elif event.button.id == "stop":
            self.action_stop()

    def action_advice(self) -> None:
        self.advice_on = not self.advice_on
        self.query_one("#choices", OptionList).clear_options()
        self.update_view()

    def action_undo(self) -> None:
        s = self.session
        if not s.practice:
            self.hint("Undo is for practice games: one person against bots or alone.")
            return
        if not self.person_to_move():
            self.hint("Nothing of yours to undo now.")
            return
        try:
            s.undo()
        except CantStopError as error:
            self.hint(str(error).capitalize() + ".")
            return
        self.note("Undone: back to the choice.", "italic")
        self.update_view()

    def action_step(self) -> None:
        if not self.session.seat.is_person and not self.waiting:
            if not self.bots_ready.is_set():  # a move now would compile on the event loop
                self.hint("The bots are still getting ready: they move once they are.")
                return
            self.cancel_timer()
            self.bot_step()

    def action_fast(self) -> None:
        """Play the bots' moves at once until a person is to move or the game ends."""
        if self.waiting:
            return
        if not self.bots_ready.is_set():  # fast-forward once ready, from the bots' own worker
            self.fast = True
            if not self.session.seat.is_person:
                self.schedule_bot()
            return
        self.cancel_timer()
        s = self.session
        start = time.monotonic()
        for _ in range(FAST_FORWARD_LIMIT):
            if s.state.is_over or s.seat.is_person:
                break
            if time.monotonic() - start > FAST_FORWARD_SLICE:
                # Slow bots (wild dice): the rest runs at once but off the event loop, so
                # the screen keeps drawing and Ctrl-C still answers.
                self.fast = True
                break
            self.bot_step(refresh=False)
        self.after_change()

    def action_again(self) -> None:
        s = self.session
        if not s.state.is_over:
            return
        self.post_message(NewGame(s.seats, s.variant))

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    def action_analyse(self) -> None:
        """The finished game's analysis (worked out once, in a thread, the first time it is asked for)."""
        s = self.session
        if not s.state.is_over:
            self.hint("A game can be analysed once it is over.")
            return
        if self.analysed is None:
            self.analysed = Analysed(s.table.record)
        self.app.push_screen(AnalysisScreen(self.analysed))

    def action_roll_map(self) -> None:
        """What the next roll can bring, for the player about to roll or deciding whether to."""
        state = self.session.state
        why = self.no_roll_map or not_rolling(state)
        if why is not None:
            self.hint(f"No roll map: {why}.")
            return
        title = f"Roll map · turn {state.turn + 1} · {self.seat_name()} ({seat_letter(state.seat)}) {PHASE_WORDS[state.phase]}"
        self.app.push_screen(RollMapScreen(state, title), self.roll_map_closed)

    def roll_map_closed(self, refusal: str | None) -> None:
        if refusal is not None:  # the game's value model refused: it will refuse every position
            self.no_roll_map = refusal
            self.hint(f"No roll map: {refusal}.")

    def hint(self, text: str) -> None:
        self.notify(text, timeout=3)
