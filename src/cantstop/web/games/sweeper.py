"""The sweeper: every game ends, whichever process holds it and whatever restarts meanwhile.

Every `every` seconds each server process asks the database for the games that need
something done, oldest first:

- a game in play whose move clock runs out within the clock's horizon: its countdown is
  started here (`MoveClock.wake`), so a turn-based game's clock needs nothing in memory
  until its deadline nears, and a restart loses no deadline;
- a game with no clock running (waiting for players, or played without a clock) that
  nothing happened to, and that no player had open, for `abandon_after` seconds: it ends,
  abandoned and unrated (`Leaving.abandon`);
- a rated game won more than RATE_AFTER seconds ago (within the last day) and not rated:
  the process that ended it stopped before writing its rating (which follows the last
  move, `LiveGames.rate`); it is rated here, once, whoever else gets to it.

"Had open" is written down by each process: the games a player has open there (a seat's
page connected) get their `seen` time set at each sweep, and when the last player closes
one. With several processes on one database they may all find the same game: its end
takes the game's next version in the events' unique (game, version) key, as a move
would, so only one of them can end it, and a move stored first wins over the end.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from cantstop.web.games.clock import CLOCKS, DAY, MoveClock, duration_text
from cantstop.web.games.leaving import Leaving
from cantstop.web.games.live import LiveGames
from cantstop.web.players import standings

log = logging.getLogger("cantstop.web")

WEEK = 7 * DAY
RATE_AFTER = 30.0  # seconds a won rated game is left to the process that ended it to rate
BATCH = 1000  # games one sweep looks at, at most; the next sweep takes the rest


def stamp(seconds: float) -> datetime:
    """A time (seconds since the epoch) as the database keeps it: UTC without a zone."""
    return datetime.fromtimestamp(seconds, UTC).replace(tzinfo=None)


def abandoned_reason(after: float) -> str:
    return f"Abandoned: no player had the game open for {duration_text(after)}."


class Sweeper:
    def __init__(self, games: LiveGames, clock: MoveClock, leaving: Leaving, every: float = 60.0, abandon_after: float = WEEK) -> None:
        self.games = games
        self.clock = clock
        self.leaving = leaving
        self.every = every
        self.abandon_after = abandon_after
        self.abandoned = 0  # games this process ended as abandoned (the metrics read it)
        self.rated = 0  # games this process rated for a process that stopped before it did (the metrics read it)
        self._tasks: list[asyncio.Task[None]] = []  # one per event loop the app was started on (tests start one app twice)
        self._sweeps: set[asyncio.Future[None]] = set()  # sweeps under way
        # Other rooms' looks at each sweep (the tournaments'), each returning how many things it did.
        self.also: list[Callable[[], Awaitable[int]]] = []

    def start(self) -> None:
        self._tasks.append(asyncio.create_task(self._run()))

    async def _run(self) -> None:
        while True:
            sweeping = asyncio.ensure_future(self._sweep_once())
            self._sweeps.add(sweeping)
            sweeping.add_done_callback(self._sweeps.discard)
            # Shielded: a sweep under way is not cut short by `close`, which waits for it
            # instead (its database calls run in threads, which a cancel would leave running).
            await asyncio.shield(sweeping)
            await asyncio.sleep(self.every)

    async def _sweep_once(self) -> None:
        try:
            await self.sweep()
        except Exception as error:  # the database is down: the next sweep tries again
            log.warning("the sweep for overdue games failed: %s", error)

    async def sweep(self) -> int:
        """One look for overdue games; returns how many it acted on (clocks woken, games
        ended, games rated)."""
        games = self.games
        now = games.now()
        open_here = {g.meta.id for g in list(games.held.values()) if g.connections.people_here} | games.seen
        games.seen = set()
        await games.recorder.db(games.storage.seen_now, sorted(open_here), stamp(now))
        horizon = self.clock.horizon
        clocks = {c: stamp(now + horizon - c * games.clock_scale) for c in CLOCKS if c}
        idle_before = stamp(now - self.abandon_after)
        acted = 0
        for game_id, timed in await games.recorder.db(games.storage.overdue, clocks, idle_before, BATCH):
            if timed:  # loading the game starts its countdown; one held already may need it started
                held = games.held.get(game_id)
                counting = held is not None and self.clock.counting(held)
                game = held or await games.live(game_id)
                if not self.clock.counting(game):
                    self.clock.wake(game)
                acted += not counting and self.clock.counting(game)
            elif await self.leaving.abandon(game_id, abandoned_reason(self.abandon_after), idle_before):
                self.abandoned += 1
                acted += 1
        acted += await self._rate_left(now)
        for look in self.also:
            acted += await look()
        # Last, so that the games this look read in and found nothing to do for go too: a
        # waiting game costs no memory here until it is opened or its clock nears its end.
        games.let_go_idle()
        return acted

    async def _rate_left(self, now: float) -> int:
        games = self.games
        rated = 0
        for game_id in await games.recorder.db(standings.unrated, games.storage, stamp(now - DAY), stamp(now - RATE_AFTER), BATCH):
            try:
                rated += await games.rate(await games.live(game_id))
            except Exception as error:  # one game that cannot be rated holds up none of the others
                log.warning("the sweep could not rate game %s: %s", game_id, error)
        self.rated += rated
        return rated

    async def close(self) -> None:
        loop = asyncio.get_running_loop()
        mine = [task for task in self._tasks if task.get_loop() is loop]
        self._tasks = [task for task in self._tasks if task not in mine]
        for task in mine:
            task.cancel()
        await asyncio.gather(*mine, return_exceptions=True)
        await asyncio.gather(*[s for s in self._sweeps if s.get_loop() is loop], return_exceptions=True)
