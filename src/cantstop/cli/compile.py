"""`cantstop compile`: the fast extra's kernels compiled ahead, for every bot that needs
them and for game analysis, so that no first game, match or analysis waits for numba.
`make play` and `make test` run it once after installing."""

from __future__ import annotations

import time

import click
from rich.console import Console

from cantstop.analysis.warm import warm_up
from cantstop.bots.base import Need, bot_names, get_bot, needs_fast
from cantstop.cli.analyse import compiling_analysis
from cantstop.cli.preparing import prepare_bots
from cantstop.core.variant import preset

# A kernel is compiled once for the types of its arguments, not for their values: the
# classic board at each player count reaches every kernel a bot's decision uses.
PLAYER_COUNTS = (1, 2, 3, 4)


@click.command("compile")
def compile_command() -> None:
    """Compile the kernels of the fast extra now: those of the bots that need it (at every
    player count) and of game analysis. numba keeps them on disk, so a first game, match or
    analysis starts at once; the first time takes a minute or two, afterwards a few seconds."""
    missing = needs_fast("cantstop.fast")
    if missing is not None:
        raise click.ClickException(f"there is nothing to compile without the fast extra: {missing}")
    console = Console(stderr=True)
    started = time.monotonic()
    classic = preset("classic")
    names = [name for name in bot_names() if Need.FAST in get_bot(name).needs and Need.SOLVED not in get_bot(name).needs]
    for players in PLAYER_COUNTS:
        prepare_bots([name for name in names if get_bot(name).fits(classic, players) is None], classic, players, console, console.is_terminal)
    try:
        with compiling_analysis():
            warm_up()
    except Exception as error:
        raise click.ClickException(f"game analysis could not be made ready: {type(error).__name__}: {error}") from None
    click.echo(f"ready: {', '.join(names)} and game analysis ({time.monotonic() - started:.1f} s)")
