"""The connection guard: read timeouts, a cap per client address, and room for new clients
when file descriptors run short.

uvicorn reads a request's headers and body for as long as the client takes (its only
timeout is for idle keep-alive connections), so a client that never finishes a request
holds a connection, and a file descriptor, forever. `GuardedHttp` and `GuardedSocket` are
uvicorn's own HTTP and WebSocket protocols, told by `ConnectionGuard` when each request
begins, reads its headers and ends: a request still unread past its deadline is dropped
(a 408 if its headers never came). A client address holding `connections_per_address`
connections has its next ones refused with a 503 at once. And when the process nears its
open-file limit, the oldest unfinished request makes room for the newcomer: a flood of
stalled connections from many addresses cannot lock out clients that finish theirs.
"""

from __future__ import annotations

import asyncio
import resource
import time
from collections import Counter
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from cantstop.web.settings import Settings

STATE_KEY = "connection_guard"  # where the app's lifespan state holds the guard for the protocols
SPARE_FILES = 128  # descriptors kept for the database, files and the listening socket
SWEEP_EVERY = 0.5  # seconds between looks for requests past their deadline


def file_budget(spare: int = SPARE_FILES) -> int:
    """How many connections fit under this process's open-file limit, leaving `spare`."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return 1_000_000
    return max(16, soft - spare)


def _reply(status: str, message: str) -> bytes:
    body = f'{{"error": "{status.split()[1].lower()}", "message": "{message}"}}'.encode()
    head = f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\nconnection: close\r\n\r\n"
    return head.encode() + body


REFUSED = _reply("503 Unavailable", "too many connections from this address; close some and try again")
FULL = _reply("503 Unavailable", "the server holds all the connections it can; try again shortly")
TIMED_OUT = _reply("408 Timeout", "the request's headers did not arrive in time")


class ConnectionGuard:
    """Every open connection of one server process, by client address, and the requests
    being read with their deadlines. Runs on the event loop only."""

    def __init__(self, settings: Settings, budget: int | None = None) -> None:
        self.header_timeout = settings.header_timeout
        self.body_timeout = settings.body_timeout
        self.per_address = settings.connections_per_address
        self.uncapped = frozenset(settings.trusted_proxies)
        self.budget = file_budget() if budget is None else budget
        self.by_address: Counter[str] = Counter()
        self.open = 0
        # Requests being read: protocol -> (deadline, headers read). Insertion order is age,
        # so the first one is the oldest unfinished request.
        self.reading: dict[asyncio.Protocol, tuple[float, bool]] = {}
        self.dropped = 0  # requests dropped for taking too long
        self.refused = 0  # connections refused or shed for room
        self._sweeper: asyncio.TimerHandle | None = None

    def admit(self, protocol: asyncio.Protocol, transport: asyncio.Transport, address: str) -> bool:
        """A new connection: False (and it is closed with a 503) when its address holds its
        share already or no room can be made; else it counts, and its first request is timed."""
        capped = self.per_address > 0 and address not in self.uncapped
        if capped and self.by_address[address] >= self.per_address:
            return self._refuse(transport, REFUSED)
        if self.open >= self.budget and not self._shed_oldest():
            return self._refuse(transport, FULL)
        self.by_address[address] += 1
        self.open += 1
        self.begin(protocol)
        return True

    def release(self, address: str) -> None:
        self.open -= 1
        self.by_address[address] -= 1
        if self.by_address[address] <= 0:
            del self.by_address[address]

    def begin(self, protocol: asyncio.Protocol) -> None:
        """A request starts (or the connection opened): its headers are due."""
        if protocol not in self.reading:
            self.reading[protocol] = (time.monotonic() + self.header_timeout, False)
            self._sweep_soon()

    def headers_read(self, protocol: asyncio.Protocol) -> None:
        """The headers are in: the body is due."""
        self.reading.pop(protocol, None)
        self.reading[protocol] = (time.monotonic() + self.body_timeout, True)
        self._sweep_soon()

    def done(self, protocol: asyncio.Protocol) -> None:
        """The request is read in full (or became a WebSocket, or its connection closed)."""
        self.reading.pop(protocol, None)

    def _refuse(self, transport: asyncio.Transport, reply: bytes) -> bool:
        self.refused += 1
        transport.write(reply)
        transport.close()
        return False

    def _shed_oldest(self) -> bool:
        """Close the connection of the oldest unfinished request, to make room."""
        if not self.reading:
            return False
        protocol = next(iter(self.reading))
        self.reading.pop(protocol)
        self.refused += 1
        _close(protocol, None)
        return True

    def _sweep_soon(self) -> None:
        if self._sweeper is None:
            self._sweeper = asyncio.get_running_loop().call_later(SWEEP_EVERY, self._sweep)

    def _sweep(self) -> None:
        self._sweeper = None
        now = time.monotonic()
        late = [(p, headers) for p, (deadline, headers) in self.reading.items() if deadline <= now]
        for protocol, headers in late:
            self.reading.pop(protocol, None)
            self.dropped += 1
            _close(protocol, None if headers else TIMED_OUT)
        if self.reading:
            self._sweep_soon()


def _close(protocol: asyncio.Protocol, reply: bytes | None) -> None:
    transport: asyncio.Transport | None = getattr(protocol, "transport", None)
    if transport is not None and not transport.is_closing():
        if reply is not None:
            transport.write(reply)
        transport.close()


def _guard_of(app_state: dict[str, Any]) -> ConnectionGuard | None:
    guard = app_state.get(STATE_KEY)
    return guard if isinstance(guard, ConnectionGuard) else None


class GuardedHttp(HttpToolsProtocol):
    """uvicorn's httptools protocol, telling the guard where each request stands."""

    guard: ConnectionGuard | None = None
    address = ""
    upgraded = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        guard = _guard_of(self.app_state)
        self.address = self.client[0] if self.client else "unknown"
        if guard is not None and guard.admit(self, transport, self.address):
            self.guard = guard

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if self.guard is not None and not self.upgraded:
            self.guard.done(self)
            self.guard.release(self.address)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self.guard is not None:
            self.guard.begin(self)

    def on_headers_complete(self) -> None:
        super().on_headers_complete()
        if self.guard is not None:
            self.guard.headers_read(self)

    def on_message_complete(self) -> None:
        super().on_message_complete()
        if self.guard is not None:
            self.guard.done(self)

    def handle_websocket_upgrade(self) -> None:
        # The connection lives on as a WebSocket: that protocol releases it when it closes.
        self.upgraded = True
        if self.guard is not None:
            self.guard.done(self)
        super().handle_websocket_upgrade()


class GuardedSocket(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, giving the guard its connection back when it closes
    (GuardedHttp counted it when it was accepted)."""

    counted: tuple[ConnectionGuard, str] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        guard = _guard_of(self.app_state)
        if guard is not None:
            self.counted = (guard, self.client[0] if self.client else "unknown")

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if self.counted is not None:
            guard, address = self.counted
            self.counted = None
            guard.release(address)
