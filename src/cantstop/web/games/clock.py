"""The move clock: a game created with one gives each person so many seconds per move.

Real-time clocks (30 s, 2 min a move) and turn-based ones (12 h, a day, 3 days a move)
work alike. The deadline is never stored: it is the time of the game's last stored move
(or of its start) plus the clock, so it survives a restart. When it passes, the seat is
handed to the table's failure policy as a timeout (`LiveGames.fail_seat`), which plays
for it; the timeout that makes `forfeit_after` in a row for one seat forfeits the game
for it instead. Either way it is stored and broadcast like any move.

A countdown runs here only for a deadline due within `horizon` seconds: a turn-based game
waits without one, and the sweeper (`games/sweeper.py`) wakes its clock when the deadline
nears, in whichever process finds it, after a restart too. With several processes on one
database, the one that made the last move acts at the deadline and the others only a
standby later, as with bot seats; the version check lets exactly one of them store it.
"""

from __future__ import annotations

import asyncio
import logging

from cantstop.table import Fault
from cantstop.web.games.live import LiveGame, LiveGames

log = logging.getLogger("cantstop.web")

HOUR, DAY = 3600, 86400
REAL_TIME = (30, 120)  # seconds a move, for people playing at the same time
TURN_BASED = (12 * HOUR, DAY, 3 * DAY)  # seconds a move, for people who play when they can
CLOCKS = (0, *REAL_TIME, *TURN_BASED)  # what a game may be created with; 0: no clock
RAN_OUT = "the move clock ran out"


def duration_text(seconds: float) -> str:
    """'30 seconds', '2 minutes', '12 hours', '1 day', '7 days': the largest whole unit."""
    for unit, size in (("day", DAY), ("hour", HOUR), ("minute", 60)):
        if seconds >= size and seconds % size == 0:
            count = int(seconds // size)
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return f"{seconds:g} second{'s' if seconds != 1 else ''}"


class MoveClock:
    def __init__(self, games: LiveGames, standby: float = 5.0, forfeit_after: int = 3, horizon: float = 120.0) -> None:
        self.games = games
        self.standby = standby  # how much later a process that did not make the last move steps in
        self.forfeit_after = forfeit_after  # timeouts in a row that forfeit a seat; 0: never
        self.horizon = horizon  # seconds ahead a countdown is kept in memory
        self.timeouts = 0  # moves this process made for people out of time (the metrics read it)
        games.on_move.append(self.wake)
        games.on_load.append(self.wake)

    def wake(self, game: LiveGame) -> None:
        """(Re)start the game's countdown for the move now due, if it has a clock due soon."""
        if game.clock_task is not None and not game.clock_task.done():
            game.clock_task.cancel()
        deadline = game.deadline()
        if deadline is not None and deadline - game.now() <= self.horizon:
            game.clock_task = asyncio.create_task(self._expire(game, game.version, deadline))

    def counting(self, game: LiveGame) -> bool:
        """Whether a countdown runs for the game here."""
        return game.clock_task is not None and not game.clock_task.done()

    async def _expire(self, game: LiveGame, version: int, deadline: float) -> None:
        standby = 0.0 if game.driven == version else self.standby * game.clock_scale
        await asyncio.sleep(max(0.0, deadline + standby - game.now()))
        if game.version != version:
            return
        try:
            if await self.games.fail_seat(game.meta.id, version, Fault.TIMEOUT, RAN_OUT, self.forfeit_after):
                self.timeouts += 1
        except Exception as error:  # the database is down: the next sweep starts the clock again
            log.warning("the move clock of game %s could not act: %s", game.meta.id, error)

    async def close(self) -> None:
        tasks = [g.clock_task for g in self.games.held.values() if g.clock_task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
