"""The `cantstop` command line: one group, one module per family of commands."""

from __future__ import annotations

import click

from cantstop import __version__
from cantstop.cli.admin import admin
from cantstop.cli.analyse import analyse_command, rollmap_command
from cantstop.cli.arena import arena, tournament
from cantstop.cli.compile import compile_command
from cantstop.cli.engine import odds, options, replay
from cantstop.cli.play import play
from cantstop.cli.protocol import bot
from cantstop.cli.serve import serve
from cantstop.cli.solitaire import bots, solitaire
from cantstop.cli.solve import solve


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="cantstop")
def main() -> None:
    """Can't Stop: play it, study it, pit computer players against each other."""


main.add_command(odds)
main.add_command(options)
main.add_command(replay)
main.add_command(play)
main.add_command(solitaire)
main.add_command(bots)
main.add_command(arena)
main.add_command(tournament)
main.add_command(bot)
main.add_command(serve)
main.add_command(solve)
main.add_command(admin)
main.add_command(analyse_command)
main.add_command(rollmap_command)
main.add_command(compile_command)
