"""The edge of every request: the one JSON shape of every refusal, with its HTTP status
chosen here for each domain error the services raise; the body size limit; the headers."""

from __future__ import annotations

import json
import logging
import re
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping, MutableMapping, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import SQLAlchemyError
from starlette.exceptions import HTTPException as StarletteHTTPException

from cantstop.core.errors import CantStopError
from cantstop.core.notation import action_json
from cantstop.table import GameOverError, IllegalMoveError, NotYourTurnError, StaleMoveError
from cantstop.web.errors import (
    Conflict,
    Invalid,
    NotAllowed,
    NotFound,
    NotOffered,
    NotSignedIn,
    NotVerified,
    Refused,
    TooMany,
    Unavailable,
)
from cantstop.web.settings import MAX_BODY, MAX_DEPTH

log = logging.getLogger("cantstop.web")
HTTP_CODES = {400: "bad_request", 404: "not_found", 405: "method_not_allowed"}
DB_DOWN = {"error": "db_unavailable", "message": "the database is unavailable just now; nothing was stored: try again shortly"}
INTERNAL = {"error": "internal", "message": "the server failed on this request (it is logged); nothing was stored"}


STATUS: dict[type[Refused], int] = {
    NotVerified: 400, NotSignedIn: 401, NotAllowed: 403, NotFound: 404, Conflict: 409, Invalid: 422, TooMany: 429,
    NotOffered: 501, Unavailable: 503,
}
# The table's refusals (the game's own rules): status and code.
TABLE_REFUSALS: dict[type[CantStopError], tuple[int, str]] = {
    StaleMoveError: (409, "stale"),
    GameOverError: (409, "game_over"),
    NotYourTurnError: (409, "not_your_turn"),
    IllegalMoveError: (422, "illegal"),
}
REFUSALS: tuple[type[CantStopError], ...] = (Refused, *TABLE_REFUSALS)
# What a client is told besides the body: when to try again, how to sign in.
HEADERS: dict[type[CantStopError], Callable[[Any], dict[str, str]]] = {
    TooMany: lambda error: {"Retry-After": str(error.retry_after)},
    Unavailable: lambda error: {"Retry-After": str(error.retry_after)},
    # A bearer token (the metrics') is asked for; a session or a password is not an HTTP scheme.
    NotSignedIn: lambda error: {"WWW-Authenticate": "Bearer"} if error.code == "bad_token" else {},
}


def refusal(error: CantStopError) -> tuple[int, dict[str, Any], dict[str, str]]:
    """The HTTP status, JSON body and headers that answer a refusal (one of REFUSALS): the one
    place they are chosen. A WebSocket's error frame carries the same body."""
    if isinstance(error, Refused):
        status = next(s for kind, s in STATUS.items() if isinstance(error, kind))
        code, details = error.code, error.details
    else:
        status, code = next(found for kind, found in TABLE_REFUSALS.items() if isinstance(error, kind))
        details = table_details(error)
    headers = HEADERS.get(type(error), lambda _: {})(error)
    return status, {"error": code, "message": str(error), **details}, headers


def table_details(error: CantStopError) -> dict[str, Any]:
    """What a client needs beside the message: the version to catch up to, or the legal moves."""
    if isinstance(error, StaleMoveError) and error.current is not None:
        return {"version": error.current}
    if isinstance(error, IllegalMoveError):
        return {"legal": [action_json(a) for a in error.legal]}
    return {}


def install_error_handlers(app: FastAPI) -> None:
    """Every refusal has the same shape, an `error` code and a `message`, whoever refuses."""

    async def refused(_: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, CantStopError)
        status, body, headers = refusal(error)
        return JSONResponse(body, status_code=status, headers=headers or None)

    for kind in REFUSALS:
        app.add_exception_handler(kind, refused)

    @app.exception_handler(SQLAlchemyError)
    async def database_down(_: Request, error: SQLAlchemyError) -> JSONResponse:
        log.error("database error: %s", error)
        return JSONResponse(DB_DOWN, status_code=503, headers={"Retry-After": "5"})

    @app.exception_handler(Exception)  # the last resort: still JSON, and still logged
    async def failed(_: Request, error: Exception) -> JSONResponse:
        return JSONResponse(INTERNAL, status_code=500)

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, error: RequestValidationError) -> JSONResponse:
        return JSONResponse(invalid_json(error), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, error: StarletteHTTPException) -> JSONResponse:
        code = HTTP_CODES.get(error.status_code, "http_error")
        return JSONResponse({"error": code, "message": str(error.detail)}, status_code=error.status_code, headers=error.headers)


def invalid_json(error: RequestValidationError) -> dict[str, Any]:
    """A body that does not fit the endpoint's model: each problem as 'field: what is wrong'."""
    detail = jsonable_encoder(error.errors(), exclude={"input", "url"})
    problems = field_problems(detail, skip=1, whole="the body")  # each loc starts with "body"
    return {"error": "bad_request", "message": f"the request does not fit the API: {problems}", "detail": detail}


def field_problems(errors: Sequence[Mapping[str, Any]], skip: int = 0, whole: str = "the message") -> str:
    """Pydantic's errors (the first five) as 'field: what is wrong; ...', after `skip` parts of each location."""
    problems = []
    for item in errors[:5]:
        if item.get("type") == "json_invalid":  # its loc is a character position, not a field
            problems.append(f"{whole} is not JSON ({item.get('ctx', {}).get('error', 'unreadable')})")
            continue
        field = ".".join(str(part) for part in item.get("loc", ())[skip:]) or whole
        problems.append(f"{field}: {item.get('msg', 'invalid')}")
    return "; ".join(problems)


Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[MutableMapping[str, Any], Receive, Send], Awaitable[None]]

_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKETS = re.compile(r"[\[\]{}]")


def json_depth(text: str) -> int:
    """How deeply arrays and objects nest in JSON `text` (read without parsing it, since
    parsing a deep enough text exhausts Python's recursion limit)."""
    depth = deepest = 0
    for bracket in _BRACKETS.findall(_STRINGS.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def too_deep(text: str) -> bool:
    """Whether JSON `text` nests arrays and objects deeper than MAX_DEPTH. Each level opens
    with a bracket, so a text with no more brackets than that is not read further (the
    messages of play have one or two)."""
    return text.count("{") + text.count("[") > MAX_DEPTH and json_depth(text) > MAX_DEPTH


TOO_LARGE = {"error": "too_large", "message": f"request bodies are at most {MAX_BODY} bytes"}
TOO_DEEP = {"error": "too_deep", "message": f"JSON may nest arrays and objects at most {MAX_DEPTH} deep"}


class HttpMiddleware(ABC):
    """An ASGI middleware for plain HTTP requests (WebSockets and the lifespan pass by)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    def __call__(self, scope: MutableMapping[str, Any], receive: Receive, send: Send) -> Awaitable[None]:
        # Not a coroutine of its own: a WebSocket is handed the inner application's, so this
        # layer is no frame of the socket's task, which every message and update would resume.
        if scope["type"] == "http":
            return self.http(scope, receive, send)
        return self.app(scope, receive, send)

    @abstractmethod
    async def http(self, scope: MutableMapping[str, Any], receive: Receive, send: Send) -> None: ...


class BodyGuard(HttpMiddleware):
    """Reads each HTTP request body before the application does: over MAX_BODY bytes is a 413,
    JSON nested deeper than MAX_DEPTH a 400, both as JSON and before any parsing."""

    async def http(self, scope: MutableMapping[str, Any], receive: Receive, send: Send) -> None:
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > MAX_BODY:
            await refuse(send, 413, TOO_LARGE)
            return
        chunks: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunks.append(message.get("body", b""))
            seen += len(chunks[-1])
            if seen > MAX_BODY:
                await refuse(send, 413, TOO_LARGE)
                return
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        if body and too_deep(body.decode("utf-8", "replace")):
            await refuse(send, 400, TOO_DEEP)
            return
        replayed = False

        async def replay() -> MutableMapping[str, Any]:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


# Scripts and styles from this server only, no inline script, no framing, no plugins.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self';"
    " object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
# FastAPI's /docs and /redoc pages start Swagger UI and ReDoc by an inline script, from a CDN.
DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net;"
    " style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net https://fonts.googleapis.com;"
    " font-src https://fonts.gstatic.com; img-src 'self' data: https://fastapi.tiangolo.com;"
    " worker-src blob:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
DOCS_PATHS = ("/docs", "/redoc")


class SecurityHeaders(HttpMiddleware):
    """The headers every response carries: what the page may load, who may frame it, no
    sniffing of types, and no full address sent to other sites."""

    async def http(self, scope: MutableMapping[str, Any], receive: Receive, send: Send) -> None:
        csp = DOCS_CSP if scope["path"].startswith(DOCS_PATHS) else CSP
        extra = [
            (b"content-security-policy", csp.encode()),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"same-origin"),
            (b"x-frame-options", b"DENY"),  # frame-ancestors for browsers without CSP 2
        ]

        async def with_headers(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, with_headers)


class HeadAsGet(HttpMiddleware):
    """HEAD wherever GET works: answered as GET would be, headers only."""

    async def http(self, scope: MutableMapping[str, Any], receive: Receive, send: Send) -> None:
        if scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)


async def refuse(send: Send, status: int, refusal: dict[str, str]) -> None:
    body = json.dumps(refusal).encode()
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})
