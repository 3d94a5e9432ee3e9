"""The environments' `render_mode="ansi"`: the terminal game's board as plain text,
with a status line and, when a choice is due, the choices with their action indices."""

from __future__ import annotations

from cantstop.board import render_board
from cantstop.core.notation import format_dice, seat_letter, to_notation
from cantstop.core.state import Phase, State
from cantstop.envs.actions import action_table


def render_text(state: State) -> str:
    table = action_table(state.variant)
    lines = [render_board(state).plain, to_notation(state)]
    if state.phase is Phase.OVER:
        lines.append(f"game over: {seat_letter(state.player)} wins after {state.turn} turns")
    else:
        status = f"turn {state.turn + 1}: {seat_letter(state.player)} to {state.phase.name.lower()}"
        if state.dice is not None:
            status += f", dice {format_dice(state.dice)}"
        lines.append(status)
        legal = table.legal(state)
        if legal:
            lines.append("actions: " + table.describe(legal))
    return "\n".join(lines) + "\n"
