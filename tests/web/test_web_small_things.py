"""Small things a player saw (issue 23), each fixed on the server: what a seat's level seats,
the rules' titles, the API link, a profile of games under way, chat refusals in words, one
log line per timeout and the record marking the clock's moves."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_helpers import NO_LIMITS, Clock, auth, join, new_game, run_out, until

from cantstop.bots import Level, get_bot
from cantstop.core.record import Leave, read_record
from cantstop.core.variant import PRESET_TITLES, PRESETS
from cantstop.table import Kind, Move
from cantstop.web.app import create_app
from cantstop.web.db.storage import Storage
from cantstop.web.games.chat import MAX_CHAT
from cantstop.web.games.clock import RAN_OUT
from cantstop.web.games.live import fallback_notes


def test_each_level_names_the_bot_its_seat_gets(client: TestClient) -> None:
    info = client.get("/api/variants").json()
    levels = {entry["name"]: entry["bot"] for entry in info["levels"]}
    assert {"hard", "expert"} <= set(levels)
    for level, bot in levels.items():
        assert bot == get_bot(level).name, level  # the bot the server seats for bot:LEVEL
        assert bot in {b["name"] for b in info["bots"]}
    assert [Level(name) for name in levels] == sorted(map(Level, levels), key=list(Level).index)  # weakest first
    game_id = new_game(client, ["open", "bot:hard", "bot:expert"])
    seats = client.get(f"/api/games/{game_id}").json()["seats"]
    assert [s["bot"] for s in seats[1:]] == [levels["hard"], levels["expert"]]


def test_every_preset_has_a_title_people_read(client: TestClient) -> None:
    assert set(PRESET_TITLES) == set(PRESETS)
    offered = client.get("/api/variants").json()["variants"]
    assert {v["name"]: v["title"] for v in offered} == PRESET_TITLES
    assert PRESET_TITLES["classic-no-stop-on-occupied"] == "Classic, no stopping on an occupied space"
    assert all("-" not in title for title in PRESET_TITLES.values())


@pytest.mark.parametrize("docs", [False, True])
def test_the_home_page_links_to_the_api_pages_only_when_they_are_served(storage: Storage, docs: bool) -> None:
    with TestClient(create_app(storage, bot_delay=0, api_docs=docs, **NO_LIMITS)) as client:
        home = client.get("/").text
        assert ('href="/docs"' in home) is docs
        assert "$api_link" not in home
        assert client.get("/docs").status_code == (200 if docs else 404)


def test_a_player_with_only_games_under_way_has_a_profile(client: TestClient) -> None:
    game_id = new_game(client, ["open", "open"])
    join(client, game_id, 0, "Pat")
    waiting = client.get("/api/players/Pat")
    assert waiting.status_code == 200, waiting.text
    profile = waiting.json()
    assert profile["games"] == [] and profile["rating"] is None
    assert [g["id"] for g in profile["playing"]] == [game_id] and profile["playing"][0]["status"] == "waiting"
    join(client, game_id, 1, "Quinn")
    assert client.get("/api/players/Pat").json()["playing"][0]["status"] == "playing"
    nobody = client.get("/api/players/Nobody")
    assert nobody.status_code == 404 and "Nobody" in nobody.json()["message"]


def chat_refusal(client: TestClient, message: dict[str, Any]) -> dict[str, Any]:
    game_id = new_game(client, ["open", "open"])
    token = join(client, game_id, 0, "Ann")
    with client.websocket_connect(f"/ws/games/{game_id}", headers=auth(token)) as ws:
        until(ws, "hello")
        ws.send_json(message)
        return until(ws, "error")


def test_a_long_chat_message_is_refused_naming_the_200_character_rule(client: TestClient) -> None:
    refusal = chat_refusal(client, {"type": "chat", "text": "x" * 2000})
    assert refusal["error"] == "bad_chat" and refusal["about"] == "chat"
    assert refusal["message"] == f"a chat message has 1..{MAX_CHAT} characters, not 2000"


@pytest.mark.parametrize(("message", "says"), [
    ({"type": "chat", "text": 5}, "this chat message does not fit: text: "),
    ({"type": "chat", "text": "hi", "extra": 1}, "this chat message does not fit: extra: "),
    ({"type": "mute", "spectators": "yes"}, "this mute message does not fit: spectators: "),
    ({"type": "action", "version": "zero", "action": "roll"}, "this action message does not fit: version: "),
    ({"type": "shout", "text": "hi"}, "no message has the type 'shout'; send {\"type\": \"action\""),
    ({"text": "hi"}, 'a message is a JSON object with a "type"; send'),
])
def test_a_malformed_message_is_refused_in_plain_words(client: TestClient, message: dict[str, Any], says: str) -> None:
    refusal = chat_refusal(client, message)
    assert refusal["error"] == "bad_message" and refusal["message"].startswith(says), refusal["message"]
    assert "validation error" not in refusal["message"]  # pydantic's own report is not passed on


def clock_game(storage: Storage, clock: Clock) -> tuple[list[Any], dict[str, Any], dict[str, Any], str]:
    """A hot-seat game with a 30 s clock nobody answers, after three timeouts: its stored
    moves, and the game, its replay and its record as they are served (by a server whose
    clock stands still, so nothing more runs out while they are read)."""
    # Nobody forfeits (timeouts_to_forfeit=0): the clock plays for both, move after move.
    with TestClient(create_app(storage, now=clock, bot_delay=0, timeouts_to_forfeit=0, **NO_LIMITS)) as client:
        body = {"seats": ["open", "open"], "clock": 30, "take": [{"seat": 0, "name": "Ann"}, {"seat": 1, "name": "Bob"}]}
        game_id = client.post("/api/games", json=body).json()["id"]
        for _ in range(3):
            run_out(client, game_id, clock)
    with TestClient(create_app(storage, now=clock, bot_delay=0, **NO_LIMITS)) as client:
        game = client.get(f"/api/games/{game_id}").json()
        replay = client.get(f"/api/games/{game_id}/replay").json()
        record = client.get(f"/api/games/{game_id}/record").text
    moves = storage.events(game_id)
    assert len(moves) == game["version"]
    return moves, game, replay, record


def test_each_timeout_is_one_line_of_the_log_and_of_the_replay(storage: Storage, still_clock: Clock) -> None:
    moves, game, replay, _ = clock_game(storage, still_clock)
    timeouts = sum(m.kind is Kind.FALLBACK for m in moves)
    assert timeouts == 3  # nobody ever moves: every move is the clock's
    for log in (game["log"], [line for frame in replay["frames"] for line in frame["log"]]):
        fell_back = [line for line in log if line.get("fell_back") == "timeout"]
        assert len(fell_back) == timeouts
        assert all(line["text"].startswith(RAN_OUT.capitalize() + ": ") for line in fell_back)
        assert not any("failed" in line["text"] for line in log)  # no second line saying it again
        assert len(log) == 1 + len(moves) - timeouts  # the start, then one line per move made
    first = next(line for line in game["log"] if line.get("fell_back"))
    assert first["kind"] == "roll" and first["text"].endswith("-".join(map(str, first["dice"])))


def test_the_record_marks_the_moves_the_clock_made(storage: Storage, still_clock: Clock) -> None:
    moves, _, _, record = clock_game(storage, still_clock)
    notes = [line for line in record.splitlines() if "{fallback:" in line]
    timeouts = [m for m in moves if m.kind is Kind.FALLBACK]
    assert sum(line.count("{fallback:") for line in notes) == len(timeouts)
    first = timeouts[0]
    assert f"{{fallback:{'AB'[first.seat]} timeout: {RAN_OUT}}}" in record
    # The marks are comments: the record reads back to the same moves.
    assert read_record(record).events == [m.event for m in moves if not m.out_of_band]


@pytest.mark.parametrize("left_in_record", [True, False])
def test_a_note_lands_on_the_move_the_table_made_whatever_came_before(left_in_record: bool) -> None:
    """Among people a resignation is an event of the record (the seat leaves), in a match it is
    a note: either way the note lands on the move the clock made."""
    first, second = Move.rolled((1, 2, 3, 4)), Move.rolled((6, 6, 5, 5))
    moves = [first, Move.resign(1, "left"), Move.fallback(0, f"timeout: {RAN_OUT}"), second]
    events = [first.event, Leave(1), second.event] if left_in_record else [first.event, second.event]
    assert fallback_notes(moves, events) == {len(events) - 1: f"fallback:A timeout: {RAN_OUT}"}
