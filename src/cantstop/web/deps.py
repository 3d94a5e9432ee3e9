"""What routes need from a request, declared once as `Annotated` dependencies: the game
service (`ServiceDep`), the settings (`SettingsDep`), and a rate limit counted for the
client (`rate_limited`); the seat a request holds is `web.seating`'s, who is signed in
`web.identity.deps`'s.
Also the client's address and scheme, believing a proxy's X-Forwarded-* only from a
trusted proxy. A route that needs a new thing from the request gets one more here."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import Depends, Response
from starlette.requests import HTTPConnection

from cantstop.web.db.tokens import GAME_ID
from cantstop.web.rate_limit import RateLimiter
from cantstop.web.service import GameService
from cantstop.web.settings import Settings

COOKIE_PREFIX = "cantstop_"  # a seat's cookie: the prefix and the game's id
NOT_SEATS = frozenset({"session", "csrf", "passkey"})  # the account's cookies share the prefix


def cookie_name(game_id: str) -> str:
    return f"{COOKIE_PREFIX}{game_id}"


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


SEAT_COOKIE_DAYS = 90


def set_seat_cookie(conn: HTTPConnection, response: Response, game_id: str, token: str) -> None:
    """The seat's token as this browser's cookie for the game: HttpOnly (no script reads it)
    and SameSite=Strict (no other site's page sends it)."""
    response.set_cookie(
        cookie_name(game_id), token, httponly=True, samesite="strict", max_age=SEAT_COOKIE_DAYS * 86400, path="/", secure=is_https(conn)
    )


def clear_seat_cookie(conn: HTTPConnection, response: Response, game_id: str) -> None:
    """Tell the browser to drop its cookie for the game (set as `set_seat_cookie` sets it)."""
    response.delete_cookie(cookie_name(game_id), path="/", secure=is_https(conn), httponly=True, samesite="strict")


def seat_cookies(conn: HTTPConnection, most: int = 100) -> dict[str, str]:
    """Game id -> the seat token of each game cookie the browser sent (at most `most`)."""
    found: dict[str, str] = {}
    for key, value in conn.cookies.items():
        game_id = key.removeprefix(COOKIE_PREFIX)
        if key.startswith(COOKIE_PREFIX) and game_id not in NOT_SEATS and GAME_ID.fullmatch(game_id) and value and len(found) < most:
            found[game_id] = value[:100]
    return found


def bearer_of(conn: HTTPConnection) -> str | None:
    """The bearer token of the Authorization header (programs, and seats kept by a page), if any."""
    auth = conn.headers.get("authorization", "")
    return auth[7:].strip() if auth.lower().startswith("bearer ") else None


def token_of(conn: HTTPConnection, game_id: str) -> str | None:
    """A bearer token (programs) or the game's seat cookie (browsers)."""
    bearer = bearer_of(conn)
    return bearer if bearer is not None else conn.cookies.get(cookie_name(game_id))


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
