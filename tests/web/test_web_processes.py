"""Two server processes against one PostgreSQL: a move made through one is seen through the other."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select
from web_helpers import WAIT, Server, pg_schema, postgres_url
from websockets.sync.client import ClientConnection, connect

from cantstop.core.record import read_record
from cantstop.table import Kind
from cantstop.web.db.rows import EventRow
from cantstop.web.db.storage import Storage

pytestmark = pytest.mark.postgres


@pytest.fixture
def two_servers() -> Iterator[tuple[Server, Server]]:
    url = postgres_url()
    with pg_schema(url) as scoped, Server(scoped) as first, Server(scoped) as second:
        yield first, second


def receive(ws: ClientConnection, kind: str) -> dict[str, Any]:
    for _ in range(100):
        message: dict[str, Any] = json.loads(ws.recv(timeout=30))
        if message["type"] == kind:
            return message
    raise AssertionError(f"no {kind} message")


def updated_to(ws: ClientConnection, version: int) -> dict[str, Any]:
    while True:
        message = receive(ws, "update")
        if message["game"]["version"] >= version:
            return message


def test_a_game_played_with_one_client_on_each_process(two_servers: tuple[Server, Server]) -> None:
    first, second = two_servers
    game_id = httpx.post(first.url + "/api/games", json={"variant": "classic+to_win=1", "seats": ["open", "open"]}).json()["id"]
    ann = httpx.post(f"{first.url}/api/games/{game_id}/join", json={"seat": 0, "name": "Ann"}).json()["token"]
    bob = httpx.post(f"{second.url}/api/games/{game_id}/join", json={"seat": 1, "name": "Bob"}).json()["token"]
    ws_url = {s: s.url.replace("http", "ws") + f"/ws/games/{game_id}" for s in (first, second)}
    with connect(ws_url[first], additional_headers={"Authorization": f"Bearer {ann}"}) as on_first, \
            connect(ws_url[second], additional_headers={"Authorization": f"Bearer {bob}"}) as on_second, \
            connect(ws_url[second]) as watcher:
        clients = {0: on_first, 1: on_second}
        game = receive(on_first, "hello")["game"]
        assert receive(on_second, "hello")["you"] == 1
        receive(watcher, "hello")
        rolls = 0
        for _ in range(1000):
            state = game["state"]
            if game["status"] == "over" or state["winner"] is not None:
                break
            mover, other = clients[state["player"]], clients[1 - state["player"]]
            if state["phase"] == "choose":
                action: Any = state["legal"][0]
            elif state["phase"] == "decide" and rolls >= 2:
                action, rolls = "stop", 0
            else:
                action, rolls = "roll", rolls + 1
            version = game["version"]
            mover.send(json.dumps({"type": "action", "version": version, "action": action}))
            assert receive(mover, "ok")["version"] == version + 1
            # The client on the other process, and a spectator there, see the move at once.
            seen = updated_to(other, version + 1)["game"]
            assert updated_to(watcher, version + 1)["game"] == seen
            game = updated_to(mover, version + 1)["game"]
            assert seen == game
        assert game["state"]["winner"] is not None
    records = [httpx.get(f"{s.url}/api/games/{game_id}/record").text for s in (first, second)]
    assert records[0] == records[1]
    assert len(read_record(records[0]).events) == game["version"]


def test_chat_and_its_mute_reach_the_clients_of_the_other_process(two_servers: tuple[Server, Server]) -> None:
    first, second = two_servers
    game_id = httpx.post(first.url + "/api/games", json={"variant": "classic", "seats": ["open", "open"]}).json()["id"]
    ann = httpx.post(f"{first.url}/api/games/{game_id}/join", json={"seat": 0, "name": "Ann"}).json()["token"]
    ws_url = {s: s.url.replace("http", "ws") + f"/ws/games/{game_id}" for s in (first, second)}
    with connect(ws_url[first], additional_headers={"Authorization": f"Bearer {ann}"}) as on_first, connect(ws_url[second]) as watcher:
        receive(on_first, "hello")
        receive(watcher, "hello")
        on_first.send(json.dumps({"type": "chat", "text": "hello from the first process"}))
        heard = receive(watcher, "chat")
        assert (heard["name"], heard["seat"], heard["text"]) == ("Ann", 0, "hello from the first process")
        assert receive(on_first, "chat") == heard  # once, by the same road, for the sender too
        on_first.send(json.dumps({"type": "mute", "spectators": True}))
        assert receive(watcher, "chat_mute")["spectators_muted"] is True
        watcher.send(json.dumps({"type": "chat", "text": "let me speak"}))
        assert receive(watcher, "error")["error"] == "muted"
    with connect(ws_url[second]) as later:  # a newcomer on the other process gets the history
        chat = receive(later, "hello")["chat"]
        assert chat["spectators_muted"] is True and [m["text"] for m in chat["messages"]] == ["hello from the first process"]


def test_a_process_that_opens_the_game_later_reads_what_was_said_on_the_other(two_servers: tuple[Server, Server]) -> None:
    first, second = two_servers
    game_id = httpx.post(first.url + "/api/games", json={"variant": "classic", "seats": ["open", "open"]}).json()["id"]
    ann = httpx.post(f"{first.url}/api/games/{game_id}/join", json={"seat": 0, "name": "Ann"}).json()["token"]
    url = first.url.replace("http", "ws") + f"/ws/games/{game_id}"
    with connect(url, additional_headers={"Authorization": f"Bearer {ann}"}) as on_first, connect(url) as watcher:
        receive(on_first, "hello"), receive(watcher, "hello")
        on_first.send(json.dumps({"type": "chat", "text": "said before the other process knew the game"}))
        said = receive(watcher, "chat")
        assert receive(on_first, "chat") == said
        watcher.send(json.dumps({"type": "chat", "text": "and from the stands"}))
        stands = receive(on_first, "chat")
        on_first.send(json.dumps({"type": "mute", "spectators": True}))
        receive(watcher, "chat_mute")
    with connect(second.url.replace("http", "ws") + f"/ws/games/{game_id}") as later:  # the second process reads the game now
        chat = receive(later, "hello")["chat"]
        assert chat == {"messages": [said, stands], "spectators_muted": True}
        later.send(json.dumps({"type": "chat", "text": "let me speak"}))
        assert receive(later, "error")["error"] == "muted"


@pytest.fixture
def two_sweeping_servers() -> Iterator[tuple[Server, Server, str]]:
    """Two processes on one database that end a game left alone for a second, and give a
    30 s clock 0.06 s, each looking for overdue games every tenth of a second."""
    env = {"CANTSTOP_ABANDON_AFTER": "1", "CANTSTOP_SWEEP_EVERY": "0.1", "CANTSTOP_CLOCK_SCALE": "0.002"}
    url = postgres_url()
    with pg_schema(url) as scoped, Server(scoped, env=env) as first, Server(scoped, env=env) as second:
        yield first, second, scoped


def test_two_processes_end_each_game_once(two_sweeping_servers: tuple[Server, Server, str]) -> None:
    """Both processes find the same overdue games: each game left alone ends once, and each
    clocked game nobody plays gets one timeout per move until its seat forfeits."""
    first, second, url = two_sweeping_servers
    people = [{"seat": 0, "name": "Ann"}, {"seat": 1, "name": "Bob"}]
    idle = [httpx.post(first.url + "/api/games", json={"seats": ["open", "open"], "take": people}).json()["id"] for _ in range(6)]
    timed = [httpx.post(second.url + "/api/games", json={"seats": ["open", "open"], "take": people, "clock": 30}).json()["id"]
             for _ in range(6)]
    deadline = time.monotonic() + WAIT  # bounded by time: 600 polls were 30 s on a quiet machine only
    while time.monotonic() < deadline:
        statuses = [httpx.get(f"{first.url}/api/games/{g}").json()["status"] for g in idle + timed]
        if statuses == ["abandoned"] * len(idle) + ["over"] * len(timed):
            break
        time.sleep(0.05)
    assert statuses == ["abandoned"] * len(idle) + ["over"] * len(timed)
    storage = Storage(url)
    try:
        with storage.session() as s:
            ends = dict(s.execute(select(EventRow.game_id, func.count()).where(EventRow.kind == "end").group_by(EventRow.game_id)).all())
        assert ends == dict.fromkeys(idle, 1)
        for game_id in timed:
            moves = storage.events(game_id)
            # The first seat is rolled for (a first roll never busts), a choice is made for it,
            # and its third timeout in a row forfeits: one timeout per move, whoever stored it.
            assert [m.kind for m in moves] == [Kind.FALLBACK, Kind.ROLL, Kind.FALLBACK, Kind.CHOICE, Kind.RESIGN], moves
            assert len({m.seat for m in moves if m.out_of_band}) == 1
    finally:
        storage.close()
