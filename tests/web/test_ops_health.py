"""/healthz, /readyz (503 while the database is down) and /metrics (content and who may read it)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy.engine import make_url
from web_helpers import (
    NO_LIMITS,
    WAIT,
    Clock,
    auth,
    hearing,
    join,
    new_game,
    pg_schema,
    postgres_url,
    run_out,
    unavailable,
)

from cantstop.web.app import create_app
from cantstop.web.db.storage import Storage

TOKEN = "scrape-me"
SCRAPER = auth(TOKEN)


def samples(client: TestClient) -> dict[str, float]:
    """Every sample of /metrics by name (labels dropped: the names used here have none)."""
    response = client.get("/metrics", headers=SCRAPER)
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/plain")
    return {s.name: s.value for family in text_string_to_metric_families(response.text) for s in family.samples if not s.labels}


def test_healthz_says_alive_and_readyz_ready(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "alive"}
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.json() == {"status": "ready"}


def test_metrics_are_off_without_a_token(client: TestClient) -> None:
    response = client.get("/metrics", headers=SCRAPER)
    assert response.status_code == 404 and "CANTSTOP_METRICS_TOKEN" in response.json()["message"]


@pytest.mark.parametrize("headers", [{}, auth("guess"), {"Authorization": TOKEN}, auth(TOKEN + "x")])
def test_metrics_refuse_anyone_without_the_token(storage: Storage, headers: dict[str, str]) -> None:
    with TestClient(create_app(storage, bot_delay=0, metrics_token=TOKEN, **NO_LIMITS)) as client:
        response = client.get("/metrics", headers=headers)
        assert response.status_code == 401 and response.json()["error"] == "bad_token"
        assert response.headers["www-authenticate"] == "Bearer"
        assert "cantstop_" not in response.text


def test_metrics_count_actions_sockets_games_and_timeouts(storage: Storage, still_clock: Clock) -> None:
    with TestClient(create_app(storage, now=still_clock, bot_delay=0, metrics_token=TOKEN, **NO_LIMITS)) as client:
        before = samples(client)
        assert before["cantstop_actions_total"] == 0 and before["cantstop_live_games"] == 0
        game_id = new_game(client, ["open", "open"])
        tokens = [join(client, game_id, seat, name) for seat, name in ((0, "Ann"), (1, "Bob"))]
        with client.websocket_connect(f"/ws/games/{game_id}") as ws:
            assert ws.receive_json()["type"] == "hello"
            assert samples(client)["cantstop_open_sockets"] == 1
            for _ in range(3):
                game = client.get(f"/api/games/{game_id}").json()
                state = game["state"]
                action = state["legal"][0] if state["phase"] == "choose" else "roll"
                response = client.post(f"/api/games/{game_id}/actions", json={"version": game["version"], "action": action},
                                       headers=auth(tokens[state["player"]]))
                assert response.status_code == 200
        after = samples(client)
        assert after["cantstop_actions_total"] == 3 and after["cantstop_action_seconds_count"] == 3
        assert after["cantstop_action_seconds_sum"] > 0
        assert after["cantstop_open_sockets"] == 0 and after["cantstop_live_games"] == 1
        # A refused action is not counted.
        stale = client.post(f"/api/games/{game_id}/actions", json={"version": 0, "action": "roll"}, headers=auth(tokens[0]))
        assert stale.status_code == 409 and samples(client)["cantstop_actions_total"] == 3
        # A game with a move clock (30 s) that nobody plays: the clock moves for them.
        clocked = client.post("/api/games", json={"seats": ["open", "open"], "clock": 30,
                                                  "take": [{"seat": 0, "name": "Ann"}, {"seat": 1, "name": "Bob"}]}).json()["id"]
        run_out(client, clocked, still_clock)
        assert samples(client)["cantstop_clock_timeouts_total"] == 1
        assert samples(client)["cantstop_database_errors_total"] == 0


class Relay:
    """A TCP relay on loopback in front of the database: `down()` cuts every connection and
    stops listening, as a database that went away; `up()` listens again on the same port."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.port = 0
        self.pairs: list[socket.socket] = []
        self.listener: socket.socket | None = None
        self.lock = threading.Lock()

    def up(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.port, self.listener = listener.getsockname()[1], listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def down(self) -> None:
        with self.lock:
            if self.listener is not None:
                with suppress(OSError):  # wakes the thread blocked in accept(), which close() alone does not
                    self.listener.shutdown(socket.SHUT_RDWR)
                self.listener.close()
                self.listener = None
            for sock in self.pairs:
                with suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            self.pairs.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # closed by down()
            upstream = socket.create_connection(self.target)
            with self.lock:
                self.pairs += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        with suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        with suppress(OSError):
            sink.shutdown(socket.SHUT_WR)


@contextmanager
def relayed_postgres() -> Iterator[tuple[str, Relay]]:
    url = make_url(postgres_url())
    if url.host is None or url.port is None:
        unavailable(f"the relay needs PostgreSQL on TCP, and the tests' PostgreSQL is at {url.render_as_string()}",
                    "install Debian's postgresql (see .ci/run) or set CANTSTOP_TEST_PG to a TCP address")
    relay = Relay(url.host, url.port)
    relay.up()
    try:
        with pg_schema(url.render_as_string(hide_password=False)) as scoped:  # made and dropped directly
            yield make_url(scoped).set(port=relay.port).render_as_string(hide_password=False), relay
    finally:
        relay.down()


@pytest.mark.postgres
def test_readyz_is_503_while_the_database_is_down_and_ready_again_after() -> None:
    with relayed_postgres() as (url, relay):
        storage = Storage(url)
        storage.migrate()
        try:
            with TestClient(create_app(storage, bot_delay=0, metrics_token=TOKEN, **NO_LIMITS)) as client:
                hearing(client)
                assert client.get("/readyz").status_code == 200
                relay.down()
                for _ in range(2):  # the pooled connection is cut, then no new one can be made
                    down: Any = client.get("/readyz")
                    assert down.status_code == 503 and down.json()["error"] == "db_unavailable"
                    assert down.headers["retry-after"] == "5"
                assert client.get("/healthz").status_code == 200  # alive all the same
                assert samples(client)["cantstop_database_errors_total"] >= 2
                deadline = time.monotonic() + WAIT  # its LISTEN connection was cut too: the listener hears so in its own time
                while samples(client)["cantstop_listening"] != 0:
                    assert time.monotonic() < deadline, "the server still says it listens"
                    time.sleep(0.01)
                relay.up()
                hearing(client)  # the listener reconnects on its own time (it backs off up to 10 s)
                assert client.get("/readyz").status_code == 200 and samples(client)["cantstop_listening"] == 1
        finally:
            storage.close()
