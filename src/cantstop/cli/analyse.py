"""`cantstop analyse` (a finished game, decision by decision) and `cantstop rollmap` (what the next roll can bring)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table as RichTable

from cantstop.analysis import AnalysisError, GameAnalysis, Grade, Units, analyse
from cantstop.analysis.game import DecisionNote, RollNote
from cantstop.analysis.rollmap import RollMap, roll_map
from cantstop.analysis.wording import (
    change_text,
    decision_text,
    mark,
    result_text,
    roll_text,
    value_text,
)
from cantstop.cli.histogram import check_plot_path
from cantstop.core.errors import CantStopError
from cantstop.core.notation import from_notation, seat_letter
from cantstop.core.record import Record, read_record

GRAPH_WIDTH = 78
GRAPH_HEIGHT = 16


def read_game(record_file: Path) -> Record:
    try:
        return read_record(record_file.read_text(encoding="utf-8"))
    except (CantStopError, UnicodeDecodeError) as error:
        raise click.BadParameter(f"{record_file}: {error}", param_hint="RECORD") from None


def analysed(record: Record, where: str) -> GameAnalysis:
    """The analysis, a refusal (a game not over, no value model, a record that does not replay) as exit 2."""
    try:
        return analyse(record)
    except CantStopError as error:
        raise click.BadParameter(f"{where}: {error}", param_hint="RECORD") from None


def stored_game(db_url: str, game_id: str) -> Record:
    """A finished game of a server's database, as its record (players by the names its pages
    show); a game that is not there or not finished is refused (exit 2)."""
    from cantstop.cli.admin import storage_at
    from cantstop.web.db.moves import recorded
    from cantstop.web.db.values import GameStatus
    from cantstop.web.games.describe import readable_record
    from cantstop.web.server import describe_url

    with storage_at(db_url) as storage:
        game = storage.game(game_id) if len(game_id) <= 64 else None
        if game is None:
            raise click.BadParameter(f"no game {game_id[:64]!r} in {describe_url(db_url)}", param_hint="RECORD")
        if game.status is not GameStatus.OVER:
            why = "it ended without a winner" if game.status is GameStatus.ABANDONED else f"it is {game.status.value}"
            raise click.BadParameter(f"game {game_id!r} is not over ({why}): only a finished game can be analysed", param_hint="RECORD")
        return readable_record(game.record(recorded(storage.events(game_id))))


@click.command("analyse")
@click.argument("record_file", metavar="RECORD")
@click.option("--db", "db_url", default=None, metavar="URL",
              help="RECORD is a finished game's id in this server database (a SQLAlchemy URL, as for `cantstop serve`).")
@click.option("--json", "as_json", is_flag=True, help="Print the whole analysis as JSON instead of text.")
@click.option("--plot", "plot_path", default=None, metavar="FILE",
              help="Also draw the chance-to-win graph into an image file (.png, .svg, ...).")
@click.option("--graph/--no-graph", default=True, show_default=True, help="Draw the graph in the terminal.")
def analyse_command(record_file: str, db_url: str | None, as_json: bool, plot_path: str | None, graph: bool) -> None:
    """Analyse the finished game in RECORD: every decision's options and loss, every roll's luck.

    RECORD is a record file, or with --db a finished game's id on a server. Each decision is
    valued by the mover's chance to win under best play for the rest of the turn (alone:
    the expected turns); docs/analysis.md explains the method and grades.
    """
    if plot_path is not None:
        check_plot_path(plot_path)
    if db_url is not None:
        record, where = stored_game(db_url, record_file), f"game {record_file}"
    else:
        path = Path(record_file)
        if not path.is_file():
            raise click.BadParameter(f"no record file {record_file!r} (a game's id on a server needs --db URL)", param_hint="RECORD")
        record, where = read_game(path), record_file
    analysis = analysed(record, where)
    if as_json:
        click.echo(json.dumps(analysis.to_json(), indent=1))
    else:
        print_analysis(analysis, Console(), graph)
    if plot_path is not None:
        write_graph(analysis, plot_path)


def turn_rows(analysis: GameAnalysis) -> Iterator[tuple[int, int, str]]:
    """(turn, seat, what happened) per turn: dice, choices and stops, with grade marks."""
    by_ply: dict[int, list[str]] = {}
    seats: dict[int, tuple[int, int]] = {}
    notes: list[DecisionNote | RollNote] = [*analysis.decisions, *analysis.rolls]
    # A roll after a choice is the decision to roll and the roll, both of one event.
    for note in sorted(notes, key=lambda n: (n.ply, isinstance(n, RollNote))):
        seats.setdefault(note.ply, (note.turn, note.seat))
        said = by_ply.setdefault(note.ply, [])
        if isinstance(note, RollNote):
            said.append(note.dice + (" bust" if note.bust else ""))
        elif note.chosen != "roll" or note.grade in (Grade.INACCURACY, Grade.MISTAKE, Grade.BLUNDER):
            said.append(note.chosen + mark(note.grade))
    current: tuple[int, int] | None = None
    words: list[str] = []
    for ply in sorted(by_ply):
        if seats[ply] != current:
            if current is not None:
                yield (*current, " ".join(words))
            current, words = seats[ply], []
        words += by_ply[ply]
    if current is not None:
        yield (*current, " ".join(words))


def print_analysis(analysis: GameAnalysis, console: Console, graph: bool = True) -> None:
    units = analysis.units
    names = [f"{seat_letter(i)} {name}" for i, name in enumerate(analysis.players)]
    console.print(f"{analysis.variant}: {', '.join(names)}. {result_text(analysis)}.", markup=False, highlight=False)
    console.print(f"Values: {analysis.description}.", markup=False, highlight=False)
    last_of_turn = {p.turn: p for p in analysis.points}
    table = RichTable(box=None, pad_edge=False)
    table.add_column("turn", justify="right")
    table.add_column("player")
    table.add_column("play (?! inaccuracy, ? mistake, ?? blunder)")
    for name in names if units is Units.CHANCE else ["expected turns"]:
        table.add_column(name.split(" ", 1)[0] if units is Units.CHANCE else name, justify="right")
    for turn, seat, words in turn_rows(analysis):
        point = last_of_turn.get(turn)
        values = [] if point is None else ["—" if v is None else f"{v:.1f}" if units is Units.CHANCE else f"{v:.2f}" for v in point.values]
        table.add_row(str(turn), names[seat], words, *values)
    console.print(table)
    console.print()
    summary = RichTable(box=None, pad_edge=False, title=None)
    lost = "loss (points)" if units is Units.CHANCE else "loss (turns)"
    for heading in ("player", "accuracy", "decisions", lost, "luck", "best", "good", "?!", "?", "??"):
        summary.add_column(heading, justify="left" if heading == "player" else "right")
    for report in analysis.reports:
        accuracy = "—" if report.accuracy is None else f"{report.accuracy:.1f}"
        grades = [str(report.grades[g.value]) for g in (Grade.BEST, Grade.GOOD, Grade.INACCURACY, Grade.MISTAKE, Grade.BLUNDER)]
        summary.add_row(names[report.seat], accuracy, str(report.decisions), f"{report.loss:.1f}" if units is Units.CHANCE else f"{report.loss:.2f}",
                        change_text(report.luck if units is Units.CHANCE else -report.luck, units), *grades)
    console.print(summary)
    decisions = {d.ply: d for d in analysis.decisions if d.grade is not Grade.FORCED}
    rolls = {r.ply: r for r in analysis.rolls}
    lines = [
        f"  {names[r.seat]}, turn {decisions[p].turn}: {decision_text(decisions[p], units)}"
        for r in analysis.reports for p in r.mistakes
    ]
    if lines:
        console.print("\nBiggest mistakes", markup=False)
        for line in lines:
            console.print(line, markup=False, highlight=False)
    console.print("\nBiggest swings of luck", markup=False)
    for report in analysis.reports:
        for p in report.swings:
            console.print(f"  {names[report.seat]}, turn {rolls[p].turn}: {roll_text(rolls[p], units)}", markup=False, highlight=False)
    if analysis.corrections:
        size = sum(abs(c.change) for c in analysis.corrections) / len(analysis.corrections)
        console.print(
            f"\nThe value model's corrections where turns start: {size:.2f} {'points' if units is Units.CHANCE else 'turns'} "
            f"on average over {len(analysis.corrections)} turns (0 on a solved board).",
            markup=False, highlight=False,
        )
    if graph:
        console.print()
        console.print(terminal_graph(analysis, console.is_terminal), markup=False, highlight=False)


def graph_lines(analysis: GameAnalysis) -> list[tuple[str, list[int], list[float]]]:
    """Each line of the graph: its label, and the events and values where it has one."""
    labels = analysis.players if analysis.units is Units.CHANCE else ("expected turns",)
    lines = []
    for seat, label in enumerate(labels):
        kept = [(p.ply, v) for p in analysis.points if (v := p.values[seat]) is not None]
        lines.append((f"{seat_letter(seat)} {label}", [x for x, _ in kept], [y for _, y in kept]))
    return lines


def terminal_graph(analysis: GameAnalysis, colour: bool) -> str:
    """The chance-to-win graph (alone: expected turns) drawn in text, one line per player."""
    import plotext as plt

    plt.clear_figure()
    plt.plotsize(GRAPH_WIDTH, GRAPH_HEIGHT)
    plt.theme("clear")
    for label, xs, ys in graph_lines(analysis):
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


def write_graph(analysis: GameAnalysis, path: str) -> None:
    """The graph as an image (matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4.5))
    for label, xs, ys in graph_lines(analysis):
        ax.step(xs, ys, where="post", label=label)
    if analysis.units is Units.CHANCE:
        ax.set_ylim(0, 100)
        ax.set_ylabel("chance to win (%)")
    else:
        ax.set_ylabel("expected turns")
    ax.set_xlabel("event of the record")
    ax.set_title(f"{analysis.variant}: {result_text(analysis)}")
    ax.legend()
    fig.tight_layout()
    try:
        fig.savefig(path)
    except OSError as error:
        raise click.ClickException(f"cannot write the plot {path}: {error.strerror or error}") from None
    finally:
        plt.close(fig)
    click.echo(f"graph written to {path}", err=True)


@click.command("rollmap")
@click.argument("position")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@click.option("--all", "show_all", is_flag=True, help="List every group of rolls, not only the likeliest 20.")
def rollmap_command(position: str, as_json: bool, show_all: bool) -> None:
    """What the next roll can bring in POSITION (the one-line notation, about to roll or deciding to).

    Rolls are grouped by the choices they offer, each with its chance and the mover's
    chance to win after its best choice; with the bust's chance and rolling against stopping.
    """
    try:
        state = from_notation(position)
    except CantStopError as error:
        raise click.BadParameter(str(error), param_hint="POSITION") from None
    try:
        found = roll_map(state)
    except (AnalysisError, CantStopError) as error:
        raise click.BadParameter(str(error), param_hint="POSITION") from None
    if as_json:
        click.echo(json.dumps(found.to_json(), indent=1))
        return
    print_roll_map(found, Console(), show_all)


def print_roll_map(found: RollMap, console: Console, show_all: bool = False) -> None:
    units = found.units
    console.print(f"bust: {100 * found.bust:.1f}% of rolls", markup=False)
    console.print(f"rolling: {value_text(found.roll, units)}", markup=False)
    if found.stop is not None:
        better = (found.roll > found.stop) if units is Units.CHANCE else (found.roll < found.stop)
        console.print(f"stopping: {value_text(found.stop, units)} ({'roll on' if better else 'stop'})", markup=False)
    table = RichTable(box=None, pad_edge=False)
    for heading in ("chance", "e.g.", "choices", "best", "then"):
        table.add_column(heading, justify="right" if heading in ("chance", "then") else "left")
    groups = found.groups if show_all else found.groups[:20]
    for group in groups:
        table.add_row(
            f"{100 * group.chance:.1f}%", group.example, " ".join(group.choices) or "bust", group.best or "—",
            value_text(group.value, units),
        )
    console.print(table)
    if len(groups) < len(found.groups):
        console.print(f"... and {len(found.groups) - len(groups)} more groups (--all lists them)", markup=False)
