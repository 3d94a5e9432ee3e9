"""The move clock: a game created with one gives each person so many seconds per move.

The deadline is never stored: it is the time of the game's last stored move (or of its
start) plus the clock, so it survives a restart. When it passes, the seat is handed to
the table's failure policy as a timeout (`LiveGames.fail_seat`); what the policy plays is
stored and broadcast like any move. With several processes on one database, the one that
made the last move acts at the deadline and the others only a standby later, as with bot
seats; the version check lets exactly one of them store the timeout in any case.
"""

from __future__ import annotations

import asyncio
import logging
import time

from cantstop.table import Fault
from cantstop.web.db.values import GameStatus
from cantstop.web.games.live import LiveGame, LiveGames

log = logging.getLogger("cantstop.web")

CLOCKS = (0, 30, 120)  # the seconds a game may give each move; 0: no clock
RAN_OUT = "the move clock ran out"


class MoveClock:
    def __init__(self, games: LiveGames, standby: float = 5.0) -> None:
        self.games = games
        self.standby = standby  # how much later a process that did not make the last move steps in
        self.timeouts = 0  # moves this process made for people out of time (the metrics read it)
        games.on_move.append(self.wake)
        games.on_load.append(self.wake)

    def wake(self, game: LiveGame) -> None:
        """(Re)start the game's countdown for the move now due, if it has a clock."""
        if game.clock_task is not None and not game.clock_task.done():
            game.clock_task.cancel()
        deadline = game.deadline()
        if deadline is not None:
            game.clock_task = asyncio.create_task(self._expire(game, game.version, deadline))

    async def _expire(self, game: LiveGame, version: int, deadline: float) -> None:
        standby = 0.0 if game.driven == version else self.standby * game.clock_scale
        await asyncio.sleep(max(0.0, deadline + standby - time.time()))
        if game.version != version:
            return
        try:
            if await self.games.fail_seat(game.meta.id, version, Fault.TIMEOUT, RAN_OUT):
                self.timeouts += 1
        except Exception as error:  # the database is down: the next move or restart starts the clock again
            log.warning("the move clock of game %s could not act: %s", game.meta.id, error)

    async def resume(self) -> None:
        """After a (re)start: the clocks of every game in progress that has one."""
        for meta in await self.games.recorder.db(self.games.storage.games, (GameStatus.PLAYING,), 10_000):
            if meta.clock:
                self.wake(await self.games.live(meta.id))

    async def close(self) -> None:
        tasks = [g.clock_task for g in self.games.held.values() if g.clock_task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
