"""Bot seats: a bot moves from an asyncio task per game, through the same act path as people.

The bot is the seat's player on the game's `Table`: `table.ask` runs it in a thread and
applies nothing; its move then goes through `LiveGames.act` like a person's, and a bot
that fails is handed to the table's failure policy (`LiveGames.fail_seat`).

With several server processes on one database, the process that made the last move lets
its bot think at once; the others stand by a little longer and step in only if it died.
"""

from __future__ import annotations

import asyncio
import logging
import random

from cantstop.bots import get_bot
from cantstop.core.errors import CantStopError
from cantstop.core.state import ROLL, Phase
from cantstop.table import BotPlayer, Move, SeatFailed, StaleMoveError
from cantstop.web.db.values import GameStatus, SeatKind
from cantstop.web.games.live import LiveGame, LiveGames

log = logging.getLogger("cantstop.web")


class BotSeats:
    def __init__(self, games: LiveGames, bot_delay: float = 0.8, bot_standby: float = 5.0) -> None:
        self.games = games
        self.bot_delay = bot_delay
        # How much longer a process that did not make the last move waits before its bot plays
        # in place of the one that did: past the bot's 1 s budget, so it acts only if that
        # process died. Without it every process would compute the same bot move.
        self.bot_standby = bot_standby
        games.on_move.append(self.wake)
        games.on_load.append(self.wake)  # a game read in (a restart, a sweep, a visitor) whose bot is to move moves on

    def wake(self, game: LiveGame) -> None:
        state = game.state
        if state is None or game.finished or game.meta.seats[state.seat].kind is not SeatKind.BOT:
            return
        if game.bot_task is None or game.bot_task.done():
            game.bot_task = asyncio.create_task(self._play(game))

    async def _play(self, game: LiveGame) -> None:
        while (table := game.table) is not None and not game.finished:
            version, mover = game.version, table.seat
            seat = game.meta.seats[mover]
            if seat.kind is not SeatKind.BOT or seat.bot is None:
                return
            standby = 0.0 if game.driven == version else self.bot_standby
            await asyncio.sleep(self.bot_delay + standby)
            if game.version != version or game.table is not table:
                continue
            answer: Move | SeatFailed = Move.of(ROLL)
            if table.player is None:  # the seat's bot, as the table's player, made ready off the event loop
                player = BotPlayer(get_bot(seat.bot), rng=random.Random())
                table.set_player(mover, player)
                try:  # what its first move would compile or load, before it is asked for one
                    await asyncio.to_thread(player.ready, table.variant, len(table.players))
                except SeatFailed as failure:
                    answer = failure
            if table.state.phase is not Phase.ROLL and not isinstance(answer, SeatFailed):
                answer = await asyncio.to_thread(table.ask)  # thinks off the event loop; applies nothing
            try:
                if isinstance(answer, SeatFailed):  # a broken bot must not stall the game: the table's policy plays for it
                    log.warning("bot %s failed in game %s (%s); the table falls back", seat.bot, game.meta.id, answer)
                    await self.games.fail_seat(game.meta.id, version, answer.fault, answer.reason)
                else:
                    await self.games.act(game.meta.id, mover, version, answer)
            except StaleMoveError:
                continue  # another process moved first: look again
            except CantStopError as error:
                log.warning("bot %s in game %s: %s", seat.bot, game.meta.id, error)
                return

    async def resume(self) -> None:
        """After a (re)start: wake the bots of every game in progress."""
        for meta in await self.games.recorder.db(self.games.storage.games, (GameStatus.PLAYING,), 10_000, with_bots=True):
            game = await self.games.live(meta.id)
            game.driven = game.version  # nobody may be left to move these bots but us
            self.wake(game)

    async def close(self) -> None:
        tasks = [g.bot_task for g in self.games.held.values() if g.bot_task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
