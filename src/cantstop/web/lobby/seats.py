"""The seats a client holds: the games it plays in (those waiting for its move first), and
the one-time link that moves a guest's seat to another device.

A signed-in person's seats are their account's, found on any device. A guest's seat is held
by its token alone (the game's cookie, or a token the page keeps for people at its screen);
to play it on a phone, the guest asks for a link, which works once and for a few minutes:
opening it gives the seat a new token on the phone, and the old one holds nothing any more.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from cantstop.web.db.values import GameStatus
from cantstop.web.errors import Conflict, NotAllowed, NotVerified
from cantstop.web.games.describe import seat_summary_json, waiting_first
from cantstop.web.games.live import LiveGames
from cantstop.web.games.sweeper import stamp
from cantstop.web.players.service import Players

LINK_LASTS = timedelta(minutes=10)
UNDER_WAY = (GameStatus.WAITING, GameStatus.PLAYING)


class Seats:
    def __init__(self, games: LiveGames, players: Players) -> None:
        self.games, self.players = games, players

    async def held(self, account_id: int | None, tokens: Mapping[str, str]) -> dict[str, Any]:
        """The games waiting or under way that the account sits in and that `tokens` (game ->
        seat token) hold; those waiting for the client's move first (`your_turn`), the least
        time left first, then the others, the last moved first. `waiting` counts the first kind."""
        mine: dict[str, dict[str, Any]] = {}
        if account_id is not None:
            for game_json in await self.players.playing(account_id):
                mine[game_json["id"]] = game_json
        games = self.games
        at = stamp(games.now())  # the server's clock, as the live games' deadlines count
        for game, seat in await games.recorder.db(games.storage.held_games, dict(tokens), UNDER_WAY):
            if game.id not in mine:
                mine[game.id] = seat_summary_json(game, seat, at, games.clock_scale)
        ordered = waiting_first(list(mine.values()))
        return {"waiting": sum(g["your_turn"] for g in ordered), "games": ordered}

    async def link(self, game_id: str, seat: int | None) -> dict[str, Any]:
        """A one-time link that moves guest `seat` to the device that opens it. NotAllowed
        `not_seated`; Conflict `account_seat` (an account's seat is found by signing in) or
        `game_over`."""
        if seat is None:
            raise NotAllowed("not_seated", "this client holds no seat in this game: only a seat's holder can move it")
        games = self.games
        game = await games.live(game_id)
        if game.meta.seats[seat].account_id is not None:
            raise Conflict("account_seat", "this seat is your account's: sign in on the other device and open the game there")
        if game.finished:
            raise Conflict("game_over", "the game is over: there is no seat to move")
        code = await games.recorder.db(games.storage.make_seat_link, game_id, seat, LINK_LASTS)
        minutes = int(LINK_LASTS.total_seconds() // 60)
        return {"url": f"/game/{game_id}#seat={code}", "code": code, "minutes": minutes}

    async def use_link(self, game_id: str, code: str) -> tuple[int, str]:
        """The seat a link moves and its new token (the old token holds it no more);
        NotVerified `bad_link` for a link unknown, used, expired or of another game."""
        games = self.games
        game = await games.live(game_id)
        moved = await games.recorder.db(games.storage.use_seat_link, game_id, code)
        if moved is None:
            raise NotVerified("bad_link", "this seat link is unknown, used, expired or of another game: ask for a new one on the device that holds the seat")
        async with game.lock:
            await games.refresh(game, seats=True)
        seat, token = moved
        return seat, token
