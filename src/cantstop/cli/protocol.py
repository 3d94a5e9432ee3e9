"""`cantstop bot`: serve a built-in bot over the outside-bot protocol on stdin/stdout."""

from __future__ import annotations

import sys

import click

from cantstop.core.errors import UnknownBotError
from cantstop.protocol.server import serve


@click.command()
@click.argument("name")
def bot(name: str) -> None:
    """Serve the bot NAME (or a level) over the text protocol of docs/protocol.md."""
    try:
        serve(name, sys.stdin, sys.stdout)
    except UnknownBotError as error:
        raise click.BadParameter(f"{error}", param_hint="NAME") from None
    except KeyboardInterrupt:
        pass

