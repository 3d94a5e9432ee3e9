"""What the operations room sees of every request: an id (in the response's X-Request-ID
header and on every log line written while serving it), one log line when it ends, and
the count of open WebSockets."""

from __future__ import annotations

import logging
import re
import secrets
import time
from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Any

from cantstop.web.http import ASGIApp, Receive, Send
from cantstop.web.ops.logs import REQUEST_ID

log = logging.getLogger("cantstop.web.requests")
GIVEN_ID = re.compile(rb"[A-Za-z0-9._-]{1,64}")  # what a proxy's own id may look like to be kept


@dataclass
class Tally:
    """A number the middleware keeps and the metrics read (Starlette builds the middleware itself)."""

    value: int = 0


class RequestLog:
    """ASGI middleware around HTTP requests and WebSockets (the lifespan passes by)."""

    def __init__(self, app: ASGIApp, sockets: Tally, trusted_proxies: tuple[str, ...] = ()) -> None:
        self.app = app
        self.sockets = sockets  # WebSockets accepted and not yet ended
        self.trusted = frozenset(trusted_proxies)

    def request_id(self, scope: MutableMapping[str, Any]) -> str:
        """The id a trusted proxy gave the request (nginx's $request_id), else a new one."""
        client = scope.get("client")
        if client and client[0] in self.trusted:
            for name, value in scope.get("headers", ()):
                if name == b"x-request-id" and GIVEN_ID.fullmatch(value):
                    return str(value.decode())
        return secrets.token_hex(8)

    async def __call__(self, scope: MutableMapping[str, Any], receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        request_id = self.request_id(scope)
        header = (b"x-request-id", request_id.encode())
        started = time.perf_counter()
        status = 0
        accepted = False

        async def with_id(message: MutableMapping[str, Any]) -> None:
            nonlocal status, accepted
            if message["type"] in ("http.response.start", "websocket.accept"):
                message = {**message, "headers": [*message.get("headers", []), header]}
                status = message.get("status", 101)
                if message["type"] == "websocket.accept":
                    accepted = True
                    self.sockets.value += 1
            await send(message)

        token = REQUEST_ID.set(request_id)
        try:
            await self.app(scope, receive, with_id)
        finally:
            if accepted:
                self.sockets.value -= 1
            if log.isEnabledFor(logging.INFO):
                method = scope.get("method", "WS")
                seconds = time.perf_counter() - started
                log.info(
                    "%s %s %s %.1f ms", method, scope["path"], status or "-", seconds * 1000,
                    extra={"method": method, "path": scope["path"], "status": status or None, "ms": round(seconds * 1000, 1),
                           "client": (scope.get("client") or ("unknown",))[0]},
                )
            REQUEST_ID.reset(token)
