"""A match's players by name: built-in bots run in this process, `cmd:` bots outside it.

Each worker (a process of `--jobs`, or a Ray actor) opens one set and closes it at the end.
"""

from __future__ import annotations

import os
from pathlib import Path

from cantstop.arena.match import MatchSpec
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


def make_players(spec: MatchSpec, log_dir: Path | None) -> list[Player]:
    """One player per bot; outside bots' stderr goes to a log file per bot and process."""
    players: list[Player] = []
    for bot, label in zip(spec.bots, spec.labels):
        log = None
        if log_dir is not None and bot.startswith(COMMAND_PREFIX):
            safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in label)
            log = str(log_dir / f"{safe}.{os.getpid()}.stderr")
        players.append(open_player(bot, spec.tolerance, log))
    return players


def close_players(players: list[Player]) -> None:
    """Close each player: an outside program is told to quit."""
    for player in players:
        player.close()
