"""`cantstop solve SPEC [--players 2]`: solve a one- or two-player variant exactly; `--list` the value files solved so far."""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.progress import (
    BarColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from cantstop.solve.board import Board
from cantstop.solve.duo import board_for
from cantstop.solve.errors import SolveError
from cantstop.solve.value_file import (
    HEADER_BYTES,
    ValueFile,
    data_folder,
    default_path,
    read_header,
    value_files,
)

if TYPE_CHECKING:
    from cantstop.solve.parts import Workers


def _list_value_files() -> None:
    folder = data_folder()
    paths = value_files(folder)
    if not paths:
        click.echo(f"no value files in {folder}")
        return
    for path in paths:
        try:
            header = read_header(path)
        except SolveError as error:
            click.echo(f"{path.name}: unreadable ({error})")
            continue
        if header.writing:
            status = "killed while writing: solve again with --restart"
        elif header.complete:
            with path.open("rb") as file:
                file.seek(HEADER_BYTES)
                (empty,) = struct.unpack("<d", file.read(8))
            what = "turns" if header.players == 1 else "the first player's chance to win"
            status = f"solved in {header.seconds:,.0f} s: {empty:.6f}, {what} from the empty board"
        else:
            status = f"partial: {header.layers_done} of {header.layers} layers (resumable)"
        players, unit = ("", "anchors") if header.players == 1 else (f" ({header.players} players)", "positions")
        click.echo(f"{header.key}{players}: {header.anchors:,} {unit}, {status}")


def _progress_bar() -> Progress:
    return Progress(
        TextColumn("solving"),
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )


@click.command("solve")
@click.argument("spec", required=False)
@click.option("--list", "list_only", is_flag=True, help="List the value files solved so far and stop.")
@click.option("--players", type=int, default=1, show_default=True,
              help="Players: 1 (expected turns) or 2 (the mover's chance to win).")
@click.option("--anchor", help="Also print this position's value: progress per column, e.g. 0.1.0.2.0; "
              "with two players the mover's and the rival's, e.g. 0.1.0.2.0/1.0.0.0.0.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              help="Value file (default: the user's data folder, see --list).")
@click.option("--threads", type=click.IntRange(1, 256), help="Threads (default: every core).")
@click.option("--restart", is_flag=True, help="Start afresh instead of resuming a value file.")
@click.option("--plan", "plan_only", is_flag=True, help="Print what the solve needs and stop.")
@click.option("--layers", "layer_slice", metavar="FIRST:STOP",
              help="Solve only layers FIRST..STOP-1 (0 is the most advanced), once those above are solved.")
@click.option("--chunks", type=click.IntRange(1, 1_000_000),
              help="Hand every layer out in this many independent parts (default with --ray: 4 per CPU).")
@click.option("--ray", "ray_address", metavar="ADDRESS",
              help="Solve the parts as Ray tasks: auto, ray://HEAD:10001, or local (extra 'ray').")
def solve(
    spec: str | None,
    list_only: bool,
    players: int,
    anchor: str | None,
    out: Path | None,
    threads: int | None,
    restart: bool,
    plan_only: bool,
    layer_slice: str | None,
    chunks: int | None,
    ray_address: str | None,
) -> None:
    """Solve the variant SPEC exactly: alone, the optimal expected turns; with --players 2, the
    first player's chance to win.

    SPEC is a variant as `play --variant` reads it, e.g. solitaire+faces=3+heights=1.2.3.2.1
    (classic+faces=3+heights=1.2.3.2.1 with two players).
    An interrupted solve (Ctrl-C) resumes where it stopped when run again. With
    --layers, --chunks or --ray a solve can be spread over runs, processes and machines
    (docs/solving.md); the values are the same to the bit.
    """
    if list_only:
        _list_value_files()
        return
    if spec is None:
        raise click.UsageError("give a variant SPEC to solve, or --list")
    try:
        board = board_for(spec, players)
    except SolveError as error:
        raise click.BadParameter(str(error), param_hint="SPEC" if players in (1, 2) else "--players") from None
    try:
        position = board.parse_position(anchor) if anchor else None
    except SolveError as error:
        raise click.BadParameter(str(error), param_hint="--anchor") from None
    layers = _parse_layers(board, layer_slice) if layer_slice else None
    path = out or default_path(board)
    try:  # the plan, the solve and its workers all need the kernels: say so before any of them
        import cantstop.solve.kernels  # noqa: F401
    except ImportError as error:
        raise click.ClickException(str(error)) from None
    from cantstop.solve.solver import Plan
    from cantstop.solve.solver import solve as run

    done = None if restart or plan_only else _already_solved(board, path, layers)
    if done is not None:
        what = "every layer" if layers is None else f"layers 0:{layers[1]}"
        click.echo(f"nothing to solve: {path} already holds {what} of {board.key} (--restart solves it again)")
        _report(board, done, position, anchor)
        return
    plan = Plan.make(board, path, threads or os.cpu_count() or 1, layers)
    click.echo(plan.describe())
    reason = plan.refusal()
    if reason:
        raise click.ClickException(f"cannot solve {board.key}: {reason}; nothing was written")
    if plan_only:
        return
    workers = _workers(ray_address, chunks, threads or os.cpu_count() or 1)
    bar = _progress_bar()
    task = bar.add_task("solve", total=1.0)
    try:
        with bar:
            solved = run(board, path, threads, restart, lambda done, total: bar.update(task, completed=share(done, total)),
                         layers, workers)
    except SolveError as error:
        raise click.ClickException(str(error)) from None
    except KeyboardInterrupt:
        click.echo(f"interrupted: the value file {path} keeps what is solved; run the same command to resume")
        raise SystemExit(130) from None
    _report(board, solved, position, anchor)


def _already_solved(board: Board, path: Path, layers: tuple[int, int] | None) -> ValueFile | None:
    """The value file at `path` if it already holds what this solve would solve, checked; else None
    (no file, or one the solve itself will resume, or refuse with the reason)."""
    if not path.exists():
        return None
    try:
        found = ValueFile.open(path, board)
    except SolveError:
        return None
    stop = board.layers if layers is None else layers[1]
    return found if found.header.layers_done >= stop else None


def share(done: float, total: float) -> float:
    """The part of a solve done; a slice of finished games only (no work at all) is done at once."""
    return done / total if total else 1.0


def _parse_layers(board: Board, text: str) -> tuple[int, int]:
    first, colon, stop = text.partition(":")
    if colon and first.strip().isdigit() and stop.strip().isdigit():
        span = int(first), int(stop)
        if 0 <= span[0] < span[1] <= board.layers:
            return span
    raise click.BadParameter(
        f"{text!r} is not a slice of the {board.layers} layers: give FIRST:STOP with "
        f"0 <= FIRST < STOP <= {board.layers}, e.g. 0:{min(10, board.layers)}",
        param_hint="--layers",
    )


def _workers(ray_address: str | None, chunks: int | None, cpus: int) -> Workers | None:
    from cantstop.solve.parts import LocalParts, RayParts

    if ray_address is not None:
        try:
            from cantstop.cluster import connect

            cluster = connect(ray_address, cpus, "cantstop solve --ray")
        except (ImportError, ConnectionError) as error:
            raise click.ClickException(str(error)) from None
        return RayParts(ray_address, chunks or 4 * int(cluster.cluster_resources().get("CPU", 1)))
    return LocalParts(chunks) if chunks else None


def _report(board: Board, solved: ValueFile, position: int | None, anchor: str | None) -> None:
    seconds = solved.header.seconds
    if not solved.header.complete:
        done = solved.header.layers_done
        flag = "" if board.players == 1 else f" --players {board.players}"
        click.echo(
            f"solved layers 0:{done} of {solved.header.layers} in {seconds:,.1f} s; value file: {solved.path}; "
            f"the rest: cantstop solve '{board.key}'{flag} --layers {done}:{solved.header.layers}"
        )
        return
    click.echo(f"solved in {seconds:,.1f} s; value file: {solved.path}")
    if board.players == 1:
        click.echo(f"optimal expected turns from the empty board: {solved.value(0):.12f}")
        if position is not None:
            click.echo(f"optimal expected turns from {anchor}: {solved.value(position):.12f}")
        return
    click.echo(f"the first player's chance to win from the empty board: {solved.value(0):.12f}")
    if position is not None:
        click.echo(f"the mover's chance to win from {anchor}: {solved.value(position):.12f}")
