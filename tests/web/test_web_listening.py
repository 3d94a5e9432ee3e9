"""A server on PostgreSQL before its LISTEN runs: it says it is not ready, its own clients still
hear its chat at once, and once it listens it catches up with what other processes stored
meanwhile. PostgreSQL's door is held shut here for the listener's first connection."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient
from test_ops_health import TOKEN, samples
from web_helpers import (
    NO_LIMITS,
    WAIT,
    auth,
    hearing,
    join,
    new_game,
    pg_schema,
    postgres_url,
    storages,
    until,
)

from cantstop.web.app import create_app
from cantstop.web.db.storage import Storage

pytestmark = pytest.mark.postgres


class Door:
    """Holds the first LISTEN connection (the first server's) until opened; later ones pass."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.reached, self.opened = threading.Event(), threading.Event()
        connect = psycopg.AsyncConnection.connect

        async def held(*args: Any, **kwargs: Any) -> Any:
            if not self.reached.is_set():
                self.reached.set()
                await asyncio.to_thread(self.opened.wait, WAIT)
            return await connect(*args, **kwargs)

        monkeypatch.setattr(psycopg.AsyncConnection, "connect", held)


@contextmanager
def servers(count: int) -> Iterator[list[Storage]]:
    """`count` storages on one fresh schema, as `count` server processes would have."""
    with pg_schema(postgres_url()) as url, storages(url, count) as stores:
        yield stores


def app(storage: Storage) -> TestClient:
    return TestClient(create_app(storage, bot_delay=0, metrics_token=TOKEN, **NO_LIMITS))


def test_a_server_not_yet_listening_is_not_ready_and_its_own_clients_hear_its_chat_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A full run here once hung on a chat line said before the listener connected: the line
    reached this process's own clients only as PostgreSQL's notice, which nobody heard."""
    door = Door(monkeypatch)
    with servers(1) as (storage,), app(storage) as client:
        try:
            assert door.reached.wait(WAIT)
            waiting: Any = client.get("/readyz")
            assert (waiting.status_code, waiting.json()["error"], waiting.headers["retry-after"]) == (503, "not_listening", "1")
            assert "LISTEN" in waiting.json()["message"]
            assert samples(client)["cantstop_listening"] == 0
            game_id = new_game(client, ["open", "open"])
            ann = join(client, game_id, 0, "Ann")
            with client.websocket_connect(f"/ws/games/{game_id}", headers=auth(ann)) as ann_ws, \
                    client.websocket_connect(f"/ws/games/{game_id}") as watcher:
                until(ann_ws, "hello"), until(watcher, "hello")
                ann_ws.send_json({"type": "chat", "text": "before the listener"})
                assert until(watcher, "chat")["text"] == "before the listener"
                ann_ws.send_json({"type": "mute", "spectators": True})
                assert until(watcher, "chat_mute")["spectators_muted"] is True
                door.opened.set()
                hearing(client)
                assert client.get("/readyz").json() == {"status": "ready"}
                assert samples(client)["cantstop_listening"] == 1
                # Neither the catch-up after LISTEN nor the notices pass anything on twice.
                ann_ws.send_json({"type": "mute", "spectators": False})
                ann_ws.send_json({"type": "chat", "text": "after"})
                assert until(watcher, "chat_mute")["spectators_muted"] is False
                assert until(watcher, "chat")["text"] == "after"
                ann_ws.send_json({"type": "chat", "text": "and again"})
                assert until(watcher, "chat")["text"] == "and again"
        finally:
            door.opened.set()


def test_what_another_process_stored_before_this_one_listened_reaches_its_clients_once_it_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first server's listener waits at the door while Ann, on the second, takes a seat
    and speaks in a game the first server's watcher follows: those notices are lost to the
    first server, which reads the game again once its LISTEN runs, as after a lost connection."""
    door = Door(monkeypatch)
    with servers(2) as (one, two), app(one) as first:
        try:
            assert door.reached.wait(WAIT)
            with app(two) as second:
                hearing(second)
                game_id = new_game(first, ["open", "open"])
                with first.websocket_connect(f"/ws/games/{game_id}") as watcher:
                    until(watcher, "hello")
                    ann = join(second, game_id, 0, "Ann")
                    with second.websocket_connect(f"/ws/games/{game_id}", headers=auth(ann)) as ann_ws:
                        until(ann_ws, "hello")
                        ann_ws.send_json({"type": "chat", "text": "while you were away"})
                        assert until(ann_ws, "chat")["text"] == "while you were away"
                        door.opened.set()
                        hearing(first)
                        assert until(watcher, "chat")["text"] == "while you were away"
                        assert first.get(f"/api/games/{game_id}").json()["seats"][0]["name"] == "Ann"
        finally:
            door.opened.set()
