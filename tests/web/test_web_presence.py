"""Presence over the WebSocket: who has the game open, and whose move it is."""

from __future__ import annotations

from fastapi.testclient import TestClient
from web_helpers import auth, join, new_game, until


def test_players_see_who_is_connected_and_who_is_thinking(client: TestClient) -> None:
    game_id = new_game(client, ["open", "open"])
    tokens = {0: join(client, game_id, 0, "Ann"), 1: join(client, game_id, 1, "Bob")}
    with client.websocket_connect(f"/ws/games/{game_id}") as watcher:
        hello = until(watcher, "hello")
        first = hello["game"]["state"]["player"]
        assert hello["presence"]["connected"] == [] and hello["presence"]["thinking"] == first
        with client.websocket_connect(f"/ws/games/{game_id}", headers=auth(tokens[0])) as ann:
            assert until(ann, "hello")["presence"]["connected"] == [0]
            assert until(watcher, "presence")["connected"] == [0]
        assert until(watcher, "presence")["connected"] == []  # Ann closed her page


def test_a_screen_holding_seats_says_its_people_are_here(client: TestClient) -> None:
    game_id = new_game(client, ["open", "open"])
    tokens = {0: join(client, game_id, 0, "Ann"), 1: join(client, game_id, 1, "Bob")}
    with client.websocket_connect(f"/ws/games/{game_id}") as screen, client.websocket_connect(f"/ws/games/{game_id}") as watcher:
        until(screen, "hello")
        until(watcher, "hello")
        screen.send_json({"type": "present", "tokens": [tokens[0], tokens[1]]})
        assert until(watcher, "presence")["connected"] == [0]
        assert until(watcher, "presence")["connected"] == [0, 1]
        screen.send_json({"type": "present", "tokens": ["not-a-token"]})
        refused = until(screen, "error")
        assert refused["error"] == "bad_token"
    # (the screen and the watcher closed together: nothing left to check on either)


def test_an_update_carries_presence_and_the_servers_time(client: TestClient) -> None:
    game_id = new_game(client, ["open", "open"])
    tokens = {0: join(client, game_id, 0, "Ann"), 1: join(client, game_id, 1, "Bob")}
    with client.websocket_connect(f"/ws/games/{game_id}", headers=auth(tokens[0])) as ann, \
            client.websocket_connect(f"/ws/games/{game_id}", headers=auth(tokens[1])) as bob:
        first = until(ann, "hello")["game"]["state"]["player"]
        until(bob, "hello")
        (ann if first == 0 else bob).send_json({"type": "action", "version": 0, "action": "roll"})
        update = until(bob, "update")
        assert update["presence"]["connected"] == [0, 1] and update["presence"]["thinking"] == first
        assert update["now"] > 0 and update["game"]["clock"] == {"seconds": 0, "deadline": None}
