"""Leaving a game: a player resigning at any moment, and a game left alone ending, abandoned.

A resignation is the table's `resign` move, stored like any move (`LiveGames.commit`): the
seat leaves, its pieces come off, and with one seat left that one has won. Before the
start the seat is only opened again; alone (solitaire) the game ends unfinished. A game
left alone ends without a winner (`LiveGames.end`), once, whichever process finds it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from cantstop.core.notation import seat_letter
from cantstop.table import GameOverError, StaleMoveError
from cantstop.web.errors import Conflict, NotAllowed
from cantstop.web.games.describe import display_names
from cantstop.web.games.live import LiveGame, LiveGames, ended_words, leave_moves, may_leave

TRIES = 3  # another process may store a move while a resignation is made: it is tried again


class Leaving:
    def __init__(self, games: LiveGames) -> None:
        self.games = games

    async def resign(self, game_id: str, seat: int | None) -> dict[str, Any]:
        """`seat` gives up, at any moment: before the start its seat opens again; in play it
        leaves the game (its pieces come off, the others play on, and with one seat left that
        one wins); alone (solitaire) the game ends there, abandoned. Returns the new game JSON.
        Refused: no seat (`NotAllowed`), a seat that left already (`Conflict`), a game over
        (`GameOverError`)."""
        games = self.games
        game = await games.live(game_id)
        if seat is None:
            raise NotAllowed("not_seated", "this client holds no seat in this game: only a player can resign")
        for _ in range(TRIES):
            async with game.lock:
                await games.refresh(game, seats=True)
                table = game.table
                if game.finished:
                    won = "" if table is None or table.winner is None else f": {game.names[table.winner]} won"
                    raise GameOverError(f"there is nothing to resign: {ended_words(game) if game.ended else 'the game is over'}{won}",
                                        None if table is None else table.winner)
                if table is None:
                    return await self._before_start(game, seat)
                if seat in table.state.out:
                    raise Conflict("already_left", f"seat {seat_letter(seat)} has left this game already; nothing was done")
                if not may_leave(table, seat):
                    name = display_names(game.names)[seat]
                    await games.end(game, f"{name} gave up in turn {table.state.turn + 1}.")
                    return game.snapshot()
                moves, winner = leave_moves(table, seat, "resigned")
                try:
                    await games.commit(game, moves, winner)
                except StaleMoveError:
                    continue
                return game.snapshot()
        raise Conflict("busy", f"the game moved on {TRIES} times while resigning: try again")

    async def _before_start(self, game: LiveGame, seat: int) -> dict[str, Any]:
        """A seat left before the start is open again (the caller holds the game's lock)."""
        games = self.games
        if not await games.recorder.db(games.storage.free_seat, game.meta.id, seat):
            raise Conflict("not_waiting", "the game has just started: resign again to leave it")
        name = display_names(game.names)[seat]
        await games.reread(game)
        entries = [{"kind": "leave", "seat": seat, "version": 0, "text": f"{name} left seat {seat_letter(seat)}: it is open again."}]
        game.log.extend(entries)
        games.publish(game, entries)
        return game.snapshot()

    async def abandon(self, game_id: str, reason: str, idle_before: datetime) -> bool:
        """End a game left alone: only if nothing happened to it since `idle_before`, and no
        player has it open here or had it open since (in any process). False if not ended now."""
        games = self.games
        game = await games.live(game_id)
        async with game.lock:
            await games.refresh(game, seats=True)
            if game.finished or game.connections.people_here:
                return False
            ended = await games.end(game, reason, idle_before)
        games.forget_if_idle(game)  # a sweep may end many games nobody watches: they need no memory
        return ended
