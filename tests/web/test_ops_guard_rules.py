"""The connection guard's rules on their own: the cap per address, trusted proxies, room
made by closing the oldest unfinished request, and deadlines."""

from __future__ import annotations

import asyncio

from cantstop.web.ops.guard import ConnectionGuard
from cantstop.web.settings import Settings


class Wire(asyncio.Transport):
    """A transport that remembers what was written and whether it was closed."""

    def __init__(self) -> None:
        super().__init__()
        self.written = b""
        self.closed = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.written += bytes(data)

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed


class Conn(asyncio.Protocol):
    def __init__(self) -> None:
        self.transport = Wire()


def guard(budget: int = 1000, **settings: object) -> ConnectionGuard:
    return ConnectionGuard(Settings(**settings), budget=budget)  # type: ignore[arg-type]


def test_an_address_over_its_cap_is_refused_until_one_of_its_connections_closes() -> None:
    async def run() -> None:
        g = guard(connections_per_address=2)
        a, b, c = Conn(), Conn(), Conn()
        assert g.admit(a, a.transport, "10.0.0.1") and g.admit(b, b.transport, "10.0.0.1")
        assert not g.admit(c, c.transport, "10.0.0.1")
        assert c.transport.closed and c.transport.written.startswith(b"HTTP/1.1 503") and not a.transport.closed
        other = Conn()
        assert g.admit(other, other.transport, "10.0.0.2")  # another address has its own share
        g.release("10.0.0.1")
        assert g.admit(c, Wire(), "10.0.0.1") and g.refused == 1

    asyncio.run(run())


def test_a_trusted_proxy_is_not_capped_and_a_cap_of_zero_is_none() -> None:
    async def run() -> None:
        proxied = guard(connections_per_address=1, trusted_proxies=("127.0.0.1",))
        uncapped = guard(connections_per_address=0)
        for _ in range(5):
            assert proxied.admit(Conn(), Wire(), "127.0.0.1") and uncapped.admit(Conn(), Wire(), "10.0.0.1")

    asyncio.run(run())


def test_near_the_file_limit_the_oldest_unfinished_request_makes_room() -> None:
    async def run() -> None:
        g = guard(budget=3)
        old, served, newer = Conn(), Conn(), Conn()
        for conn in (old, served, newer):
            assert g.admit(conn, conn.transport, "10.0.0.9")
        g.headers_read(served)
        g.done(served)  # a request read in full is never shed
        g.headers_read(old)  # moves behind `newer`: age counts from the last step
        newest = Conn()
        assert g.admit(newest, newest.transport, "10.0.0.8")
        assert newer.transport.closed and not old.transport.closed and not served.transport.closed
        g.done(old)
        g.done(newest)
        last = Conn()
        assert not g.admit(last, last.transport, "10.0.0.7")  # nothing unfinished left to shed
        assert last.transport.written.startswith(b"HTTP/1.1 503")

    asyncio.run(run())


def test_a_request_past_its_deadline_is_dropped_with_a_408_if_its_headers_never_came() -> None:
    async def run() -> None:
        g = guard(header_timeout=0.01, body_timeout=0.01)
        headers, body, finished = Conn(), Conn(), Conn()
        for conn in (headers, body, finished):
            g.admit(conn, conn.transport, "10.0.0.1")
        g.headers_read(body)
        g.headers_read(finished)
        g.done(finished)
        for _ in range(200):
            if headers.transport.closed and body.transport.closed:
                break
            await asyncio.sleep(0.05)
        assert headers.transport.written.startswith(b"HTTP/1.1 408")
        assert body.transport.closed and body.transport.written == b""
        assert not finished.transport.closed and g.dropped == 2

    asyncio.run(run())
