"""The environments' render modes: `ansi` returns the board as text, `human` prints it.

The text is the terminal game's board, the position's notation, a status line and,
when a decision is due, the legal actions with their indices.
"""

from __future__ import annotations

import sys

from cantstop.board import render_board
from cantstop.core.notation import format_dice, seat_letter, to_notation
from cantstop.core.state import Phase, State
from cantstop.encoding.actions import action_index

RENDER_MODES = ("human", "ansi")


def check_render_mode(render_mode: str | None) -> str | None:
    """`render_mode` itself if the environments support it; a clear error otherwise."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(
            f"render_mode must be None, {' or '.join(map(repr, RENDER_MODES))}, not {render_mode!r}"
        )
    return render_mode


def render_text(state: State) -> str:
    numbering = action_index(state.variant)
    lines = [render_board(state).plain, to_notation(state)]
    if state.phase is Phase.OVER:
        lines.append(f"game over: {seat_letter(state.seat)} wins after {state.turn} turns")
    else:
        status = f"turn {state.turn + 1}: {seat_letter(state.seat)} to {state.phase.name.lower()}"
        if state.dice is not None:
            status += f", dice {format_dice(state.dice)}"
        lines.append(status)
        legal = numbering.legal(state)
        if legal:
            lines.append("actions: " + numbering.describe(legal))
    return "\n".join(lines) + "\n"


def render(state: State, render_mode: str | None) -> str | None:
    """What `render()` returns: the text in `ansi` mode; in `human` mode it is printed."""
    if render_mode == "ansi":
        return render_text(state)
    if render_mode == "human":
        sys.stdout.write(render_text(state))
        sys.stdout.flush()
    return None
