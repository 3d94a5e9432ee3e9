"""Two server processes pairing one PostgreSQL queue: each looks at the queue every hundredth
of a second while a request waits, so they race for the same requests again and again. Every
request is paired once, two to a game, nobody with themself; an account asking again through
the other process is refused; and each client reads its pairing through the other process."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from account_helpers import PASSWORD
from sqlalchemy import select
from web_helpers import Server, pg_schema, postgres_url

from cantstop.web.db.rows import SEATS
from cantstop.web.db.storage import Storage
from cantstop.web.pairing.rows import REQUESTS

pytestmark = pytest.mark.postgres
GUESTS, ACCOUNTS = 16, 4


@pytest.fixture
def two_servers() -> Iterator[tuple[Server, Server, str]]:
    env = {"CANTSTOP_PAIRING_EVERY": "0.01"}
    url = postgres_url()
    with pg_schema(url) as scoped, Server(scoped, env=env) as first, Server(scoped, env=env) as second:
        yield first, second, scoped


def test_two_processes_pairing_one_queue_pair_each_request_once(two_servers: tuple[Server, Server, str]) -> None:
    first, second, url = two_servers
    servers = (first, second)
    clients: list[tuple[httpx.Client, Server]] = []
    for i in range(ACCOUNTS):
        client = httpx.Client(timeout=60)
        made = client.post(f"{servers[i % 2].url}/api/account/sign-up", json={"name": f"Player{i}", "password": PASSWORD})
        assert made.status_code == 201, made.text
        client.headers["X-CSRF-Token"] = client.cookies.get("cantstop_csrf") or ""
        clients.append((client, servers[i % 2]))
    for i in range(GUESTS):
        clients.append((httpx.Client(timeout=60), servers[i % 2]))
    try:
        for i, (client, server) in enumerate(clients):
            body = {"variant": "classic", "players": 2, "clock": 120, "rated": False}
            if i >= ACCOUNTS:
                body["name"] = f"Guest {i}"
            asked = client.post(f"{server.url}/api/pairing", json=body)
            assert asked.status_code == 201, asked.text
            if i == 0:  # the first asker, alone in the queue so still waiting, asks again through the other process: refused
                other = servers[1 - servers.index(server)]
                twice = client.post(f"{other.url}/api/pairing", json=body)
                assert twice.status_code == 409 and twice.json()["error"] == "asking_already"
        states = []
        for client, server in clients:  # each looks through the other process, waiting for news
            other = servers[1 - servers.index(server)]
            found = client.get(f"{other.url}/api/pairing?wait=25").json()
            states.append(found["state"])
        assert states == ["paired"] * len(clients)
    finally:
        for client, _ in clients:
            client.close()
    storage = Storage(url)
    try:
        with storage.engine.connect() as conn:
            rows = conn.execute(select(REQUESTS)).all()
            seats = conn.execute(select(SEATS.c.game_id, SEATS.c.seat, SEATS.c.token_hash, SEATS.c.account_id)).all()
    finally:
        storage.close()
    assert len(rows) == len(clients) and {r.state for r in rows} == {"paired"}
    games: dict[str, list[str]] = {}
    for r in rows:
        games.setdefault(r.game_id, []).append(r.id)
    assert sorted(len(v) for v in games.values()) == [2] * (len(clients) // 2)  # each request once, two to a game
    assert {(s.game_id, s.seat, s.token_hash) for s in seats} == {(r.game_id, r.seat, r.token_hash) for r in rows}
    for game_id in games:
        accounts = [s.account_id for s in seats if s.game_id == game_id and s.account_id is not None]
        assert len(accounts) == len(set(accounts)), "an account paired with itself"
