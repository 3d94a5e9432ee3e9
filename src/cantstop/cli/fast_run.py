"""`--fast` for `cantstop solitaire` and `cantstop arena`: whole runs in the compiled simulator.

The games are `cantstop.fast.simulate`'s: counter dice keyed by (seed, deal, roll), so the
same seed gives the same run on any number of threads, but not the games the core path
plays for that seed (its dice come from another generator). Results are tallied chunk by
chunk, so a run of a billion games needs no more memory than one of a thousand, and
Ctrl-C stops it with the result so far.
"""

from __future__ import annotations

import math
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console

from cantstop.bots.base import get_bot
from cantstop.cli.engine import MAX_GAMES
from cantstop.cli.histogram import histogram, turn_limit_note, write_plot
from cantstop.cli.preparing import compile_notice
from cantstop.cli.progress import progress_bar
from cantstop.core.errors import CantStopError, UnknownBotError

if TYPE_CHECKING:
    from cantstop.fast.simulate import Simulation

FAST_MAX_GAMES = 1_000_000_000
COMPILED = ("random", "rule28", "ga", "expert")  # bots with a compiled twin in cantstop.fast
QUIET_EVERY = 10.0  # seconds between plain progress lines when no bar is shown


def fast_option(command: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--fast", is_flag=True,
        help="Play in the compiled simulator (pip install -e '.[fast]'): bots "
             f"{', '.join(COMPILED)}, up to {FAST_MAX_GAMES:,} games, on every core unless --jobs says.",
    )(command)


def check_core_games(games: int) -> None:
    """The core path's limit on --games (the fast path's is higher)."""
    if games > MAX_GAMES:
        raise click.BadParameter(
            f"{games:,} games is more than {MAX_GAMES:,}; add --fast for up to {FAST_MAX_GAMES:,}",
            param_hint="--games",
        )


def compiled_bot(name: str, hint: str = "BOTS") -> str:
    """The registry name of a bot with a compiled twin, or a clear error naming the bot."""
    if name.startswith("cmd:"):
        raise click.BadParameter(f"{name!r} is an outside program: --fast plays compiled bots only "
                                 f"({', '.join(COMPILED)})", param_hint=hint)
    try:
        bot = get_bot(name).name
    except UnknownBotError as error:
        raise click.BadParameter(str(error), param_hint=hint) from None
    if bot not in COMPILED:
        raise click.BadParameter(
            f"bot {bot!r} has no compiled form for --fast; compiled bots: {', '.join(COMPILED)}",
            param_hint=hint,
        )
    return bot


def _threads(jobs: int) -> int | None:
    """--jobs if the user gave it, else None (every core)."""
    source = click.get_current_context().get_parameter_source("jobs")
    return jobs if source is click.core.ParameterSource.COMMANDLINE else None


def _progress(errors: Console, shown: bool, label: str, games: int,
              runs: Iterator[Simulation]) -> Iterator[Simulation]:
    """Pass the chunks through, advancing a progress bar with an ETA on stderr.

    Without the bar (stderr is no terminal, or --no-progress), a plain line after the first
    chunk and then every `QUIET_EVERY` seconds says how far the run is.
    """
    said = -math.inf
    with progress_bar(errors, shown) as bar:
        task = bar.add_task(label, total=games)
        for run in runs:
            yield run
            done = run.first + run.games
            bar.update(task, completed=done)
            if not shown and time.monotonic() - said >= QUIET_EVERY and done < games:
                errors.print(f"{done:,} of {games:,} games played", markup=False)
                said = time.monotonic()


def _chunks(variant: str, bots: list[str], games: int, seed: int, threads: int | None,
            max_turns: int, errors: Console, shown: bool) -> Iterator[Simulation]:
    """The run's chunks, once one game on one thread has compiled the simulator (with
    "compiling … (first run only)" on `errors` while numba compiles, a spinner if `shown`):
    no progress bar waits on it."""
    try:
        from cantstop.fast.simulate import chunks
    except ImportError as error:
        raise click.ClickException(str(error)) from None
    try:
        with compile_notice(errors, "the simulator", shown):
            for _ in chunks(variant, bots, 1, seed, 1, max_turns):
                pass
    except (CantStopError, MemoryError) as error:
        raise click.ClickException(str(error)) from None
    return _stream(chunks(variant, bots, games, seed, threads, max_turns))


def _stream(runs: Iterator[Simulation]) -> Iterator[Simulation]:
    try:
        with _stop_between_chunks() as asked:
            for run in runs:
                yield run
                if asked():
                    raise KeyboardInterrupt
    except (CantStopError, MemoryError) as error:
        raise click.ClickException(str(error)) from None


@contextmanager
def _stop_between_chunks() -> Iterator[Callable[[], bool]]:
    """Ctrl-C stops the run once the chunk being played is done: a KeyboardInterrupt raised
    while the main thread waits for the chunk's threads can land inside a lock of
    `concurrent.futures` and come out as "cannot release un-acquired lock". A second Ctrl-C
    stops at once. Where SIGINT is ignored (a script's background job), it stays ignored."""
    asked = False

    def ask(signum: int, frame: object) -> None:
        nonlocal asked
        if asked:
            raise KeyboardInterrupt
        asked = True

    previous = signal.getsignal(signal.SIGINT)
    if previous is signal.SIG_IGN or threading.current_thread() is not threading.main_thread():
        yield lambda: False  # ignored, or not ours to handle (only the main thread sets handlers)
        return
    signal.signal(signal.SIGINT, ask)
    try:
        yield lambda: asked
    finally:
        signal.signal(signal.SIGINT, previous)


def fast_solitaire(bot: str, games: int, seed: int, jobs: int, variant: str,
                   plot_path: str | None, max_turns: int) -> None:
    """`cantstop solitaire BOT --fast`: the same report as the core path, from the simulator."""
    name = compiled_bot(bot, "BOT")
    errors = Console(stderr=True)
    counts: Counter[int] = Counter()
    played = total = squares = unfinished = 0
    runs = _chunks(variant, [name], games, seed, _threads(jobs), max_turns, errors, errors.is_terminal)
    try:
        for run in _progress(errors, errors.is_terminal, name, games, runs):
            values, tally = _tally(run.turns)
            counts.update(dict(zip(values, tally)))
            played += run.games
            total += int((run.turns.astype("int64")).sum())
            squares += int((run.turns.astype("int64") ** 2).sum())
            unfinished += int((run.winner < 0).sum())
    except KeyboardInterrupt:
        errors.print(f"interrupted: the result of the {played:,} games played so far", markup=False)
        if not played:
            return
    mean = total / played
    se = math.sqrt(max(0.0, squares - played * mean * mean) / (played - 1) / played) if played > 1 else math.nan
    click.echo(f"{name}: {mean:.3f} ± {se:.3f} turns (mean ± SE), {played} games, seed {seed}, fast; "
               f"{turn_limit_note(unfinished, max_turns)}")
    click.echo(histogram(counts))
    if plot_path:
        write_plot(counts, name, plot_path)


def _tally(turns: Any) -> tuple[list[int], list[int]]:
    import numpy as np

    values, tally = np.unique(turns, return_counts=True)
    return values.tolist(), tally.tolist()


def fast_arena(bots: tuple[str, ...], games: int, sprt: str | None, ray: str | None,
               common: dict[str, Any]) -> None:
    """`cantstop arena BOTS --fast`: wins of each bot over every seat order of each deal.

    Nothing is written to --out; --budget-ms and --tolerance do not apply.
    """
    if sprt is not None:
        raise click.UsageError("--sprt is for core matches; --fast plays the --games asked for")
    if ray is not None:
        raise click.UsageError("--ray is for core matches; --fast runs on this machine's cores")
    seed, jobs, variant = common["seed"], common["jobs"], common["variant_name"]
    max_turns, progress = common["max_turns"], common["progress"]
    names = [compiled_bot(b) for b in bots]
    orders = math.factorial(len(names))
    games = -(-games // orders) * orders  # whole deals, as the core arena plays them
    errors = Console(stderr=True)
    wins = [0] * len(names)
    draws = played = turns = 0
    runs = _chunks(variant, names, games, seed, _threads(jobs), max_turns, errors, progress)
    try:
        for run in _progress(errors, progress, " vs ".join(names), games, runs):
            for k in range(len(names)):
                wins[k] += int((run.winner == k).sum())
            draws += int((run.winner < 0).sum())
            played += run.games
            turns += int(run.turns.astype("int64").sum())
    except KeyboardInterrupt:
        errors.print(f"interrupted: the result of the {played:,} games played so far", markup=False)
        if not played:
            return
    click.echo(f"{played:,} games of {variant}, seed {seed}, fast: every deal in all {orders} seat orders; "
               f"{turns / played:.2f} turns a game; {draws:,} draws (past {max_turns} turns)")
    width = max(len(n) for n in names)
    for k, name in enumerate(names):
        p = wins[k] / played
        se = math.sqrt(p * (1 - p) / played)
        click.echo(f"  {k + 1}. {name:<{width}}  {wins[k]:>12,} wins  {100 * p:6.2f}% ± {196 * se:.2f}% (95%)")
    if len(names) == 2 and 0 < wins[0] < played - draws:
        share = (wins[0] + draws / 2) / played
        click.echo(f"  Elo of {names[0]} over {names[1]}: {-400 * math.log10(1 / share - 1):+.0f}")
