"""What every route needs from the request: the game service and the client's seat token."""

from __future__ import annotations

from starlette.requests import HTTPConnection

from cantstop.web.service import GameService


def cookie_name(game_id: str) -> str:
    return f"cantstop_{game_id}"


def service_of(conn: HTTPConnection) -> GameService:
    service: GameService = conn.app.state.service
    return service


def token_of(conn: HTTPConnection, game_id: str) -> str | None:
    """A bearer token (programs) or the game's seat cookie (browsers)."""
    auth = conn.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return conn.cookies.get(cookie_name(game_id))
