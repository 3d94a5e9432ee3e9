"""Bots made ready before a command's first game: what they compile or load, done in the
parent process before any worker starts or any clock runs, with "compiling … (first run
only)" on stderr while numba compiles (its disk cache then serves the workers)."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

import click
from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from cantstop.arena.player import COMMAND_PREFIX
from cantstop.bots import get_bot
from cantstop.bots.base import Need
from cantstop.bots.compiling import cache_folder, watch_compiling
from cantstop.core.variant import Variant

OURS = "cantstop."  # the kernels worth naming; numba's own helpers are only counted


@contextmanager
def compile_notice(console: Console, what: str, shown: bool) -> Iterator[None]:
    """While the block runs, say on `console` when numba compiles: a line naming `what`,
    then (when `shown`) a spinner with the functions compiled so far and the time, and a
    closing line with their number and the seconds. Nothing at all when nothing compiles."""
    started: float | None = None
    count = 0
    spinner = Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                       console=console, transient=True, disable=not shown)
    task = spinner.add_task("compiling", total=None)

    def heard(name: str) -> None:
        nonlocal started, count
        if started is None:
            started = time.monotonic()
            console.print(f"compiling {what} (first run only: numba keeps what it compiles in "
                          f"{cache_folder()})", markup=False, soft_wrap=True)
            spinner.start()
        count += 1
        if name.startswith(OURS):
            spinner.update(task, description=f"{count} functions compiled, now {name.rpartition('.')[2]}")

    try:
        with watch_compiling(heard):
            yield
    finally:
        spinner.stop()
        if started is not None:
            console.print(f"compiled {count} function{'s' * (count != 1)} in {time.monotonic() - started:.1f} s", markup=False, soft_wrap=True)


def prepare_bots(bots: Iterable[str], variant: Variant, players: int, console: Console, shown: bool) -> None:
    """Make each built-in bot among `bots` ready for games of `variant` with `players` players.

    Raises `click.ClickException` naming the bot if one cannot be made ready."""
    for name in dict.fromkeys(bot for bot in bots if not bot.startswith(COMMAND_PREFIX)):
        info = get_bot(name)
        if not info.prepares:
            continue
        what = f"the {info.display} for {variant.name} with {players} player{'s' * (players != 1)}"
        try:
            if Need.FAST in info.needs:  # only then is numba worth importing to listen to it
                with compile_notice(console, what, shown):
                    info.prepare(variant, players)
            else:
                info.prepare(variant, players)
        except Exception as error:
            raise click.ClickException(f"{what} could not be made ready: {type(error).__name__}: {error}") from None
