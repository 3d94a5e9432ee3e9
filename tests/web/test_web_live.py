"""Live play over WebSockets: everyone sees every move, reconnects land in the same seat, limits hold."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from web_helpers import NO_LIMITS, auth, join, new_game, until

from cantstop.web.app import create_app
from cantstop.web.db.storage import Storage
from cantstop.web.settings import MAX_MESSAGE, Settings


def seated(client: TestClient) -> tuple[str, dict[int, str]]:
    game_id = new_game(client, ["open", "open"])
    return game_id, {0: join(client, game_id, 0, "Ann"), 1: join(client, game_id, 1, "Bob")}


def test_two_players_see_each_others_moves(client: TestClient) -> None:
    game_id, tokens = seated(client)
    with client.websocket_connect(f"/ws/games/{game_id}", headers=auth(tokens[0])) as ann, \
            client.websocket_connect(f"/ws/games/{game_id}", headers=auth(tokens[1])) as bob, \
            client.websocket_connect(f"/ws/games/{game_id}") as watcher:
        hellos = [until(ws, "hello") for ws in (ann, bob, watcher)]
        assert [h["you"] for h in hellos] == [0, 1, None]
        first = hellos[0]["game"]["state"]["player"]
        mover, other = (ann, bob) if first == 0 else (bob, ann)
        mover.send_json({"type": "action", "version": 0, "action": "roll"})
        assert until(mover, "ok")["version"] == 1
        for ws in (ann, bob, watcher):
            update = until(ws, "update")
            assert update["game"]["version"] == 1
            assert update["log"][0]["kind"] == "roll" and len(update["log"][0]["dice"]) == 4
        other.send_json({"type": "action", "version": 1, "action": "stop"})
        assert until(other, "error")["error"] == "not_your_turn"
        watcher.send_json({"type": "action", "version": 1, "action": "stop"})
        assert until(watcher, "error")["error"] == "not_seated"


def test_no_token_is_ever_broadcast(client: TestClient) -> None:
    game_id = new_game(client, ["open", "open"])
    with client.websocket_connect(f"/ws/games/{game_id}") as watcher:
        until(watcher, "hello")
        tokens = [join(client, game_id, 0, "Ann"), join(client, game_id, 1, "Bob")]
        seen = json.dumps([until(watcher, "update"), until(watcher, "update")])
    assert not any(token in seen for token in tokens)
    assert "token" not in seen


def test_a_reconnecting_player_is_back_in_the_seat_where_the_game_stands(client: TestClient) -> None:
    game_id, tokens = seated(client)
    first = client.get(f"/api/games/{game_id}").json()["state"]["player"]
    with client.websocket_connect(f"/ws/games/{game_id}", headers=auth(tokens[first])) as ws:
        until(ws, "hello")
        ws.send_json({"type": "action", "version": 0, "action": "roll"})
        until(ws, "ok")
    with client.websocket_connect(f"/ws/games/{game_id}", headers=auth(tokens[first])) as ws:
        hello = until(ws, "hello")
    assert hello["you"] == first
    assert hello["game"]["version"] == 1
    assert [e["kind"] for e in hello["log"]][:2] == ["start", "roll"]
    # A browser's cookie works the same as the header.
    client.cookies.set(f"cantstop_{game_id}", tokens[1 - first])
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        assert until(ws, "hello")["you"] == 1 - first
    client.cookies.clear()


def test_foreign_origins_are_refused(client: TestClient) -> None:
    game_id = new_game(client, ["open", "open"])
    with pytest.raises(WebSocketDisconnect) as refused, \
            client.websocket_connect(f"/ws/games/{game_id}", headers={"origin": "https://evil.example"}):
        pass
    assert refused.value.code == 1008
    with client.websocket_connect(f"/ws/games/{game_id}", headers={"origin": "http://testserver"}) as ws:
        assert until(ws, "hello")["you"] is None


def test_an_unknown_game_closes_the_socket(client: TestClient) -> None:
    with pytest.raises(WebSocketDisconnect), client.websocket_connect("/ws/games/nope") as ws:
        ws.receive_json()


def test_bad_and_oversized_messages_get_errors_not_crashes(client: TestClient) -> None:
    game_id, tokens = seated(client)
    with client.websocket_connect(f"/ws/games/{game_id}", headers=auth(tokens[0])) as ws:
        until(ws, "hello")
        ws.send_text("{not json")
        assert until(ws, "error")["error"] == "bad_message"
        ws.send_json({"type": "action", "version": "zero", "action": "roll"})
        assert until(ws, "error")["error"] == "bad_message"
        ws.send_text(json.dumps({"type": "action", "version": 0, "action": "x" * MAX_MESSAGE}))
        assert until(ws, "error")["error"] == "too_big"
        ws.send_bytes(b'{"type": "ping"}')  # a binary message is refused, and the socket stays
        binary = until(ws, "error")
        assert binary["error"] == "bad_message" and "binary" in binary["message"]
        ws.send_json({"type": "ping"})
        assert until(ws, "pong") == {"type": "pong"}
    assert client.get(f"/api/games/{game_id}").json()["version"] == 0


def test_a_flooding_connection_is_cut_off(storage: Storage) -> None:
    burst = int(2 * Settings().socket_rate)
    with TestClient(create_app(storage, bot_delay=0, **{**NO_LIMITS, "socket_rate": Settings().socket_rate})) as client:
        game_id = new_game(client, ["open", "open"])
        with client.websocket_connect(f"/ws/games/{game_id}") as ws:
            until(ws, "hello")
            for _ in range(burst * 10):  # far faster than the refill, however slow the machine
                ws.send_json({"type": "ping"})
            replies = []
            with pytest.raises(WebSocketDisconnect) as closed:
                while True:
                    replies.append(ws.receive_json())
    assert closed.value.code == 1008
    assert replies[-1]["error"] == "too_fast"
    assert sum(r["type"] == "pong" for r in replies) >= burst  # the burst is served before the cut


def test_the_flood_cut_off_can_be_turned_off(client: TestClient) -> None:
    game_id = new_game(client, ["open", "open"])  # the client fixture runs with socket_rate 0, as a load test would
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        until(ws, "hello")
        for _ in range(200):
            ws.send_json({"type": "ping"})
        assert all(until(ws, "pong") == {"type": "pong"} for _ in range(200))


def test_a_finished_game_nobody_watches_leaves_memory_and_comes_back(client: TestClient) -> None:
    game_id = new_game(client, ["bot:random", "bot:random"])
    held = client.app.state.service.games.held  # type: ignore[attr-defined]
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello = until(ws, "hello")
        game = hello["game"]
        while game["status"] != "over":
            game = until(ws, "update")["game"]
    assert game_id not in held
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        assert until(ws, "hello")["game"]["version"] == game["version"]  # rebuilt from storage
    assert game_id not in held
    again = client.get(f"/api/games/{game_id}").json()
    assert again["version"] == game["version"] and again["state"] == game["state"]
