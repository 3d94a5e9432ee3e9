"""The chance-to-win graph (alone: the expected turns) drawn in text, for any terminal.

`cantstop analyse` prints it and the terminal game shows it in its analysis screen; both
take the lines from `graph_lines`, which an image of the graph uses as well. plotext
draws into one figure of its own module, so call `terminal_graph` from one thread at a time.
"""

from __future__ import annotations

from collections.abc import Sequence

from cantstop.analysis.game import GameAnalysis
from cantstop.analysis.judges import Units
from cantstop.core.notation import seat_letter

GRAPH_WIDTH = 78
GRAPH_HEIGHT = 16


def graph_lines(analysis: GameAnalysis) -> list[tuple[str, list[int], list[float]]]:
    """Each line of the graph: its label, and the events and values where it has one."""
    labels = analysis.players if analysis.units is Units.CHANCE else ("expected turns",)
    lines = []
    for seat, label in enumerate(labels):
        kept = [(p.ply, v) for p in analysis.points if (v := p.values[seat]) is not None]
        lines.append((f"{seat_letter(seat)} {label}", [x for x, _ in kept], [y for _, y in kept]))
    return lines


def terminal_graph(
    analysis: GameAnalysis,
    colour: bool,
    width: int = GRAPH_WIDTH,
    height: int = GRAPH_HEIGHT,
    colours: Sequence[int] | None = None,
) -> str:
    """The graph in text, `width` × `height` characters, one line per player (alone, one line).

    With `colour`, the text carries ANSI colour codes, and each line takes its seat's colour
    from `colours` where given (numbers of the terminal's 256 colours); without, plain text.
    """
    import plotext as plt

    plt.clear_figure()
    plt.plotsize(width, height)
    plt.theme("clear")
    for seat, (label, xs, ys) in enumerate(graph_lines(analysis)):
        if colours is not None and colour:
            plt.plot(xs, ys, label=label, marker="braille", color=colours[seat % len(colours)])
        else:
            plt.plot(xs, ys, label=label, marker="braille")
    if analysis.units is Units.CHANCE:
        plt.ylim(0, 100)
        plt.title("chance to win (%), move by move")
    else:
        plt.title("expected turns, move by move")
    plt.xlabel("event")
    built: str = plt.build()
    plt.clear_figure()
    return built if colour else str(plt.uncolorize(built))
