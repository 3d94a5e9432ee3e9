"""Chat: players and spectators talk, plain text, limited in length and rate; players can mute spectators.
What is said is stored, and read back with its game."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import icu
import pytest
from account_helpers import PASSWORD, people, play_between, post, rated_game
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st
from web_helpers import NO_LIMITS, auth, join, new_game, until

from cantstop.web.app import create_app
from cantstop.web.db.storage import Storage
from cantstop.web.errors import Invalid
from cantstop.web.games.chat import HISTORY, MAX_CHAT, ChatRoom, chat_text
from cantstop.web.spoof import PRESENTATION


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


# ------------------------------------------------------------- kept in storage
def test_what_was_said_and_the_mute_outlive_a_restart(any_storage: Storage) -> None:
    """On SQLite and PostgreSQL: a server started again reads each game's chat back, the
    spectators' lines and the mute with it."""
    with TestClient(create_app(any_storage, bot_delay=0, **NO_LIMITS)) as before:
        game_id, tokens = seated(before)
        with before.websocket_connect(f"/ws/games/{game_id}", headers=auth(tokens[0])) as ann, \
                before.websocket_connect(f"/ws/games/{game_id}") as watcher:
            until(ann, "hello"), until(watcher, "hello")
            say(ann, "good luck")
            said = until(watcher, "chat")
            assert until(ann, "chat") == said
            say(watcher, "hello from the stands")
            heard = until(ann, "chat")
            ann.send_json({"type": "mute", "spectators": True})
            until(watcher, "chat_mute")
    assert heard["id"] > said["id"] and said["at"].endswith("+00:00")
    with TestClient(create_app(any_storage, bot_delay=0, **NO_LIMITS)) as after, \
            after.websocket_connect(f"/ws/games/{game_id}") as later:
        chat = until(later, "hello")["chat"]
        assert chat["messages"] == [said, heard] and chat["spectators_muted"] is True
        assert (said["seat"], said["name"], heard["seat"]) == (0, "Ann", None) and heard["name"].startswith("Spectator ")
        say(later, "am I heard")
        assert until(later, "error")["error"] == "muted"  # the mute came back with the game
    lines, muted = any_storage.chat(game_id, HISTORY)
    assert [(line.seat, line.text) for line in lines] == [(0, "good luck"), (None, "hello from the stands")] and muted


def test_a_rated_games_spectators_lines_reach_its_players_at_the_end_though_the_server_restarted(storage: Storage) -> None:
    with people(storage, "Ann", "Bob", "Cy") as (ann, bob, cy):
        game_id = rated_game(ann, [bob])
        with cy.websocket_connect(f"/ws/games/{game_id}") as watcher:
            until(watcher, "hello")
            say(watcher, "play 7, it is safe")
            until(watcher, "chat")
    with TestClient(create_app(storage, bot_delay=0, **NO_LIMITS)) as again:  # a restart: nothing in memory
        for browser in (ann, bob):
            browser.client = again
        with ann.websocket_connect(f"/ws/games/{game_id}") as player:
            assert until(player, "hello")["chat"]["messages"] == []  # still kept from the players
            play_between({0: ann, 1: bob}, game_id)
            revealed = next(m for m in iter(player.receive_json, None) if m["type"] == "chat_all")
            assert [m["text"] for m in revealed["messages"]] == ["play 7, it is safe"]
        # Nobody watches the finished game: it is dropped from memory, and read back with its chat.
        assert game_id not in again.app.state.service.games.held  # type: ignore[attr-defined]
        with bob.websocket_connect(f"/ws/games/{game_id}") as late:
            assert [m["text"] for m in until(late, "hello")["chat"]["messages"]] == ["play 7, it is safe"]


def test_a_deleted_accounts_chat_lines_stay_as_the_deleted_players(storage: Storage) -> None:
    with people(storage, "Ann", "Bob") as (ann, bob):
        game_id = rated_game(ann, [bob])
        with ann.websocket_connect(f"/ws/games/{game_id}") as player:
            until(player, "hello")
            say(player, "I will be gone")
            until(player, "chat")
        play_between({0: ann, 1: bob}, game_id)
        assert post(ann, "/api/account/delete", {"password": PASSWORD}).status_code == 204
        with bob.websocket_connect(f"/ws/games/{game_id}") as other:  # the game this server still holds
            [line] = until(other, "hello")["chat"]["messages"]
        assert (line["seat"], line["name"], line["text"]) == (0, "deleted player #1", "I will be gone")
        assert bob.get(f"/api/games/{game_id}").json()["seats"][0]["name"] == line["name"]  # as its seat reads
    with TestClient(create_app(storage, bot_delay=0, **NO_LIMITS)) as again, again.websocket_connect(f"/ws/games/{game_id}") as other:
        assert until(other, "hello")["chat"]["messages"] == [line]  # and read back after a restart


def test_a_process_that_missed_messages_catches_up_once(storage: Storage) -> None:
    """Two servers on one database: a message stored by the other reaches this one's clients
    when it catches up (as after PostgreSQL's notices were lost), and only once."""
    with TestClient(create_app(storage, bot_delay=0, **NO_LIMITS)) as here, \
            TestClient(create_app(storage, bot_delay=0, **NO_LIMITS)) as there:
        game_id, tokens = seated(here)
        with here.websocket_connect(f"/ws/games/{game_id}") as watcher, \
                there.websocket_connect(f"/ws/games/{game_id}", headers=auth(tokens[1])) as bob:
            until(watcher, "hello"), until(bob, "hello")
            say(bob, "said over there")
            said = until(bob, "chat")
            bob.send_json({"type": "mute", "spectators": True})
            until(bob, "chat_mute")
            service = here.app.state.service  # type: ignore[attr-defined]
            for _ in range(2):
                here.portal.call(service.catch_up_all)  # type: ignore[union-attr]
            assert until(watcher, "chat") == said
            assert until(watcher, "chat_mute")["spectators_muted"] is True
            watcher.send_json({"type": "ping"})
            assert watcher.receive_json() == {"type": "pong"}  # nothing more: the message came once


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(1, 80), max_size=120))
def test_a_room_keeps_the_latest_messages_once_each_in_the_order_said(ids: list[int]) -> None:
    """However the frames arrive (late from another process, twice: read with the game and
    relayed), a room keeps each message once, by its number, the last HISTORY of them."""
    room = ChatRoom()
    for number in ids:
        room.take({"type": "chat", "id": number, "seat": 0, "name": "Ann", "text": str(number), "at": None})
    kept = [m["id"] for m in room.messages]
    assert kept == sorted(set(kept)) and len(kept) <= HISTORY
    assert set(kept) <= set(ids) and (len(kept) == HISTORY or set(kept) >= set(ids) - set(range(min(kept, default=0))))


# What a name refuses as showing nothing (`spoof.invisible_character`), from Unicode's own
# tables: but the presentation selectors, which a chat line keeps after an emoji.
INVISIBLE = [str(ch) for ch in icu.UnicodeSet("[[:Default_Ignorable_Code_Point:][:Cf:][\\u2800]-[:Cn:]]") if str(ch) not in PRESENTATION]


@given(st.sampled_from(INVISIBLE), st.integers(0, 10))
def test_chat_refuses_every_character_a_name_refuses_as_invisible(hidden: str, at: int) -> None:
    """What may show as nothing in a name may not in a chat line either, alone or among words."""
    text = "good game"
    for line in (hidden, hidden * 3, text[:at] + hidden + text[at:]):
        with pytest.raises(Invalid) as refused:
            chat_text(line)
        assert refused.value.code == "bad_chat"
