"""Leaving when the terminal is gone.

A game started through another program (`make play` runs it under make) gets no hang-up
signal when its terminal window closes: it would go on running with nobody to see it,
its input thread spinning on a dead terminal. Every app checks once a second that its
terminal is still there and exits if not (each action is already saved, so nothing is lost).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from textual.app import App

CHECK_EVERY = 1.0  # seconds


def leave_with_the_terminal(app: App[Any]) -> None:
    """Exit `app` once the terminal it started on is hung up (nothing to do without one)."""
    stream = sys.__stdin__
    if stream is None or not stream.isatty():
        return  # a test's headless run, or input from a pipe
    fd = stream.fileno()

    def check() -> None:
        try:
            os.tcgetpgrp(fd)  # fails with EIO once the terminal is hung up
        except OSError:
            app.exit()

    app.set_interval(CHECK_EVERY, check)


def need_a_terminal(command: str) -> None:
    """Refuse to start with an input that is no terminal: the app would wait for keys forever."""
    if not sys.stdin.isatty():
        raise NoTerminalError(f"{command} needs a terminal to read keys from: its input is not one")


class NoTerminalError(RuntimeError):
    """Raised by `need_a_terminal`; the command line shows it as an error."""
