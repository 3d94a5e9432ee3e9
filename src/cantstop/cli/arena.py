"""`cantstop arena` and `cantstop tournament`: matches between bots, with honest statistics."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from cantstop.arena.match import MAX_TURNS, MatchSpec
from cantstop.arena.report import forfeit_note, print_report, print_standings
from cantstop.arena.runner import Outcome, bot_labels, run_match
from cantstop.arena.schedule import seat_orders
from cantstop.arena.sprt import parse_sprt
from cantstop.arena.tournament import run_tournament
from cantstop.cli.engine import MAX_GAMES, MAX_JOBS, load_variant, variant_option
from cantstop.cli.fast_run import FAST_MAX_GAMES, check_core_games, fast_arena, fast_option
from cantstop.cli.preparing import prepare_bots
from cantstop.cli.progress import progress_bar
from cantstop.core.errors import SetupError, UnknownBotError
from cantstop.core.variant import preset, variant_spec


def match_options(command: Callable[..., None]) -> Callable[..., None]:
    """The options every match and tournament takes, in one place."""
    options = [
        click.option("--seed", type=int, default=0, show_default=True,
                     help="Seed of the dice and the bots' random sources."),
        click.option("--jobs", "-j", type=click.IntRange(1, MAX_JOBS), default=min(os.cpu_count() or 1, MAX_JOBS),
                     show_default="all cores", help="Worker processes; the results do not depend on it."),
        variant_option(),
        click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
                     help="Directory for the records and results [default: arena-results/<time>]."),
        click.option("--budget-ms", type=click.IntRange(min=1), default=1000, show_default=True,
                     help="Thinking time per decision; over budget × tolerance + 50 ms forfeits."),
        click.option("--tolerance", type=click.FloatRange(min=1.0), default=2.0, show_default=True,
                     help="How far over its budget a decision may run before it forfeits."),
        click.option("--max-turns", type=click.IntRange(min=1), default=MAX_TURNS, show_default=True,
                     help="A game still going after this many turns is a draw."),
        click.option("--progress/--no-progress", default=True, show_default=True,
                     help="Progress bar on stderr."),
        click.option("--allow-forfeits", is_flag=True,
                     help="Accept a result in which games were forfeited (a crash, a timeout, an illegal "
                          "move): exit 0 anyway. Without it such a result exits with status 1."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@dataclass(frozen=True)
class MatchOptions:
    """The values of `match_options`, as Click passes them."""

    seed: int
    jobs: int
    variant_name: str
    out: Path | None
    budget_ms: int
    tolerance: float
    max_turns: int
    progress: bool
    allow_forfeits: bool


def prepare(bots: tuple[str, ...], players: int, options: MatchOptions) -> tuple[MatchSpec, Path]:
    """Check the bots against the variant, start each outside bot once, and pick the directory."""
    variant = load_variant(options.variant_name)
    if why := variant.players_text(players):
        raise click.BadParameter(why, param_hint="--variant")
    try:
        labels = bot_labels(list(bots), options.tolerance, variant)
    except (SetupError, UnknownBotError) as error:
        raise click.BadParameter(str(error), param_hint="BOTS") from None
    spec = MatchSpec(
        tuple(bots), labels, variant_spec(variant), options.seed, options.budget_ms, options.tolerance,
        options.max_turns,
    )
    out = options.out
    if out is None:
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        out = Path("arena-results") / stamp
        copy = 1
        while out.exists():  # two matches started in the same second
            copy += 1
            out = Path("arena-results") / f"{stamp}-{copy}"
    if out.exists() and any(out.iterdir()):
        raise click.BadParameter(f"{out} exists and is not empty; name a new directory", param_hint="--out")
    try:  # the last check, so that a refused match leaves no empty directory behind
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise click.BadParameter(
            f"cannot create the directory {out}: {error.strerror or error}", param_hint="--out"
        ) from None
    return spec, out


def refuse_forfeits(labels: Sequence[str], forfeits: Sequence[Mapping[str, int]], games: int, allowed: bool) -> None:
    """After the report: a result with forfeited games exits non-zero unless --allow-forfeits.

    Raises `click.ClickException` (status 1) saying so."""
    note = forfeit_note(labels, forfeits, games)
    if note is not None and not allowed:
        raise click.ClickException(
            f"{note}. The first reason of each bot is above and every game's in games.jsonl; "
            "remove the cause, or pass --allow-forfeits to accept such a result"
        )


def note_rounding(console: Console, games: int, bots: int) -> None:
    orders = len(seat_orders(bots))
    deals = -(-games // orders)
    if deals * orders != games:
        console.print(f"playing {deals * orders} games: {deals} deals × {orders} seat orders", markup=False)


def join_cluster(address: str, jobs: int) -> None:
    """Check --ray before anything is written: the extra may be missing, or no cluster answer."""
    if not address.strip():
        raise click.BadParameter("name a cluster: auto, ray://HEAD:10001 or local", param_hint="--ray")
    try:
        import cantstop.arena.ray_backend  # noqa: F401
        from cantstop.cluster import connect

        if address != "local":  # a fresh local Ray starts with the games, once the match is set
            connect(address, jobs, "cantstop arena --ray")
    except ImportError as error:
        raise click.UsageError(str(error)) from None
    except ConnectionError as error:
        raise click.ClickException(str(error)) from None


@click.command()
@click.argument("bots", nargs=-1, required=True)
@click.option("--games", "-n", type=click.IntRange(1, FAST_MAX_GAMES), default=100, show_default=True,
              help="Games to play (rounded up to whole deals); the most to play with --sprt. "
                   f"Up to {MAX_GAMES:,} ({FAST_MAX_GAMES:,} with --fast).")
@match_options
@click.option("--sprt", "sprt_text", default=None, metavar="'elo0=0 elo1=20 alpha=0.05 beta=0.05'",
              help="Sequential test for two bots: stop as soon as it decides.")
@click.option("--ray", "ray_address", default=None, metavar="ADDRESS",
              help="Play the games on a Ray cluster: auto, ray://HEAD:10001, or local (extra 'ray'); "
                   "the results are those of --jobs.")
@fast_option
def arena(bots: tuple[str, ...], games: int, sprt_text: str | None, ray_address: str | None,
          fast: bool, **common: Any) -> None:
    """Play a match between 2 to 4 BOTS, each a bot name or level, or cmd:COMMAND.

    Every deal of dice is played in every seat order, so each bot meets the same
    luck in the same seat. Example: cantstop arena random "cmd:python examples/mybot.py"
    """
    if not 2 <= len(bots) <= 4:
        raise click.UsageError(f"a match needs 2 to 4 bots, not {len(bots)}")
    if fast:
        return fast_arena(bots, games, sprt_text, ray_address, common)
    check_core_games(games)
    try:
        test = parse_sprt(sprt_text) if sprt_text is not None else None
    except SetupError as error:
        raise click.BadParameter(str(error), param_hint="--sprt") from None
    if test is not None and len(bots) != 2:
        raise click.UsageError(f"--sprt compares two bots, not {len(bots)}")
    options = MatchOptions(**common)
    if ray_address is not None:
        join_cluster(ray_address, options.jobs)
    spec, out = prepare(bots, len(bots), options)
    errors = Console(stderr=True)
    prepare_bots(bots, preset(spec.variant), len(bots), errors, options.progress)
    note_rounding(errors, games, len(bots))
    with progress_bar(errors, options.progress) as bar:
        task = bar.add_task(" vs ".join(spec.labels), total=None)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        outcome = run_match(spec, games, options.jobs, out, test, advance, ray_address)
    print_report(outcome, Console())
    refuse_forfeits(spec.labels, outcome.tally.forfeits, outcome.tally.games, options.allow_forfeits)


@click.command()
@click.argument("bots", nargs=-1, required=True)
@click.option("--games", "-n", type=click.IntRange(1, MAX_GAMES), default=100, show_default=True,
              help="Games each pair of bots plays (rounded up to an even number).")
@match_options
def tournament(bots: tuple[str, ...], games: int, **common: Any) -> None:
    """A round robin of two-player matches between 2 or more BOTS, ranked together.

    Every pair plays the same deals, each deal in both seat orders; one Bradley–Terry
    fit over all games gives each bot's Elo above the field's average.

    \b
    Example: cantstop tournament random cautious rule28 ga expert --games 1000
    """
    if len(bots) < 2:
        raise click.UsageError(f"a tournament needs at least 2 bots, not {len(bots)}")
    options = MatchOptions(**common)
    spec, out = prepare(bots, 2, options)
    errors = Console(stderr=True)
    prepare_bots(bots, preset(spec.variant), 2, errors, options.progress)
    note_rounding(errors, games, 2)
    pairs = len(bots) * (len(bots) - 1) // 2
    with progress_bar(errors, options.progress) as bar:
        task = bar.add_task("", total=None)
        played = 0

        def each_match(i: int, j: int, outcome: Outcome | None) -> None:
            nonlocal played
            if outcome is None:
                played += 1
                bar.update(task, description=f"{played}/{pairs} {spec.labels[i]} vs {spec.labels[j]}",
                           completed=0, total=None)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        standings = run_tournament(spec, games, options.jobs, out, each_match, advance)
    print_standings(standings, out, Console())
    played = sum(map(sum, standings.games)) // 2
    refuse_forfeits(spec.labels, standings.forfeits, played, options.allow_forfeits)
