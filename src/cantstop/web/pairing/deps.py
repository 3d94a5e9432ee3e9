"""What the pairing room's routes take from a request: the room's service, and the request
secret a guest's browser holds (its cookie, sent to the pairing API only)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Response
from starlette.requests import HTTPConnection

from cantstop.web.deps import get_service, is_https
from cantstop.web.pairing.service import Pairing

PAIRING_COOKIE = "cantstop_pairing"
PAIRING_PATH = "/api/pairing"
PAIRING_COOKIE_LASTS = 86400  # seconds: a request expires long before
MAX_TOKEN = 100


def get_pairing(conn: HTTPConnection) -> Pairing:
    return get_service(conn).pairing


def held_request(conn: HTTPConnection) -> str | None:
    """The request secret the browser holds, if it is one worth looking up."""
    token = conn.cookies.get(PAIRING_COOKIE)
    return token if token and len(token) <= MAX_TOKEN else None


def set_pairing_cookie(conn: HTTPConnection, response: Response, token: str) -> None:
    """The request's secret as this browser's cookie: HttpOnly, SameSite=Strict, sent to the pairing API alone."""
    response.set_cookie(PAIRING_COOKIE, token, httponly=True, samesite="strict", max_age=PAIRING_COOKIE_LASTS, path=PAIRING_PATH,
                        secure=is_https(conn))


PairingDep = Annotated[Pairing, Depends(get_pairing)]
HeldRequest = Annotated[str | None, Depends(held_request)]
