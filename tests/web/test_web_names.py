"""Hostile names: invisible or bidi characters, names that pass for a bot's, look-alike names."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st
from web_helpers import join, new_game

from cantstop.web.errors import Invalid
from cantstop.web.names import checked_name, name_key


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("\u202eAnn", "U+202E (RIGHT-TO-LEFT OVERRIDE)"),
        ("A\u200bnn", "U+200B (ZERO WIDTH SPACE)"),
        ("Ann\u2066", "U+2066"),
        ("\ufeffAnn", "U+FEFF"),
        ("Ann\ue000", "private-use"),
        ("A\x07nn", "control character"),
        ("Ann\nBob", "control character"),
        ("Ann\u2028", "line separator"),
        ("bot:random", "'bot:…' names bots"),
        ("ＢＯＴ：ｒａｎｄｏｍ", "'bot:…' names bots"),  # fullwidth letters and colon
        ("BoT: x", "'bot:…' names bots"),
        ("Rule-of-28 bot", "reads as the bot 'Rule-of-28 bot'"),
        ("rule of 28  BOT", "reads as the bot 'Rule-of-28 bot'"),
        ("ＥＸＰＥＲＴ ＢＯＴ", "reads as the bot 'Expert bot'"),
        ("a;b", "holds ;"),
        ("\ufb03" * 14, "42 characters after normalising"),  # each ligature ffi is three letters
        ("   ", "0 characters"),
    ],
)
def test_a_hostile_name_is_refused_saying_why(client: TestClient, name: str, says: str) -> None:
    game_id = new_game(client, ["open", "open"])
    response = client.post(f"/api/games/{game_id}/join", json={"seat": 1, "name": name})
    assert response.status_code == 422
    assert set(response.json()) == {"error", "message"} and response.json()["error"] == "bad_name"
    assert says in response.json()["message"] and response.json()["message"].startswith("seat B: ")
    assert client.get(f"/api/games/{game_id}").json()["seats"][1]["kind"] == "open"  # nothing stored


def test_names_are_stored_normalised(client: TestClient) -> None:
    game_id = new_game(client, ["open", "open"])
    join(client, game_id, 0, "  Zoe\u0301   Ｑ ")  # a combining accent, fullwidth Q, extra spaces
    assert client.get(f"/api/games/{game_id}").json()["seats"][0]["name"] == "Zoé Q"


@pytest.mark.parametrize("second", ["ann", "ＡＮＮ", " Ann ", "ANN"])
def test_two_seats_cannot_hold_names_that_match_after_normalising(client: TestClient, second: str) -> None:
    game_id = new_game(client, ["open", "open"])
    join(client, game_id, 0, "Ann")
    response = client.post(f"/api/games/{game_id}/join", json={"seat": 1, "name": second})
    assert response.status_code == 422 and response.json()["error"] == "bad_name"
    assert "already plays seat A" in response.json()["message"]
    at_one_screen = client.post(
        "/api/games", json={"seats": ["open", "open"], "take": [{"seat": 0, "name": "Ann"}, {"seat": 1, "name": second}]}
    )
    assert at_one_screen.status_code == 422 and at_one_screen.json()["error"] == "bad_name"


@given(st.text(max_size=50))
def test_an_accepted_name_is_plain_normal_text(name: str) -> None:
    try:
        accepted = checked_name(name)
    except Invalid as refusal:
        assert refusal.code == "bad_name" and refusal.message
        return
    assert accepted == checked_name(accepted)  # normalising is idempotent
    assert 1 <= len(accepted) <= 40 and accepted == accepted.strip()
    assert all(ch.isprintable() for ch in accepted)
    assert not name_key(accepted).startswith("bot:")
