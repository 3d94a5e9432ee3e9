"""Helpers to drive the terminal game headless through Textual's pilot."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable, Iterable
from pathlib import Path

from rich.console import Console
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Static

from cantstop.core.dice import Dice, SeededDice
from cantstop.core.state import Phase
from cantstop.core.variant import preset
from cantstop.tui.app import CantStopApp, PlayConfig
from cantstop.tui.game_screen import GameScreen
from cantstop.tui.modals import GameOver, Notice
from cantstop.tui.seats import parse_seats

NEVER = 10_000.0  # bot delay in tests: bots move only when the test presses space or f
READY_SECONDS = 300.0  # the most a bot may take to compile and load on a loaded two-core machine


class ScriptedDice:
    """Dice that come from a list, so a test can build any position; then seeded dice."""

    def __init__(self, rolls: Iterable[Dice], seed: int = 0) -> None:
        self.rolls = list(rolls)
        self.after = SeededDice(seed)

    def roll(self, n: int, faces: int) -> Dice:
        if self.rolls:
            dice = self.rolls.pop(0)
            assert len(dice) == n
            return dice
        return self.after.roll(n, faces)


def make_app(
    tmp_path: Path,
    players: str,
    variant: str = "classic",
    seed: int = 1,
    dice: object | None = None,
    first: int | None = 0,
) -> CantStopApp:
    seats, notices = parse_seats(players)
    config = PlayConfig(
        records=tmp_path,
        seats=seats,
        variant=preset(variant),
        seed=seed,
        first=first,
        dice=dice if dice is not None else SeededDice(seed),  # type: ignore[arg-type]
        bot_delay=NEVER,
        notices=notices,
    )
    return CantStopApp(config)


def game_screen(app: CantStopApp) -> GameScreen:
    for screen in reversed(app.screen_stack):
        if isinstance(screen, GameScreen):
            return screen
    raise AssertionError(f"no game screen in {app.screen_stack}")


async def play_out(
    pilot: Pilot[str], app: CantStopApp, rolls_per_turn: int = 2, keys: int = 0, limit: int = 3000
) -> None:
    """Play until the game-over screen: people roll `rolls_per_turn` times then stop.

    The first `keys` moves are key presses, as a person types (slow: each press redraws);
    after them the screen's key actions are called directly and the screen redraws rarely.
    """
    rolled = 0
    pressed = 0
    actions = {"r": "action_roll", "s": "action_stop", "f": "action_fast", "1": "action_choose"}

    async def press(key: str) -> None:
        nonlocal pressed
        pressed += 1
        if pressed <= keys:
            await pilot.press(key)
        else:
            screen = game_screen(app)
            method = getattr(screen, actions[key])
            if key == "1":
                method(1)
            else:
                method()
            if isinstance(app.screen, Notice | GameOver):
                await pilot.pause()

    for _ in range(limit):
        screen = app.screen
        if isinstance(screen, GameOver):
            return
        if isinstance(screen, Notice):
            rolled = 0
            await pilot.press("enter")
            continue
        session = game_screen(app).session
        state = session.state
        if not session.seat.is_person:
            rolled = 0
            # Until the bots are ready (compiled, loaded in a thread) `f` only asks for a
            # fast-forward: wait for them here, or the loop spins without the app running.
            await asyncio.wait_for(game_screen(app).bots_ready.wait(), timeout=READY_SECONDS)
            await press("f")
        elif state.phase is Phase.ROLL:
            rolled = 1
            await press("r")
        elif state.phase is Phase.CHOOSE:
            await press("1")
        elif rolled >= rolls_per_turn and state.may_stop():
            rolled = 0
            await press("s")
        else:
            rolled += 1
            await press("r")
    raise AssertionError("the game did not end")


async def until(pilot: Pilot[str], done: Callable[[], bool], seconds: float = 20.0) -> None:
    """Let the app run until `done()` (bots fast-forwarding in the background); bounded."""
    for _ in range(int(seconds / 0.05)):
        if done():
            return
        await pilot.pause(0.05)
    raise AssertionError("the app did not get there")


async def worked_out(pilot: Pilot[str], group: str) -> None:
    """Wait for the app's workers of `group` (an analysis, a roll map) to finish, then redraw."""
    await pilot.app.workers.wait_for_complete([w for w in pilot.app.workers if w.group == group])
    await pilot.pause()


def notices(app: App[object]) -> list[str]:
    """The notifications the app has up (Textual keeps them in a private list; no public view)."""
    return [n.message for n in app._notifications]


def shown(widget: Static, width: int = 200) -> str:
    """What a Static shows (text, a table, a group of them) as plain text, `width` wide."""
    console = Console(width=width, file=io.StringIO(), color_system=None)
    with console.capture() as capture:
        console.print(widget.content)
    return capture.get()
