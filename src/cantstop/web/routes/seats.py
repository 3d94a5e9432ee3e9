"""Seat routes: the games a client plays in, those waiting for its move first ("your turn"),
and the one-time link that moves a guest's seat to another device.

A signed-in person's seats are their account's, found on any device. A guest's seat is held
by its token alone (the game's cookie, or a token the page keeps for people at its screen);
to play it on a phone, the guest asks for a link, which works once and for a few minutes:
opening it gives the seat a new token on the phone, and the old one holds nothing any more.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from fastapi import APIRouter, Depends, Request, Response
from pydantic import Field

from cantstop.web.db.rows import now
from cantstop.web.db.values import GameStatus
from cantstop.web.deps import ServiceDep, rate_limited, seat_cookies, set_seat_cookie
from cantstop.web.errors import Conflict, NotAllowed, NotVerified
from cantstop.web.games.describe import seat_summary_json, waiting_first
from cantstop.web.identity.deps import CurrentAccount
from cantstop.web.schemas import Joined, Strict
from cantstop.web.seating import ActingSeat

router = APIRouter(prefix="/api")
LINK_LASTS = timedelta(minutes=10)
UNDER_WAY = (GameStatus.WAITING, GameStatus.PLAYING)


class HeldToken(Strict):
    game: str = Field(max_length=64)
    token: str = Field(max_length=100)


class HeldSeats(Strict):
    tokens: list[HeldToken] = Field(default_factory=list, max_length=100, description="seats the page keeps for people at its screen")


class LinkCode(Strict):
    code: str = Field(max_length=100, description="the code from the link's #seat= part")


@router.post("/my-games")
async def my_games(body: HeldSeats, request: Request, service: ServiceDep, account: CurrentAccount) -> dict[str, Any]:
    """The games this client plays in that are waiting or under way: its account's, and those
    its seat cookies and `tokens` hold; the games waiting for its move first (`your_turn`),
    the least time left first (`left`, seconds, on a move clock), then the others, the last
    moved first. `waiting` counts the first kind."""
    mine: dict[str, dict[str, Any]] = {}
    if account is not None:
        for listed in await service.recorder.db(service.profiles.playing, None, account.id):
            mine[listed["id"]] = listed
    held = {**seat_cookies(request), **{t.game: t.token for t in body.tokens}}
    stamp = now()
    for game, seat in await service.recorder.db(service.storage.held_games, held, UNDER_WAY):
        if game.id not in mine:
            mine[game.id] = seat_summary_json(game, seat, stamp, service.games.clock_scale)
    games = waiting_first(list(mine.values()))
    return {"waiting": sum(g["your_turn"] for g in games), "games": games}


@router.post("/games/{game_id}/seat-link", dependencies=[Depends(rate_limited("join"))])
async def seat_link(game_id: str, seat: ActingSeat, service: ServiceDep) -> dict[str, Any]:
    """A one-time link (ten minutes) that moves this guest's seat to the device that opens it."""
    if seat is None:
        raise NotAllowed("not_seated", "this client holds no seat in this game: only a seat's holder can move it")
    game = await service.games.live(game_id)
    if game.meta.seats[seat].account_id is not None:
        raise Conflict("account_seat", "this seat is your account's: sign in on the other device and open the game there")
    if game.finished:
        raise Conflict("game_over", "the game is over: there is no seat to move")
    code = await service.recorder.db(service.storage.make_seat_link, game_id, seat, LINK_LASTS)
    minutes = int(LINK_LASTS.total_seconds() // 60)
    return {"url": f"/game/{game_id}#seat={code}", "code": code, "minutes": minutes}


@router.post("/games/{game_id}/seat-link/use", dependencies=[Depends(rate_limited("join"))])
async def use_seat_link(game_id: str, body: LinkCode, request: Request, response: Response, service: ServiceDep) -> Joined:
    """Take the seat a link moves: its new token, set as this browser's cookie for the game
    (the device that made the link holds the seat no more)."""
    game = await service.games.live(game_id)
    moved = await service.recorder.db(service.storage.use_seat_link, game_id, body.code)
    if moved is None:
        raise NotVerified("bad_link", "this seat link is unknown, used, expired or of another game: ask for a new one on the device that holds the seat")
    seat, token = moved
    set_seat_cookie(request, response, game_id, token)
    async with game.lock:
        await service.games.refresh(game, seats=True)
    return Joined(game=game_id, seat=seat, token=token)
