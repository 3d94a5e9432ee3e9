"""Commands over the rules engine: odds, the choices of a roll, replays of records."""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any, TypeVar

import click

from cantstop.core.choices import format_choice
from cantstop.core.errors import CantStopError, ColumnError, VariantError
from cantstop.core.notation import from_notation, parse_dice, seat_letter, to_notation
from cantstop.core.odds import chance_to_use, column_sets, percent
from cantstop.core.record import Record, read_record
from cantstop.core.state import Phase, turn_ended
from cantstop.core.variant import PRESETS, Variant, preset
from cantstop.table.happenings import told
from cantstop.table.wording import say


def variant_option(default: str = "classic") -> Callable[[F], F]:
    return click.option(
        "--variant",
        "variant_name",
        default=default,
        show_default=True,
        help=f"A preset ({', '.join(PRESETS)}) or a preset with changes, e.g. classic+to_win=4.",
    )


F = TypeVar("F", bound=Callable[..., Any])
# Far above any useful run, low enough that a slip of the keyboard is refused, not a
# machine brought down by a schedule of 10**12 games or a thousand processes.
MAX_GAMES = 1_000_000
MAX_JOBS = 64


def load_variant(name: str) -> Variant:
    try:
        return preset(name)
    except VariantError as error:
        raise click.BadParameter(str(error), param_hint="--variant") from None


def percent_column(value: float) -> str:
    """A chance for a table column: two places, right-aligned."""
    return f"{percent(value, 2):>7}"


@click.command()
@click.argument("columns", nargs=-1, type=int)
@variant_option()
@click.option(
    "--top", type=click.IntRange(min=1), default=10, show_default=True, help="Rows per table of pairs and triples."
)
def odds(columns: tuple[int, ...], variant_name: str, top: int) -> None:
    """Chance that a roll can use at least one of COLUMNS, such as 6 7 8.

    Without COLUMNS: tables for every single column, and the best and worst pairs
    and triples.
    """
    variant = load_variant(variant_name)
    if columns:
        try:
            chance = chance_to_use(variant, columns)
        except ColumnError as error:
            raise click.BadParameter(str(error), param_hint="COLUMNS") from None
        click.echo(f"{' '.join(map(str, columns))}: {percent(float(chance), 2)} of rolls can use one of them ({variant.name})")
        return
    click.echo(f"Variant {variant.name}: chance a roll can use ...")
    click.echo("single columns:")
    for cols, chance in sorted(column_sets(variant, 1)):
        click.echo(f"  {cols[0]:>2}  {percent_column(float(chance))}")
    for size, label in ((2, "pairs"), (3, "triples")):
        table = column_sets(variant, size)
        rows: list[tuple[tuple[int, ...], Fraction] | None] = list(table)
        if len(table) > 2 * top:
            rows = [*table[:top], None, *table[-top:]]
            click.echo(f"{label} (best {top}, worst {top} of {len(table)}):")
        else:
            click.echo(f"{label} (all {len(table)}):")
        for row in rows:
            if row is None:
                click.echo("  ...")
            else:
                click.echo(f"  {'-'.join(map(str, row[0])):>8}  {percent_column(float(row[1]))}")


@click.command()
@click.argument("position")
@click.argument("dice")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def options(position: str, dice: str, as_json: bool) -> None:
    """The legal choices of DICE, such as 2455, in POSITION (the one-line notation)."""
    try:
        state = from_notation(position)
    except CantStopError as error:
        raise click.BadParameter(str(error), param_hint="POSITION") from None
    if state.phase not in (Phase.ROLL, Phase.DECIDE):
        raise click.BadParameter(
            f"the position is in the {state.phase.name.lower()} phase; choices are for a position "
            "about to roll (roll or decide)",
            param_hint="POSITION",
        )
    try:
        rolled = parse_dice(dice, state.variant)
    except CantStopError as error:
        raise click.BadParameter(str(error), param_hint="DICE") from None
    found = state.choices(rolled)
    if as_json:
        click.echo(json.dumps({"dice": list(rolled), "bust": not found, "choices": [list(c) for c in found]}))
    elif found:
        click.echo("\n".join(format_choice(c) for c in found))
    else:
        click.echo("bust")


@click.command()
@click.argument(
    "record_file", metavar="RECORD", type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.option(
    "--turn",
    type=click.IntRange(min=0),
    default=None,
    help="Print only the position after this many turns (in the one-line notation).",
)
@click.option("--tui", is_flag=True, help="Step through the game on a board in the terminal.")
def replay(record_file: Path, turn: int | None, tui: bool) -> None:
    """Print a game record turn by turn, or the position after --turn N."""
    try:
        record = read_record(record_file.read_text(encoding="utf-8"))
    except (CantStopError, UnicodeDecodeError) as error:
        raise click.BadParameter(f"{record_file}: {error}", param_hint="RECORD") from None
    if tui:
        from cantstop.tui import terminal
        from cantstop.tui.replay import run_replay

        try:
            terminal.need_a_terminal("cantstop replay --tui")
        except terminal.NoTerminalError as error:
            raise click.ClickException(str(error)) from None
        run_replay(record, record_file)
        return
    if turn is not None:
        turns = record.final().turn
        if turn > turns:
            raise click.BadParameter(f"the game has {turns} turns: give 0..{turns}", param_hint="--turn")
        click.echo(to_notation(record.after_turn(turn)))
        return
    print_replay(record)


def print_replay(record: Record) -> None:
    names = record.players
    click.echo(f"{record.variant.name}: {', '.join(f'{seat_letter(i)} {n}' for i, n in enumerate(names))}")
    final = record.start()
    for before, happened, after in told(record):
        for happening in happened:
            click.echo(f"  turn {before.turn + 1}: {say(happening, names, record.variant, brief=True)}")
        if turn_ended(before, after):
            click.echo(f"    {to_notation(after)}")
        final = after
    click.echo(f"winner: {names[final.seat]}" if final.is_over else "game in progress")
