"""Who is signed in, and the account service, as FastAPI dependencies any route can declare:

    async def route(accounts: AccountsDep) -> ...     # the identity room's service
    async def route(account: CurrentAccount) -> ...   # an Account, or None for a guest
    async def route(me: SignedInSession) -> ...       # refused (401) unless signed in

A session cookie authorises changes only with its CSRF token: any unsafe request that a
session cookie signs in must carry the token in the X-CSRF-Token header (pages read it from
the `cantstop_csrf` cookie, which only this site's scripts can read) and, when the browser
says where it comes from (Origin), come from this site.
"""

from __future__ import annotations

import hmac
import math
from typing import Annotated

from fastapi import Depends, Request, Response
from starlette.requests import HTTPConnection

from cantstop.web.deps import get_service, get_settings, is_https
from cantstop.web.errors import NotAllowed, NotSignedIn
from cantstop.web.identity.accounts import Account, digest
from cantstop.web.identity.passkeys import CHALLENGE_LASTS
from cantstop.web.identity.service import AccountService
from cantstop.web.identity.sessions import SignedIn

SESSION_COOKIE = "cantstop_session"
CSRF_COOKIE = "cantstop_csrf"
CEREMONY_COOKIE = "cantstop_passkey"  # binds a passkey sign-in's challenge to the browser that asked
CEREMONY_PATH = "/api/account"
CSRF_HEADER = "x-csrf-token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
MAX_TOKEN = 100  # characters of a session cookie worth looking up


def get_accounts(conn: HTTPConnection) -> AccountService:
    return get_service(conn).identity


AccountsDep = Annotated[AccountService, Depends(get_accounts)]


def csrf_token(session_token: str) -> str:
    """The CSRF token of a session: derived from its secret, so it needs no storage and
    cannot be made without the (HttpOnly) session cookie."""
    return digest(f"csrf {session_token}")[:32]


def site_origin(conn: HTTPConnection) -> str:
    """This site's origin, which passkeys are bound to: the public one set, else the one asked at."""
    return get_settings(conn).public_origin or f"{'https' if is_https(conn) else 'http'}://{conn.headers.get('host', '')}"


def own_origins(conn: HTTPConnection) -> set[str]:
    """The origins this site's pages may send changes from: its own, and the extra ones allowed."""
    return {site_origin(conn), *get_settings(conn).origins}


def check_origin(request: Request) -> None:
    """NotAllowed `csrf` for an unsafe request that a browser says comes from another origin."""
    origin = request.headers.get("origin")
    if request.method not in SAFE_METHODS and origin is not None and origin not in own_origins(request):
        raise NotAllowed("csrf", f"a change is accepted from this site's own pages only, not from {origin[:100]}")


def session_token(conn: HTTPConnection) -> str | None:
    """The session cookie's token, if it is one worth looking up."""
    token = conn.cookies.get(SESSION_COOKIE)
    return token if token and len(token) <= MAX_TOKEN else None


async def session_of(conn: HTTPConnection) -> SignedIn | None:
    """The session the cookie names, if live (no CSRF check: for reads, and for a WebSocket,
    whose origin is checked when it opens)."""
    token = session_token(conn)
    return None if token is None else await get_accounts(conn).session(token)


def check_csrf(request: Request) -> None:
    """NotAllowed `csrf` for a change (an unsafe method) that the session cookie authorises
    without the session's CSRF token, or from another site."""
    if request.method in SAFE_METHODS:
        return
    check_origin(request)
    if not hmac.compare_digest(request.headers.get(CSRF_HEADER, ""), csrf_token(request.cookies.get(SESSION_COOKIE, ""))):
        raise NotAllowed("csrf", "a change made with a session cookie needs the session's token in the X-CSRF-Token header")


async def current_session(request: Request) -> SignedIn | None:
    """The session the cookie names, if live; for an unsafe method, only with its CSRF token."""
    found = await session_of(request)
    if found is not None:
        check_csrf(request)
    return found


CurrentSession = Annotated[SignedIn | None, Depends(current_session)]


async def current_account(session: CurrentSession) -> Account | None:
    return None if session is None else session.account


CurrentAccount = Annotated[Account | None, Depends(current_account)]


async def signed_in_session(session: CurrentSession) -> SignedIn:
    if session is None:
        raise NotSignedIn("not_signed_in", "sign in first (a session ends after a while unused, and when signed out)")
    return session


SignedInSession = Annotated[SignedIn, Depends(signed_in_session)]


def set_session_cookies(request: Request, response: Response, token: str) -> None:
    """The session cookie (HttpOnly: no script reads it) and its CSRF token's (pages read it)."""
    settings = get_settings(request)
    secure = settings.secure_cookies or is_https(request)
    lasts = math.ceil(settings.session_longest)
    response.set_cookie(SESSION_COOKIE, token, max_age=lasts, path="/", httponly=True, samesite="lax", secure=secure)
    response.set_cookie(CSRF_COOKIE, csrf_token(token), max_age=lasts, path="/", httponly=False, samesite="strict", secure=secure)


def set_ceremony_cookie(request: Request, response: Response, secret: str) -> None:
    """The secret of a passkey sign-in under way: HttpOnly, sent back only to the account API,
    and only for as long as its challenge lasts."""
    secure = get_settings(request).secure_cookies or is_https(request)
    lasts = int(CHALLENGE_LASTS.total_seconds())
    response.set_cookie(CEREMONY_COOKIE, secret, max_age=lasts, path=CEREMONY_PATH, httponly=True, samesite="strict", secure=secure)


def clear_ceremony_cookie(response: Response) -> None:
    response.delete_cookie(CEREMONY_COOKIE, path=CEREMONY_PATH)


def clear_session_cookies(response: Response) -> None:
    for name in (SESSION_COOKIE, CSRF_COOKIE):
        response.delete_cookie(name, path="/")
