"""A match's players by name: built-in bots run in this process, `cmd:` bots outside it."""

from __future__ import annotations

from cantstop.bots import get_bot
from cantstop.core.errors import SetupError
from cantstop.protocol.client import ProtocolPlayer
from cantstop.table.players import BotPlayer, Player

COMMAND_PREFIX = "cmd:"


def open_player(spec: str, tolerance: float, log: str | None = None) -> Player:
    """A player from a bot name (or level) or from `cmd:COMMAND`; an unknown name raises `UnknownBotError`."""
    if spec.startswith(COMMAND_PREFIX):
        command = spec[len(COMMAND_PREFIX) :].strip()
        if not command:
            raise SetupError("cmd: needs a command after it, e.g. cmd:python examples/mybot.py")
        return ProtocolPlayer(command, tolerance, log)
    return BotPlayer(get_bot(spec), tolerance)
