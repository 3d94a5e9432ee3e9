"""The board drawn as text (rich), for the terminal game and the environments' text rendering:
columns of their true heights, centred like the real diamond.

Every mark carries a letter as well as a colour (A-D for the seats' pieces, a white
runner mark), so the board reads on a plain or colour-blind terminal too.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from cantstop.core.notation import seat_letter
from cantstop.core.state import State

COLOURS = ("red", "dodger_blue1", "green3", "gold1")  # seats A-D
RUNNER = "◆"
PREVIEW = "◇"
EMPTY = "·"
RUNNER_STYLE = Style(color="black", bgcolor="white", bold=True)
LABEL_STYLE = Style(color="white", bgcolor="grey30", bold=True)
PREVIEW_STYLE = Style(color="black", bgcolor="bright_yellow", bold=True)


def seat_style(seat: int, *, reverse: bool = False) -> Style:
    colour = COLOURS[seat % len(COLOURS)]
    if reverse:
        return Style(color="black", bgcolor=colour, bold=True)
    return Style(color=colour, bold=True)


def seat_tag(seat: int) -> Text:
    return Text(seat_letter(seat), style=seat_style(seat, reverse=True))


def board_size(state: State, cell: int, spaced: bool = False) -> tuple[int, int]:
    """Width and height of `render_board` for a cell width, with or without blank lines between rows."""
    v = state.variant
    rows = max(v.heights) + 2
    return len(v.heights) * (cell + 1) - 1, 2 * rows - 1 if spaced else rows


def cell_width(state: State, width: int, height: int) -> int:
    """The widest cell (3..7 characters) that fits `width`; taller boards never shrink cells."""
    for cell in range(7, 3, -1):
        if board_size(state, cell)[0] <= width:
            return cell
    return 3


def render_board(
    state: State, preview: State | None = None, cell: int = 3, spaced: bool = False
) -> Text:
    """The board of `state`; with `preview`, the runners `preview` would have are shown too.

    Column numbers frame each column above and below, as on the real board.
    """
    v = state.variant
    tallest = max(v.heights)
    grid: list[list[Text]] = [[Text(" " * cell) for _ in v.columns] for _ in range(tallest + 2)]
    for i, c in enumerate(v.columns):
        height = v.height(c)
        offset = (tallest - height) // 2  # shorter columns sit in the middle: the diamond
        label = Text(f"{c:^{cell}}", style=LABEL_STYLE)
        grid[offset][i] = label
        grid[offset + height + 1][i] = label.copy()
        owner = state.claimed[c]
        for space in range(1, height + 1):
            row = offset + height + 1 - space
            grid[row][i] = _cell(state, preview, c, space, owner, cell)
        if owner >= 0:
            mark = f"{seat_letter(owner)}✓" if cell > 3 else seat_letter(owner)
            grid[offset][i] = Text(f"{mark:^{cell}}", style=seat_style(owner, reverse=True))
    text = Text(no_wrap=True, overflow="crop")
    for r, line in enumerate(grid):
        for i, part in enumerate(line):
            if i:
                text.append(" ")
            text.append_text(part)
        if r < len(grid) - 1:
            text.append("\n\n" if spaced else "\n")
    return text


def _cell(
    state: State, preview: State | None, column: int, space: int, owner: int, cell: int
) -> Text:
    if owner >= 0:  # a claimed column is the owner's all the way up
        return Text(f"{seat_letter(owner):^{cell}}", style=seat_style(owner, reverse=True))
    marks = Text()
    for seat, pieces in enumerate(state.pieces):
        if pieces[column] == space:
            marks.append(seat_letter(seat), style=seat_style(seat, reverse=True))
    runner = state.runners[column] == space
    previewed = preview is not None and preview.runners[column] == space and not runner
    if runner:
        marks.append(RUNNER, style=RUNNER_STYLE)
    elif previewed:
        marks.append(PREVIEW, style=PREVIEW_STYLE)
    if not marks.plain:
        return Text(f"{EMPTY:^{cell}}", style="grey50")
    if len(marks.plain) > cell:  # four pieces and a runner on one space of a narrow board
        marks = marks[: cell - 1] + Text("+", style="bold")
    pad = cell - len(marks.plain)
    return Text(" " * (pad // 2)) + marks + Text(" " * (pad - pad // 2))
