"""Chat: players and spectators talk, plain text, limited in length and rate; players can mute spectators."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_helpers import NO_LIMITS, auth, join, new_game, until

from cantstop.web.app import create_app
from cantstop.web.db.storage import Storage
from cantstop.web.games.chat import HISTORY, MAX_CHAT


def seated(client: TestClient) -> tuple[str, dict[int, str]]:
    game_id = new_game(client, ["open", "open"])
    return game_id, {0: join(client, game_id, 0, "Ann"), 1: join(client, game_id, 1, "Bob")}


def say(ws: Any, text: str, **extra: Any) -> None:
    ws.send_json({"type": "chat", "text": text, **extra})


def test_players_and_spectators_talk_and_newcomers_see_what_was_said(client: TestClient) -> None:
    game_id, tokens = seated(client)
    hostile = '<img src=x onerror="alert(1)"> & </script>'
    with client.websocket_connect(f"/ws/games/{game_id}", headers=auth(tokens[0])) as ann, \
            client.websocket_connect(f"/ws/games/{game_id}") as watcher:
        assert until(ann, "hello")["chat"] == {"messages": [], "spectators_muted": False}
        until(watcher, "hello")
        say(ann, "  good luck  ")
        for ws in (ann, watcher):
            message = until(ws, "chat")
            assert (message["seat"], message["name"], message["text"]) == (0, "Ann", "good luck")
        say(watcher, hostile)
        heard = until(ann, "chat")
        assert heard["seat"] is None and heard["name"].startswith("Spectator ") and heard["text"] == hostile  # text, shown escaped
    with client.websocket_connect(f"/ws/games/{game_id}") as later:
        assert [m["text"] for m in until(later, "hello")["chat"]["messages"]] == ["good luck", hostile]


@pytest.mark.parametrize(("text", "says"), [
    ("x" * (MAX_CHAT + 1), f"1..{MAX_CHAT} characters"),
    ("   ", "1..200 characters, not 0"),
    ("two\nlines", "U+000A"),
    ("hidden\u200btext", "U+200B"),
    ("\u202eesrever", "U+202E"),
])
def test_a_bad_message_is_refused_and_nobody_hears_it(client: TestClient, text: str, says: str) -> None:
    game_id, tokens = seated(client)
    with client.websocket_connect(f"/ws/games/{game_id}", headers=auth(tokens[0])) as ann:
        history = until(ann, "hello")["chat"]
        say(ann, text)
        refusal = until(ann, "error")
        assert refusal["error"] == "bad_chat" and refusal["about"] == "chat" and says in refusal["message"]
        ann.send_json({"type": "ping"})
        assert until(ann, "pong") == {"type": "pong"}
    with client.websocket_connect(f"/ws/games/{game_id}") as later:
        assert until(later, "hello")["chat"] == history


@pytest.mark.parametrize("message", [
    {"type": "chat", "text": 5},
    {"type": "chat", "text": ["hi"]},
    {"type": "chat", "text": "hi", "extra": 1},
    {"type": "mute", "spectators": "yes"},
    {"type": "shout", "text": "hi"},
])
def test_a_malformed_chat_message_is_a_bad_message(client: TestClient, message: dict[str, Any]) -> None:
    game_id, tokens = seated(client)
    with client.websocket_connect(f"/ws/games/{game_id}", headers=auth(tokens[0])) as ann:
        until(ann, "hello")
        ann.send_json(message)
        assert until(ann, "error")["error"] == "bad_message"


def test_a_player_mutes_and_unmutes_spectators(client: TestClient) -> None:
    game_id, tokens = seated(client)
    with client.websocket_connect(f"/ws/games/{game_id}", headers=auth(tokens[1])) as bob, \
            client.websocket_connect(f"/ws/games/{game_id}") as watcher:
        until(bob, "hello")
        until(watcher, "hello")
        watcher.send_json({"type": "mute", "spectators": True})
        assert until(watcher, "error")["error"] == "not_seated"  # a spectator cannot silence the others
        bob.send_json({"type": "mute", "spectators": True})
        for ws in (bob, watcher):
            assert until(ws, "chat_mute") == {"type": "chat_mute", "spectators_muted": True, "by": "Bob"}
        say(watcher, "can you hear me")
        assert until(watcher, "error")["error"] == "muted"
        say(bob, "players still talk")
        assert until(watcher, "chat")["text"] == until(bob, "chat")["text"] == "players still talk"
        bob.send_json({"type": "mute", "spectators": False})
        until(watcher, "chat_mute")
        say(watcher, "thanks")
        assert until(bob, "chat")["text"] == "thanks"


def test_a_screen_holding_seats_speaks_for_one_by_its_token(client: TestClient) -> None:
    game_id, tokens = seated(client)
    with client.websocket_connect(f"/ws/games/{game_id}") as screen:  # no cookie: the page holds tokens
        until(screen, "hello")
        say(screen, "from Bob's seat", token=tokens[1])
        assert (until(screen, "chat")["name"]) == "Bob"
        say(screen, "forged", token="not-a-token")
        assert until(screen, "error")["error"] == "bad_token"


def test_history_keeps_the_latest_messages(client: TestClient) -> None:
    game_id, tokens = seated(client)
    for part in range(2):  # two connections: one would pass the flood limit of a connection
        with client.websocket_connect(f"/ws/games/{game_id}", headers=auth(tokens[0])) as ann:
            until(ann, "hello")
            for i in range(part * 30, min(part * 30 + 30, HISTORY + 5)):
                say(ann, f"m{i}")
                until(ann, "chat")
    with client.websocket_connect(f"/ws/games/{game_id}") as later:
        texts = [m["text"] for m in until(later, "hello")["chat"]["messages"]]
    assert texts == [f"m{i}" for i in range(5, HISTORY + 5)]


@pytest.fixture
def slow_chat(storage: Storage) -> Iterator[TestClient]:
    with TestClient(create_app(storage, bot_delay=0, **{**NO_LIMITS, "rate_chat": "2/minute"})) as test_client:
        yield test_client


def test_chatting_past_the_limit_gets_an_error_frame(slow_chat: TestClient) -> None:
    game_id, tokens = seated(slow_chat)
    with slow_chat.websocket_connect(f"/ws/games/{game_id}", headers=auth(tokens[0])) as ann:
        until(ann, "hello")
        for text in ("one", "two"):
            say(ann, text)
            assert until(ann, "chat")["text"] == text
        say(ann, "three")
        refusal = until(ann, "error")
        assert refusal["error"] == "too_many" and refusal["retry_after"] >= 1
        ann.send_json({"type": "ping"})
        assert until(ann, "pong") == {"type": "pong"}
