"""What routes need from a request, declared once as `Annotated` dependencies: the game
service (`ServiceDep`), the settings (`SettingsDep`), the seat the request's token holds
(`SeatDep`, `ActingSeat`), and a rate limit counted for the client (`rate_limited`).
Also the client's address and scheme, believing a proxy's X-Forwarded-* only from a
trusted proxy. A route that needs a new thing from the request gets one more here."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import Depends
from starlette.requests import HTTPConnection

from cantstop.web.rate_limit import RateLimiter
from cantstop.web.service import GameService
from cantstop.web.settings import Settings


def cookie_name(game_id: str) -> str:
    return f"cantstop_{game_id}"


def get_service(conn: HTTPConnection) -> GameService:
    service: GameService = conn.app.state.service
    return service


def get_settings(conn: HTTPConnection) -> Settings:
    settings: Settings = conn.app.state.settings
    return settings


def get_limiter(conn: HTTPConnection) -> RateLimiter:
    limiter: RateLimiter = conn.app.state.limiter
    return limiter


ServiceDep = Annotated[GameService, Depends(get_service)]
SettingsDep = Annotated[Settings, Depends(get_settings)]


def token_of(conn: HTTPConnection, game_id: str) -> str | None:
    """A bearer token (programs) or the game's seat cookie (browsers)."""
    auth = conn.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return conn.cookies.get(cookie_name(game_id))


async def seat_of_request(conn: HTTPConnection, game_id: str, service: ServiceDep) -> int | None:
    """The seat the request's token holds in game `game_id`, None for none (a spectator).
    An unknown game is refused (404) before any token is looked at."""
    await service.games.live(game_id)
    return await service.lobby.seat_of(game_id, token_of(conn, game_id))


async def acting_seat(conn: HTTPConnection, game_id: str, service: ServiceDep) -> int | None:
    """As `seat_of_request`, but a token that holds no seat is refused (403) rather than taken
    for a spectator's: a client that sends one meant to act."""
    await service.games.live(game_id)
    token = token_of(conn, game_id)
    return None if not token else await service.lobby.held_seat(game_id, token)


SeatDep = Annotated[int | None, Depends(seat_of_request)]
ActingSeat = Annotated[int | None, Depends(acting_seat)]


def _via_proxy(conn: HTTPConnection) -> bool:
    return conn.client is not None and conn.client.host in get_settings(conn).trusted_proxies


def client_address(conn: HTTPConnection) -> str:
    """The address rate limits count by: the peer, or the address a trusted proxy saw."""
    peer = conn.client.host if conn.client is not None else "unknown"
    forwarded = conn.headers.get("x-forwarded-for")
    if forwarded and _via_proxy(conn):
        return forwarded.split(",")[-1].strip() or peer  # the hop our proxy added is the last
    return peer


def is_https(conn: HTTPConnection) -> bool:
    if _via_proxy(conn) and "x-forwarded-proto" in conn.headers:
        return conn.headers["x-forwarded-proto"].split(",")[0].strip().lower() in ("https", "wss")
    return conn.url.scheme in ("https", "wss")


def limit(conn: HTTPConnection, what: str) -> None:
    """Count one `what` (create, join, action, chat) for this client: refused past its limit."""
    get_limiter(conn).check(what, client_address(conn))


def rate_limited(what: str) -> Callable[[HTTPConnection], Awaitable[None]]:
    """A dependency that counts one `what` for the client before the route runs."""

    async def counted(conn: HTTPConnection) -> None:
        limit(conn, what)

    return counted
