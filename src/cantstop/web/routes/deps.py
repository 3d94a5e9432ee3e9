"""What every route needs from the request: the game service, the client's seat token,
its address and scheme (believing a proxy's X-Forwarded-* only from a trusted proxy), and
the rate limits."""

from __future__ import annotations

from starlette.requests import HTTPConnection

from cantstop.web.service import GameService
from cantstop.web.settings import Settings
from cantstop.web.throttle import Throttle


def cookie_name(game_id: str) -> str:
    return f"cantstop_{game_id}"


def service_of(conn: HTTPConnection) -> GameService:
    service: GameService = conn.app.state.service
    return service


def settings_of(conn: HTTPConnection) -> Settings:
    settings: Settings = conn.app.state.settings
    return settings


def token_of(conn: HTTPConnection, game_id: str) -> str | None:
    """A bearer token (programs) or the game's seat cookie (browsers)."""
    auth = conn.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return conn.cookies.get(cookie_name(game_id))


def _via_proxy(conn: HTTPConnection) -> bool:
    return conn.client is not None and conn.client.host in settings_of(conn).trusted_proxies


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


async def limit(conn: HTTPConnection, what: str) -> None:
    """Count one `what` (create, join, action, chat) for this client: 429 past its limit."""
    throttle: Throttle = conn.app.state.throttle
    await throttle.check(what, client_address(conn))
