"""What the server sends for people to read (issue 33): rules by their titles in the game
lists and profiles, a bot offered only where it can play, the turns of an abandoned game as
its summary counts them, and a chat message's length as a reader counts it."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_web_chat import say, seated
from web_helpers import auth, join, new_game, until

from cantstop.bots import bot_names, get_bot
from cantstop.core.variant import PRESET_TITLES, PRESETS, variant_title
from cantstop.web.db.rows import CHAT_CODE_POINTS
from cantstop.web.games.chat import MAX_CHAT, characters


def finish_by_resigning(client: TestClient, variant: str) -> str:
    """A game of `variant` for Ann and Bob that ends at once: Bob resigns."""
    game_id = new_game(client, ["open", "open"], variant)
    join(client, game_id, 0, "Ann")
    bob = join(client, game_id, 1, "Bob")
    assert client.post(f"/api/games/{game_id}/resign", headers=auth(bob)).status_code == 200
    return game_id


def test_the_game_lists_and_a_profile_name_the_rules_by_their_titles(client: TestClient) -> None:
    finished = finish_by_resigning(client, "classic-no-stop-on-occupied")
    waiting = new_game(client, ["open", "open"], "turtles-relay")
    join(client, waiting, 0, "Ann")
    listed = {g["id"]: g for g in client.get("/api/games").json() + client.get("/api/finished").json()}
    assert listed[finished]["title"] == "Classic, no stopping on an occupied space"
    assert listed[waiting]["title"] == "Turtles, relay race"
    assert listed[finished]["variant"] == "classic-no-stop-on-occupied"  # the spec stays, for programs
    profile = client.get("/api/players/Ann").json()
    assert [g["title"] for g in profile["games"]] == ["Classic, no stopping on an occupied space"]
    assert [g["title"] for g in profile["playing"]] == ["Turtles, relay race"]
    assert [(r["variant"], r["title"]) for r in profile["stats"]["by_variant"]] == [
        ("classic-no-stop-on-occupied", "Classic, no stopping on an occupied space")]


@pytest.mark.parametrize(("spec", "title"), [
    *PRESET_TITLES.items(),
    ("classic+to_win=4", "Classic + to_win=4"),
    ("turtles-relay+to_win=2+skip", "Turtles, relay race + to_win=2 + skip"),
    ("nonsense", "nonsense"),
])
def test_a_variant_title_is_its_presets_with_the_changes_after_it(spec: str, title: str) -> None:
    assert variant_title(spec) == title


def test_each_bot_is_offered_only_where_it_can_play(client: TestClient) -> None:
    bots = {b["name"]: b for b in client.get("/api/variants").json()["bots"]}
    assert set(bots) == set(bot_names())
    for name, offered in bots.items():
        info = get_bot(name)
        assert set(offered["plays"]) == set(PRESETS)
        for variant, counts in offered["plays"].items():
            v = PRESETS[variant]
            assert counts == [n for n in range(v.min_players, v.max_players + 1) if info.fits(v, n) is None], (name, variant)
    # The optimal bot has no solved table here, so it is offered nowhere; the others play classic.
    assert all(counts == [] for counts in bots["optimal"]["plays"].values())
    assert bots["rule28"]["plays"]["classic"] == [1, 2, 3, 4]
    # And what a menu offers, the server seats.
    for name, offered in bots.items():
        for variant, counts in offered["plays"].items():
            for n in counts[:1]:
                seats = ["open"] * (n - 1) + [f"bot:{name}"]
                assert client.post("/api/games", json={"variant": variant, "seats": seats}).status_code == 201, (name, variant, n)


def test_a_game_abandoned_in_its_first_turn_is_listed_with_that_turn(client: TestClient) -> None:
    created = client.post("/api/games", json={"variant": "solitaire", "seats": ["open"], "take": [{"seat": 0, "name": "Ann"}]}).json()
    game_id, token = created["id"], created["taken"][0]["token"]
    game = client.post(f"/api/games/{game_id}/actions", headers=auth(token), json={"version": 0, "action": "roll"}).json()
    assert game["state"]["turn"] == 0  # the first turn has begun and not ended
    assert client.post(f"/api/games/{game_id}/resign", headers=auth(token)).status_code == 200
    summary = client.get(f"/api/games/{game_id}/summary").json()
    listed = next(g for g in client.get("/api/finished").json() if g["id"] == game_id)
    assert listed["status"] == "abandoned"
    assert listed["turns"] == summary["seats"][0]["turns"] == 1


@pytest.mark.parametrize(("text", "count"), [
    ("e\u0301" * 150, 150),  # accents written apart from their letters: NFC makes them one code point each
    ("\U0001f44d\U0001f3fd" * 200, 200),  # a thumbs up with a skin tone: two code points, one character
    ("\U0001f1eb\U0001f1f7" * 200, 200),  # flags: two regional indicators each
    ("q\u0303" * 200, 200),  # q with a tilde has no precomposed form: two code points after NFC
    ("abc", 3),
])
def test_a_chat_message_is_counted_in_the_characters_a_reader_sees(client: TestClient, text: str, count: int) -> None:
    assert characters(text) == count
    game_id, tokens = seated(client)
    with client.websocket_connect(f"/ws/games/{game_id}", headers=auth(tokens[0])) as ann:
        until(ann, "hello")
        say(ann, text)
        heard = answer(ann)
        assert heard["type"] == "chat", heard
        assert characters(heard["text"]) == count
    with client.websocket_connect(f"/ws/games/{game_id}") as later:  # stored whole, and read back so
        assert [characters(m["text"]) for m in until(later, "hello")["chat"]["messages"]] == [count]


def test_a_chat_message_over_the_limit_is_refused_by_its_characters_and_its_code_points(client: TestClient) -> None:
    game_id, tokens = seated(client)
    with client.websocket_connect(f"/ws/games/{game_id}", headers=auth(tokens[0])) as ann:
        until(ann, "hello")
        say(ann, "q\u0303" * (MAX_CHAT + 1))
        assert answer(ann)["message"] == f"a chat message has 1..{MAX_CHAT} characters, not {MAX_CHAT + 1}"
        # 170 characters, each a letter under five different marks: over 1,000 code points (no
        # mark twice on one letter, which chat refuses first as a mark that shows as one)
        piled = "a\u0300\u0301\u0302\u0303\u0304\u0306" * 170
        say(ann, piled)
        assert answer(ann)["message"].startswith(f"a chat message holds at most {CHAT_CODE_POINTS} code points")
        say(ann, "still here")
        assert answer(ann)["text"] == "still here"  # nothing half-applied, the socket lives


def answer(ws: Any) -> dict[str, Any]:
    """The next message that answers a chat message (a chat line or an error), presence skipped."""
    for _ in range(10):
        message: dict[str, Any] = ws.receive_json()
        if message["type"] in ("chat", "error"):
            return message
    raise AssertionError("no answer to the chat message")
