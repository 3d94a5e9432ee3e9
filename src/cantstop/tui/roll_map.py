"""The roll map in the terminal: what the next roll can bring, and the dialog `m` opens in a game."""

from __future__ import annotations

import asyncio
from typing import ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Static

from cantstop.analysis.rollmap import RollMap, roll_map
from cantstop.analysis.tables import GROUPS_SHOWN, roll_map_table
from cantstop.analysis.wording import group_cells, roll_map_lines
from cantstop.core.errors import CantStopError
from cantstop.core.state import Phase, State
from cantstop.tui.modals import Dialog

WORKING = "Working out the roll map… (the first one in a session loads the value model: a few seconds)"
TALLEST = 36  # the dialog's height at most
DIALOG_LINES = 9  # its lines besides the groups: border, title, three above the table, its heading, two below


def no_stop_line(state: State) -> str:
    """Why a roll map has no value for stopping: the position's rule that forbids it."""
    if state.phase is Phase.ROLL:
        return "stopping: not before the turn's first roll"
    return "stopping: not allowed (a runner shares a space with another player's piece)"


def roll_map_view(
    found: RollMap,
    state: State,
    shown: int | None = GROUPS_SHOWN,
    marked: frozenset[str] | None = None,
    examples: bool = True,
) -> RenderableType:
    """The bust's chance, rolling against stopping, and the groups of rolls, likeliest first
    (`shown` of them; `marked`: the choices of the roll that came, marked wherever it ranks;
    `examples`: a column of example dice, where there is room)."""
    lines = Text("\n".join(roll_map_lines(found)))
    if found.stop is None:
        lines.append("\n" + no_stop_line(state), style="grey70")
    came = next((g for g in found.groups if marked is not None and frozenset(g.choices) == marked), None)
    if came is not None:
        chance, _, choices, best, then = group_cells(came, found.units)
        offers = "bust" if not came.choices else f"offer {choices}: the best, {best}, leads to {then}"
        lines.append(f"\n▶ the roll that came: {chance} of rolls {offers}", style="bold")
    table, left_out = roll_map_table(found, shown, marked, examples)
    parts: list[RenderableType] = [lines, table]
    if left_out:
        parts.append(Text(f"… and {left_out} more groups of rarer rolls", style="grey70"))
    return Group(*parts)


class RollMapScreen(Dialog[str | None]):
    """The roll map of a game's position, worked out in a thread. Dismissed with the reason
    in one line when the position cannot be judged (no value model for the game, ...)."""

    DEFAULT_CSS = f"RollMapScreen > Vertical {{ max-height: {TALLEST}; }}"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,m,enter", "dismiss", "Close")]

    def __init__(self, state: State, title: str) -> None:
        super().__init__()
        self.state = state
        self.title_text = title
        self.found: RollMap | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.title_text, style="bold"))
            yield Static(Text(WORKING, style="italic"), id="map")
            yield Static(Text("Esc or m closes the roll map.", style="italic"))

    def on_mount(self) -> None:
        self.run_worker(self.work(), group="rollmap")

    async def work(self) -> None:
        try:
            found = await asyncio.to_thread(roll_map, self.state)
        except CantStopError as error:  # no value model for this game, the fast extra missing, ...
            self.dismiss(str(error))
            return
        self.found = found
        room = min(TALLEST, self.app.size.height - 2) - DIALOG_LINES  # a line above and below it
        shown = max(1, min(GROUPS_SHOWN, room))
        self.query_one("#map", Static).update(roll_map_view(found, self.state, shown))
