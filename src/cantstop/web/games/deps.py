"""The seat a request holds in a game, as FastAPI dependencies: by its token (a bearer token,
or the game's seat cookie), else by the signed-in account whose seat it is, so a person who
signed in gets their seat back on any device. A change made through the account's seat is
authorised by a cookie the browser sends with any request, so it needs the session's CSRF
token: whether the account's session found the seat or the seat's own cookie did. A bearer
token needs none (no other page can send it). A guest's seat cookie has no session to take a
token from; it is SameSite=Strict, which keeps other sites out but not another page of the
same site (another port of the host, a sibling sub-domain): a change it authorises is
refused when the browser says it comes from another origin.

    async def route(game_id: str, you: SeatDep) -> ...      # a seat, or None for a spectator
    async def route(game_id: str, seat: ActingSeat) -> ...  # the same; a token of no seat refused
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from starlette.requests import HTTPConnection

from cantstop.web.deps import ServiceDep, bearer_of, token_of
from cantstop.web.identity.deps import check_csrf, check_origin, session_of


async def account_id_of(conn: HTTPConnection) -> int | None:
    """The signed-in account's id (a WebSocket's too), or None for a guest."""
    session = await session_of(conn)
    return None if session is None else session.account.id


async def seat_of_request(game_id: str, service: ServiceDep, conn: HTTPConnection) -> int | None:
    """The seat the request's token holds in game `game_id`, else its account's seat there;
    None for neither (a spectator). An unknown game is refused (404) before any token is looked at."""
    await service.games.live(game_id)
    token = token_of(conn, game_id)
    seat = await service.lobby.seat_of(game_id, token) if token else None
    if seat is None:  # the session is looked up only when no token answers
        account_id = await account_id_of(conn)
        seat = None if account_id is None else await service.lobby.seat_of(game_id, None, account_id)
    return seat


async def acting_seat(game_id: str, service: ServiceDep, request: Request) -> int | None:
    """As `seat_of_request`, but a token that holds no seat (and no account's seat to fall
    back on) is refused (403) rather than taken for a spectator's: a client that sends one
    meant to act. An account's seat, found by the session or by its seat cookie, needs the
    session's CSRF token; a guest's seat cookie, a request from this site's own pages (by its
    Origin, when the browser sends one)."""
    game = await service.games.live(game_id)
    token = token_of(request, game_id)
    seat = await service.lobby.seat_of(game_id, token) if token else None
    if seat is not None:
        if bearer_of(request) is None:
            check_cookie_change(request, game.meta.seats[seat].account_id is not None)
        return seat
    account_id = await account_id_of(request)
    mine = None if account_id is None else await service.lobby.seat_of(game_id, None, account_id)
    if mine is not None:
        check_csrf(request)
        return mine
    if token:
        await service.lobby.held_seat(game_id, token)  # refused: the token holds no seat
    return None


def check_cookie_change(request: Request, accounts_seat: bool) -> None:
    """NotAllowed `csrf` for a change a seat cookie authorises without what it needs: the
    session's CSRF token for an account's seat, this site's origin for a guest's."""
    if accounts_seat:
        check_csrf(request)
    else:
        check_origin(request)


SeatDep = Annotated[int | None, Depends(seat_of_request)]
ActingSeat = Annotated[int | None, Depends(acting_seat)]
