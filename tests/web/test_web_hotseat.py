"""People at one screen: a game created with seats taken at once (`take`), one token per seat."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from web_helpers import auth, pick, wait_for

from cantstop.core.record import read_record
from cantstop.web.storage import SeatRow, Storage, hash_token, new_token


def create(client: TestClient, body: dict[str, Any]) -> Any:
    return client.post("/api/games", json=body)


def test_two_people_at_one_screen_play_a_whole_game(client: TestClient) -> None:
    response = create(client, {"variant": "classic+to_win=1", "seats": ["open", "open"],
                               "take": [{"seat": 0, "name": "Ann"}, {"seat": 1, "name": " Bob "}]})
    assert response.status_code == 201, response.text
    created = response.json()
    assert "set-cookie" not in response.headers  # the tokens are for this screen's own store only
    tokens = {t["seat"]: t["token"] for t in created["taken"]}
    assert set(tokens) == {0, 1} and tokens[0] != tokens[1]
    assert all(t["game"] == created["id"] for t in created["taken"])
    game_id = created["id"]
    game = client.get(f"/api/games/{game_id}").json()
    assert game["status"] == "playing"  # every seat is taken: it starts at once
    assert [s["name"] for s in game["seats"]] == ["Ann", "Bob"]
    assert game["you"] is None  # no cookie: a spectator is told nothing
    for seat, token in tokens.items():
        assert client.get(f"/api/games/{game_id}", headers=auth(token)).json()["you"] == seat
    rolls = 0
    for _ in range(3000):
        game = client.get(f"/api/games/{game_id}").json()
        if game["status"] == "over":
            break
        state = game["state"]
        rolls = 0 if state["phase"] == "roll" else rolls
        action = pick(state, rolls)
        rolls += action == "roll"
        other = tokens[1 - state["player"]]  # the other person's token cannot act in this turn
        refused = client.post(f"/api/games/{game_id}/actions", json={"version": game["version"], "action": action}, headers=auth(other))
        assert refused.json()["error"] == "not_your_turn"
        done = client.post(f"/api/games/{game_id}/actions", json={"version": game["version"], "action": action}, headers=auth(tokens[state["player"]]))
        assert done.status_code == 200, done.text
    assert game["status"] == "over"
    assert read_record(client.get(f"/api/games/{game_id}/record").text).players == ["Ann", "Bob"]


def test_one_person_at_the_screen_and_an_open_seat_wait_for_the_other(client: TestClient) -> None:
    created = create(client, {"seats": ["open", "open", "bot:random"], "take": [{"seat": 1, "name": "Ann"}]}).json()
    game_id = created["id"]
    game = client.get(f"/api/games/{game_id}").json()
    assert game["status"] == "waiting"
    assert [s["kind"] for s in game["seats"]] == ["open", "person", "bot"]
    listed = client.get("/api/games").json()
    assert listed[0]["players"] == [None, "Ann", "bot:random"]
    assert "token" not in str(listed) and created["taken"][0]["token"] not in str(game)
    taken = client.post(f"/api/games/{game_id}/join", json={"seat": 1, "name": "Eve"})
    assert taken.status_code == 409 and taken.json()["error"] == "seat_taken"
    joined = client.post(f"/api/games/{game_id}/join", json={"seat": 0, "name": "Bob"})
    assert joined.status_code == 200
    assert wait_for(client, game_id, lambda g: g["status"] == "playing")["seats"][0]["name"] == "Bob"


def test_a_person_at_the_screen_against_a_bot_starts_at_once(client: TestClient) -> None:
    created = create(client, {"variant": "classic+to_win=1", "seats": ["bot:random", "open"], "take": [{"seat": 1, "name": "Ann"}]}).json()
    assert client.get(f"/api/games/{created['id']}").json()["status"] == "playing"


def test_without_take_the_reply_is_as_before(client: TestClient) -> None:
    response = create(client, {"seats": ["open", "bot:random"]})
    assert set(response.json()) == {"id", "url"}


@pytest.mark.parametrize(
    ("take", "error", "says"),
    [
        ([{"seat": 1, "name": "Ann"}], "bad_seat", "only open seats"),  # a bot's seat
        ([{"seat": 3, "name": "Ann"}], "bad_seat", "open seats: 0, 2"),
        ([{"seat": 0, "name": "Ann"}, {"seat": 0, "name": "Bob"}], "bad_seat", "once"),
        ([{"seat": 0, "name": "Ann"}, {"seat": 2, "name": "ann"}], "bad_name", "different name"),
        ([{"seat": 0, "name": "Ann"}, {"seat": 2, "name": "a;b"}], "bad_name", "seat C"),
        ([{"seat": 2, "name": "bot:x"}], "bad_name", "seat C"),
    ],
)
def test_bad_takes_are_refused_and_nothing_is_created(client: TestClient, take: list[dict[str, Any]], error: str, says: str) -> None:
    response = create(client, {"seats": ["open", "bot:random", "open"], "take": take})
    assert response.status_code == 422, response.text
    assert response.json()["error"] == error and says in response.json()["message"]
    assert client.get("/api/games").json() == []


def test_seats_taken_at_creation_are_stored_as_hashes(any_storage: Storage) -> None:
    ann, bob = new_token(), new_token()
    game_id = any_storage.create_game("classic", [("open", None), ("bot", "random"), ("open", None)], {0: ("Ann", ann), 2: ("Bob", bob)})
    game = any_storage.game(game_id)
    assert game is not None
    assert [(s.kind, s.name) for s in game.seats] == [("person", "Ann"), ("bot", "bot:random"), ("person", "Bob")]
    assert any_storage.seat_of(game_id, ann) == 0 and any_storage.seat_of(game_id, bob) == 2
    assert any_storage.claim_seat(game_id, 0, "Eve") is None  # nobody can join a seat taken so
    with any_storage.session() as session:
        stored = set(session.scalars(select(SeatRow.token_hash)).all())
    assert hash_token(ann) in stored and ann not in stored
