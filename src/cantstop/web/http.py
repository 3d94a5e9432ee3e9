"""What wraps every request: the body size limit and the one JSON shape of every refusal."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from cantstop.web.errors import ApiError
from cantstop.web.settings import MAX_BODY

HTTP_CODES = {404: "not_found", 405: "method_not_allowed"}


def install_error_handlers(app: FastAPI) -> None:
    """Every refusal has the same shape, an `error` code and a `message`, whoever refuses."""

    @app.exception_handler(ApiError)
    async def api_error(_: Request, error: ApiError) -> JSONResponse:
        return JSONResponse(error.json(), status_code=error.status, headers=error.headers or None)

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, error: RequestValidationError) -> JSONResponse:
        return JSONResponse(invalid_json(error), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, error: StarletteHTTPException) -> JSONResponse:
        if isinstance(error.__cause__, BodyTooLarge):  # FastAPI turns a failed body read into a 400
            return JSONResponse(TOO_LARGE, status_code=413)
        code = HTTP_CODES.get(error.status_code, "http_error")
        return JSONResponse({"error": code, "message": str(error.detail)}, status_code=error.status_code, headers=error.headers)


def invalid_json(error: RequestValidationError) -> dict[str, Any]:
    """A body that does not fit the endpoint's model: each problem as 'field: what is wrong'."""
    detail = jsonable_encoder(error.errors(), exclude={"input", "url"})
    problems = []
    for item in detail[:5]:
        if item.get("type") == "json_invalid":  # its loc is a character position, not a field
            problems.append(f"the body is not JSON ({item.get('ctx', {}).get('error', 'unreadable')})")
            continue
        field = ".".join(str(part) for part in item.get("loc", ())[1:]) or "the body"
        problems.append(f"{field}: {item.get('msg', 'invalid')}")
    return {"error": "bad_request", "message": "the request does not fit the API: " + "; ".join(problems), "detail": detail}


Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[MutableMapping[str, Any], Receive, Send], Awaitable[None]]


class BodyLimit:
    """Refuses HTTP request bodies over MAX_BODY bytes with a JSON 413, before any parsing."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: MutableMapping[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > MAX_BODY:
            await too_large(send)
            return
        seen = 0

        async def limited() -> MutableMapping[str, Any]:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > MAX_BODY:
                raise BodyTooLarge
            return message

        try:
            await self.app(scope, limited, send)
        except BodyTooLarge:
            await too_large(send)


class BodyTooLarge(Exception):
    pass


TOO_LARGE = {"error": "too_large", "message": f"request bodies are at most {MAX_BODY} bytes"}


async def too_large(send: Send) -> None:
    body = json.dumps(TOO_LARGE).encode()
    await send({"type": "http.response.start", "status": 413, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})
