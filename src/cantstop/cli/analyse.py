"""`cantstop analyse` (a finished game, decision by decision) and `cantstop rollmap` (what the next roll can bring)."""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from pathlib import Path

import click
from rich.console import Console

from cantstop.analysis import AnalysisError, GameAnalysis, Units, analyse
from cantstop.analysis.graph import graph_lines, terminal_graph
from cantstop.analysis.rollmap import RollMap, roll_map
from cantstop.analysis.tables import GROUPS_SHOWN, roll_map_table, summary_table, turns_table
from cantstop.analysis.wording import (
    corrections_line,
    headline,
    mistake_lines,
    result_text,
    roll_map_lines,
    swing_lines,
    values_line,
)
from cantstop.cli.histogram import check_plot_path
from cantstop.cli.preparing import compile_notice
from cantstop.core.errors import CantStopError
from cantstop.core.notation import from_notation
from cantstop.core.record import Record, read_record


def read_game(record_file: Path) -> Record:
    try:
        return read_record(record_file.read_text(encoding="utf-8"))
    except (CantStopError, UnicodeDecodeError) as error:
        raise click.BadParameter(f"{record_file}: {error}", param_hint="RECORD") from None


def analysed(record: Record, where: str) -> GameAnalysis:
    """The analysis, a refusal (a game not over, no value model, a record that does not replay) as exit 2."""
    try:
        with compiling_analysis():
            return analyse(record)
    except CantStopError as error:
        raise click.BadParameter(f"{where}: {error}", param_hint="RECORD") from None


def compiling_analysis() -> AbstractContextManager[None]:
    """Says on stderr when the analysis's kernels compile (a cold numba cache: seconds)."""
    errors = Console(stderr=True)
    return compile_notice(errors, "game analysis", errors.is_terminal)


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


def print_analysis(analysis: GameAnalysis, console: Console, graph: bool = True) -> None:
    console.print(headline(analysis), markup=False, highlight=False)
    console.print(values_line(analysis), markup=False, highlight=False)
    console.print(turns_table(analysis))
    console.print()
    console.print(summary_table(analysis))
    mistakes = mistake_lines(analysis)
    if mistakes:
        console.print("\nBiggest mistakes", markup=False)
        for line in mistakes:
            console.print(f"  {line}", markup=False, highlight=False)
    console.print("\nBiggest swings of luck", markup=False)
    for line in swing_lines(analysis):
        console.print(f"  {line}", markup=False, highlight=False)
    corrections = corrections_line(analysis)
    if corrections is not None:
        console.print(f"\n{corrections}", markup=False, highlight=False)
    if graph:
        console.print()
        console.print(terminal_graph(analysis, console.is_terminal), markup=False, highlight=False)


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
@click.option("--all", "show_all", is_flag=True, help=f"List every group of rolls, not only the likeliest {GROUPS_SHOWN}.")
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
        with compiling_analysis():
            found = roll_map(state)
    except (AnalysisError, CantStopError) as error:
        raise click.BadParameter(str(error), param_hint="POSITION") from None
    if as_json:
        click.echo(json.dumps(found.to_json(), indent=1))
        return
    print_roll_map(found, Console(), show_all)


def print_roll_map(found: RollMap, console: Console, show_all: bool = False) -> None:
    for line in roll_map_lines(found):
        console.print(line, markup=False)
    table, left_out = roll_map_table(found, None if show_all else GROUPS_SHOWN)
    console.print(table)
    if left_out:
        console.print(f"... and {left_out} more groups (--all lists them)", markup=False)
