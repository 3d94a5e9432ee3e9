"""The connection guard in a real server process under a systemd-like open-file limit of
1,024: floods of connections that never finish their headers, and stalled requests.

Everything runs on loopback; a flood comes from other loopback addresses (127.0.0.x) than
the ordinary client (127.0.0.1), as it would from other machines."""

from __future__ import annotations

import json
import resource
import select
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from web_helpers import Server, unavailable
from websockets.sync.client import connect

STALLED = b"GET / HTTP/1.1\r\nHost: cantstop\r\nUser-Agent: slow"  # the headers never end


@pytest.fixture(autouse=True)
def room_for_the_flood() -> Iterator[None]:
    """This test process holds every flood socket itself: it needs more than 1,024 files."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 4096 if hard == resource.RLIM_INFINITY else min(hard, 4096)
    if wanted < 2400:
        unavailable(f"the flood needs 2,400 open files in the test process and the hard limit is {hard}",
                    "raise it (ulimit -Hn 4096, or LimitNOFILE= for a service)")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, wanted), hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@contextmanager
def flood(port: int, sources: list[str], each: int) -> Iterator[list[socket.socket]]:
    """`each` stalled connections from every source address; all closed at the end."""
    socks: list[socket.socket] = []
    try:
        for source in sources:
            for _ in range(each):
                sock = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
                sock.sendall(STALLED)
                socks.append(sock)
        yield socks
    finally:
        for sock in socks:
            sock.close()


def answered(socks: list[socket.socket], at_least: int) -> list[bytes]:
    """What the server wrote before closing, read from the sockets it closed (waits, boundedly,
    until `at_least` of them are closed)."""
    by_fd = {sock.fileno(): sock for sock in socks}
    poll = select.poll()  # select() cannot watch descriptors past 1,023
    for fd in by_fd:
        poll.register(fd, select.POLLIN)
    replies: dict[int, bytes] = {}
    for _ in range(300):
        for fd, _ in poll.poll(100):
            poll.unregister(fd)
            try:
                replies[fd] = by_fd[fd].recv(4096)
            except ConnectionResetError:
                replies[fd] = b""
        if len(replies) >= at_least:
            break
    return list(replies.values())


def ordinary_client_is_served(server: Server) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as http:
        assert http.get("/healthz").json() == {"status": "alive"}
        assert http.get("/readyz").status_code == 200
        created = http.post("/api/games", json={"variant": "classic", "seats": ["open", "open"]})
        assert created.status_code == 201, created.text
        game_id = created.json()["id"]
    with connect(f"{server.url.replace('http', 'ws')}/ws/games/{game_id}", open_timeout=30) as ws:
        assert json.loads(ws.recv(timeout=30))["type"] == "hello"


def test_a_flood_from_one_address_is_capped_and_ordinary_clients_are_served(tmp_path: Path) -> None:
    timeouts = {"CANTSTOP_HEADER_TIMEOUT": "600", "CANTSTOP_BODY_TIMEOUT": "600"}  # only the cap acts here
    with Server(f"sqlite:///{tmp_path / 'flood.sqlite3'}", env=timeouts, open_files=1024) as server, \
            flood(server.port, ["127.0.0.2"], 1100) as socks:
        ordinary_client_is_served(server)
        replies = answered(socks, at_least=1000)
        assert len(replies) >= 1000  # all but the address's 100 were turned away at once
        assert all(r.startswith(b"HTTP/1.1 503") and b"too many connections from this address" in r for r in replies)
        ordinary_client_is_served(server)


def test_a_flood_from_many_addresses_makes_room_for_clients_that_finish_their_requests(tmp_path: Path) -> None:
    timeouts = {"CANTSTOP_HEADER_TIMEOUT": "600", "CANTSTOP_BODY_TIMEOUT": "600"}
    sources = [f"127.0.0.{n}" for n in range(10, 32)]  # 22 addresses, 50 each: under the cap of 100
    with Server(f"sqlite:///{tmp_path / 'spread.sqlite3'}", env=timeouts, open_files=1024) as server, \
            flood(server.port, sources, 50) as socks:
        ordinary_client_is_served(server)
        # Near the open-file limit the oldest unfinished requests were closed to make room.
        assert len(answered(socks, at_least=1100 - 1024)) >= 1100 - 1024
        ordinary_client_is_served(server)


def test_requests_that_stall_in_their_headers_or_body_are_dropped(tmp_path: Path) -> None:
    timeouts = {"CANTSTOP_HEADER_TIMEOUT": "1", "CANTSTOP_BODY_TIMEOUT": "1"}
    with Server(f"sqlite:///{tmp_path / 'stall.sqlite3'}", env=timeouts) as server:
        silent = socket.create_connection(("127.0.0.1", server.port))  # connects, says nothing
        headers = socket.create_connection(("127.0.0.1", server.port))
        headers.sendall(STALLED)
        body = socket.create_connection(("127.0.0.1", server.port))
        body.sendall(b'POST /api/games HTTP/1.1\r\nHost: cantstop\r\nContent-Type: application/json\r\nContent-Length: 60\r\n\r\n{"variant"')
        # A kept-alive connection whose second request stalls is timed like a new one.
        again = socket.create_connection(("127.0.0.1", server.port))
        again.sendall(b"GET /healthz HTTP/1.1\r\nHost: cantstop\r\n\r\n")
        first = b""
        while not first.endswith(b'{"status":"alive"}'):  # the whole first response
            first += again.recv(4096)
        assert first.startswith(b"HTTP/1.1 200")
        again.sendall(STALLED)
        for sock in (silent, headers, body, again):
            sock.settimeout(60)
            reply = b""
            while chunk := sock.recv(4096):  # until the server closes the connection
                reply += chunk
            sock.close()
            if sock is body:
                assert b"HTTP/1.1" not in reply  # the request was under way: the connection is just closed
            else:
                assert reply.startswith(b"HTTP/1.1 408") and b"headers did not arrive in time" in reply
        assert httpx.get(server.url + "/api/games").json() == []  # the stalled body created nothing
