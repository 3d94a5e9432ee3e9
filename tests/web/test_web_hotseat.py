"""People at one screen: a game created with seats taken at once (`take`), one token per seat."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from web_helpers import auth, pick, wait_for

from cantstop.core.record import read_record
from cantstop.web.db.rows import SeatRow
from cantstop.web.db.storage import Storage
from cantstop.web.db.tokens import hash_token, new_token
from cantstop.web.db.values import Taker


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
    game_id = any_storage.create_game("classic", [("open", None), ("bot", "random"), ("open", None)], {0: Taker("Ann", ann), 2: Taker("Bob", bob)})
    game = any_storage.game(game_id)
    assert game is not None
    assert [(s.kind, s.name) for s in game.seats] == [("person", "Ann"), ("bot", "bot:random"), ("person", "Bob")]
    assert any_storage.seat_of(game_id, ann) == 0 and any_storage.seat_of(game_id, bob) == 2
    assert any_storage.claim_seat(game_id, 0, "Eve") is None  # nobody can join a seat taken so
    with any_storage.session() as session:
        stored = set(session.scalars(select(SeatRow.token_hash)).all())
    assert hash_token(ann) in stored and ann not in stored


def screen_join(client: TestClient, game_id: str, seat: int, name: str) -> Any:
    return client.post(f"/api/games/{game_id}/join", json={"seat": seat, "name": name, "screen": True})


def test_a_screen_holding_a_seat_adds_a_person_at_the_same_screen(client: TestClient) -> None:
    created = create(client, {"variant": "classic+to_win=1", "seats": ["open", "open", "open"], "take": [{"seat": 0, "name": "Ann"}]}).json()
    game_id, ann = created["id"], created["taken"][0]["token"]
    added = screen_join(client, game_id, 2, "Bob")
    assert added.status_code == 200, added.text
    assert "set-cookie" not in added.headers and not client.cookies  # the token is the page's to keep
    bob = added.json()["token"]
    assert added.json()["seat"] == 2 and bob != ann
    game = client.get(f"/api/games/{game_id}").json()
    assert game["status"] == "waiting" and [s["name"] for s in game["seats"]] == ["Ann", None, "Bob"]
    assert client.get(f"/api/games/{game_id}", headers=auth(bob)).json()["you"] == 2
    assert client.get(f"/api/games/{game_id}", headers=auth(ann)).json()["you"] == 0
    assert screen_join(client, game_id, 1, "Cy").status_code == 200  # the last open seat: it starts
    assert wait_for(client, game_id, lambda g: g["status"] == "playing")["seats"][1]["name"] == "Cy"


def test_a_seat_joined_online_keeps_its_cookie_when_a_person_is_added_here(client: TestClient) -> None:
    game_id = create(client, {"seats": ["open", "open", "bot:random"]}).json()["id"]
    online = client.post(f"/api/games/{game_id}/join", json={"seat": 0, "name": "Ann"})
    assert online.status_code == 200 and "set-cookie" in online.headers
    bob = screen_join(client, game_id, 1, "Bob").json()["token"]
    assert client.get(f"/api/games/{game_id}").json()["you"] == 0  # the cookie still holds Ann's seat
    # Ann plays with the cookie, Bob with his token, from one client (the bot moves meanwhile).
    headers: dict[int, dict[str, str]] = {0: {}, 1: auth(bob)}
    acted: set[int] = set()
    rolls = 0
    for _ in range(3000):
        if acted == {0, 1}:
            break
        game = client.get(f"/api/games/{game_id}").json()
        state = game["state"]
        if state is None or state["player"] not in headers:
            continue
        rolls = 0 if state["phase"] == "roll" else rolls
        action = pick(state, rolls)
        rolls += action == "roll"
        done = client.post(f"/api/games/{game_id}/actions", json={"version": game["version"], "action": action}, headers=headers[state["player"]])
        assert done.status_code == 200, done.text
        acted.add(state["player"])
    assert acted == {0, 1}


@pytest.mark.parametrize(
    ("seat", "name", "status", "error", "says"),
    [
        (1, "Bob", 409, "seat_taken", "seat 1 (B) is not open; open seats: 2"),  # a person's seat
        (3, "Bob", 409, "seat_taken", "open seats: 2"),  # a bot's seat
        (4, "Bob", 422, "bad_request", "seat: Input should be less than or equal to 3"),
        (-1, "Bob", 422, "bad_request", "seat: Input should be greater than or equal to 0"),
        (2, "ann", 422, "bad_name", "Ann already plays seat A"),
        (2, "a;b", 422, "bad_name", "without ;"),
    ],
)
def test_bad_screen_joins_are_refused_and_nothing_changes(
    client: TestClient, seat: int, name: str, status: int, error: str, says: str
) -> None:
    created = create(client, {"seats": ["open", "open", "open", "bot:random"], "take": [{"seat": 0, "name": "Ann"}, {"seat": 1, "name": "Cy"}]}).json()
    game_id = created["id"]
    before = client.get(f"/api/games/{game_id}").json()
    response = screen_join(client, game_id, seat, name)
    assert response.status_code == status, response.text
    assert response.json()["error"] == error and says in response.json()["message"], response.json()
    assert client.get(f"/api/games/{game_id}").json() == before


def test_a_seat_number_the_game_lacks_names_the_seats_it_has(client: TestClient) -> None:
    game_id = create(client, {"seats": ["open", "bot:random"]}).json()["id"]
    refused = screen_join(client, game_id, 3, "Bob")
    assert refused.status_code == 422
    assert refused.json() == {"error": "bad_seat", "message": "this game has seats 0..1, not 3; open seats: 0"}


def test_no_seat_is_taken_once_a_game_is_under_way_or_over(client: TestClient) -> None:
    created = create(client, {"variant": "classic+to_win=1", "seats": ["open", "bot:random"], "take": [{"seat": 0, "name": "Ann"}]}).json()
    game_id, ann = created["id"], created["taken"][0]["token"]
    for online in (False, True):
        refused = client.post(f"/api/games/{game_id}/join", json={"seat": 1, "name": "Bob", "screen": online})
        assert refused.status_code == 409 and refused.json()["error"] == "not_waiting"
        assert "has started" in refused.json()["message"] and "only before it starts" in refused.json()["message"]
    rolls = 0
    for _ in range(3000):
        game = client.get(f"/api/games/{game_id}").json()
        if game["status"] == "over":
            break
        if game["state"]["player"] != 0:
            continue
        rolls = 0 if game["state"]["phase"] == "roll" else rolls
        action = pick(game["state"], rolls)
        rolls += action == "roll"
        client.post(f"/api/games/{game_id}/actions", json={"version": game["version"], "action": action}, headers=auth(ann))
    refused = screen_join(client, game_id, 0, "Bob")
    assert refused.status_code == 409 and "the game is over" in refused.json()["message"]
    assert client.get(f"/api/games/{game_id}").json()["seats"][0]["name"] == "Ann"
