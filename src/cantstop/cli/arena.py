"""`cantstop arena`: a match between bots, with honest statistics."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from cantstop.arena.match import MatchSpec
from cantstop.arena.report import print_report
from cantstop.arena.runner import bot_labels, run_match
from cantstop.arena.schedule import seat_orders
from cantstop.arena.sprt import parse_sprt
from cantstop.cli.engine import load_variant, variant_option
from cantstop.core.variant import variant_spec


@click.command()
@click.argument("bots", nargs=-1, required=True)
@click.option("--games", "-n", type=click.IntRange(min=1), default=100, show_default=True,
              help="Games to play (rounded up to whole deals); the most to play with --sprt.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the dice and the bots' random sources.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default="all cores",
              help="Worker processes; the results do not depend on it.")
@variant_option()
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Directory for records and games.jsonl [default: arena-results/<time>].")
@click.option("--budget-ms", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Thinking time per decision; over budget × tolerance + 50 ms forfeits.")
@click.option("--tolerance", type=click.FloatRange(min=1.0), default=2.0, show_default=True,
              help="How far over its budget a decision may run before it forfeits.")
@click.option("--max-turns", type=click.IntRange(min=1), default=2000, show_default=True,
              help="A game still going after this many turns is a draw.")
@click.option("--sprt", "sprt_text", default=None, metavar="'elo0=0 elo1=20 alpha=0.05 beta=0.05'",
              help="Sequential test for two bots: stop as soon as it decides.")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Progress bar on stderr.")
def arena(
    bots: tuple[str, ...],
    games: int,
    seed: int,
    jobs: int,
    variant_name: str,
    out: Path | None,
    budget_ms: int,
    tolerance: float,
    max_turns: int,
    sprt_text: str | None,
    progress: bool,
) -> None:
    """Play a match between 2 to 4 BOTS, each a bot name or level, or cmd:COMMAND.

    Every deal of dice is played in every seat order, so each bot meets the same
    luck in the same seat. Example: cantstop arena random "cmd:python examples/mybot.py"
    """
    if not 2 <= len(bots) <= 4:
        raise click.UsageError(f"a match needs 2 to 4 bots, not {len(bots)}")
    variant = load_variant(variant_name)
    if not variant.min_players <= len(bots) <= variant.max_players:
        raise click.BadParameter(
            f"{variant.name} is for {variant.min_players}..{variant.max_players} players, not {len(bots)}",
            param_hint="--variant",
        )
    try:
        test = parse_sprt(sprt_text) if sprt_text is not None else None
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--sprt") from None
    if test is not None and len(bots) != 2:
        raise click.UsageError(f"--sprt compares two bots, not {len(bots)}")
    try:
        labels = bot_labels(list(bots), tolerance)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="BOTS") from None
    spec = MatchSpec(tuple(bots), labels, variant_spec(variant), seed, budget_ms, tolerance, max_turns)
    if out is None:
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        out = Path("arena-results") / stamp
        copy = 1
        while out.exists():  # two matches started in the same second
            copy += 1
            out = Path("arena-results") / f"{stamp}-{copy}"
    if out.exists() and any(out.iterdir()):
        raise click.BadParameter(f"{out} exists and is not empty; name a new directory", param_hint="--out")

    errors = Console(stderr=True)
    orders = len(seat_orders(len(bots)))
    deals = -(-games // orders)
    if deals * orders != games:
        errors.print(f"playing {deals * orders} games: {deals} deals × {orders} seat orders", markup=False)
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=errors,
        disable=not progress,
    )
    with bar:
        task = bar.add_task(" vs ".join(labels), total=None)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        outcome = run_match(spec, games, jobs, out, test, advance)
    print_report(outcome, Console())
