"""Fair play in rated games, as a hostile client tries it: no odds or advice for anyone while
the game is on, spectators' chat kept from the players until the end, everything open once it
ends; friendly games as before. And seats that belong to accounts (any device) or move by a
one-time link (a guest's)."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

from account_helpers import Browser, csrf, people, play_between, post, rated_game
from fastapi.testclient import TestClient
from test_web_api import play_out
from web_helpers import NO_LIMITS, auth, join, new_game, until

from cantstop.web.app import create_app
from cantstop.web.db.storage import Storage


def test_nobody_gets_odds_or_advice_while_a_rated_game_is_on(storage: Storage) -> None:
    with people(storage, "Ann", "Bob", "Cy") as (ann, bob, cy):
        game_id = rated_game(ann, [bob])
        anonymous = Browser(ann.client)
        for who in (ann, bob, cy, anonymous):  # players, a signed-in spectator, a stranger
            refused = who.get(f"/api/games/{game_id}/odds")
            assert refused.status_code == 403 and refused.json()["error"] == "fair_play"
            assert "rated" in refused.json()["message"] and "until it ends" in refused.json()["message"]
        seat_token = ann.get(f"/api/games/{game_id}").json()
        assert seat_token["rated"] is True
        play_between({0: ann, 1: bob}, game_id)
        over = anonymous.get(f"/api/games/{game_id}/odds")  # open again: there is nothing left to ask
        assert over.status_code == 409 and over.json()["error"] == "no_odds"
        assert anonymous.get(f"/api/games/{game_id}/replay").status_code == 200


def test_a_friendly_game_keeps_its_odds_and_advice(client: TestClient) -> None:
    game_id = new_game(client, ["open", "open"])
    join(client, game_id, 0, "Ann")
    join(client, game_id, 1, "Bob")
    odds = client.get(f"/api/games/{game_id}/odds")  # a spectator's request, as before
    assert odds.status_code == 200 and "bust" in odds.json()


def chat(ws: Any, text: str) -> None:
    ws.send_json({"type": "chat", "text": text})


def test_spectators_chat_reaches_players_only_once_a_rated_game_ends(storage: Storage) -> None:
    with people(storage, "Ann", "Bob", "Cy") as (ann, bob, cy):
        game_id = rated_game(ann, [bob])
        with cy.websocket_connect(f"/ws/games/{game_id}") as watcher, ann.websocket_connect(f"/ws/games/{game_id}") as player:
            assert until(watcher, "hello")["you"] is None
            assert until(player, "hello")["you"] == 0
            chat(watcher, "play 7, it is safe")
            assert until(watcher, "chat")["text"] == "play 7, it is safe"  # spectators read each other
            player.send_json({"type": "chat", "text": "good luck"})
            assert until(player, "chat")["text"] == "good luck"  # the player's own line, not the spectator's
            assert until(watcher, "chat")["text"] == "good luck"
        with ann.websocket_connect(f"/ws/games/{game_id}") as again:  # a player connecting now is not shown it either
            assert [m["text"] for m in until(again, "hello")["chat"]["messages"]] == ["good luck"]
            play_between({0: ann, 1: bob}, game_id)
            revealed = next(m for m in iter(again.receive_json, None) if m["type"] == "chat_all")  # the end: everything is open
            assert [m["text"] for m in revealed["messages"]] == ["play 7, it is safe", "good luck"]
            with bob.websocket_connect(f"/ws/games/{game_id}") as late:  # a player connecting after the end reads it all
                assert len(until(late, "hello")["chat"]["messages"]) == 2


def test_a_friendly_games_players_read_the_spectators_as_before(client: TestClient) -> None:
    game_id = new_game(client, ["open", "bot:random"])
    token = join(client, game_id, 0, "Ann")
    watcher_client = Browser(client)
    with watcher_client.websocket_connect(f"/ws/games/{game_id}") as watcher, client.websocket_connect(
        f"/ws/games/{game_id}", headers=auth(token)
    ) as player:
        until(watcher, "hello"), until(player, "hello")
        chat(watcher, "hello from the stands")
        assert until(player, "chat")["text"] == "hello from the stands"


def test_a_signed_in_player_gets_their_seat_back_on_another_device(storage: Storage) -> None:
    with people(storage, "Ann", "Bob") as (ann, bob):
        game_id = rated_game(ann, [bob])
        phone = Browser(ann.client)
        assert phone.get(f"/api/games/{game_id}").json()["you"] is None  # not signed in yet: a spectator
        assert post(phone, "/api/account/sign-in", {"name": "Ann", "password": "seven dice on the table"}).status_code == 200
        game = phone.get(f"/api/games/{game_id}").json()
        assert game["you"] == 0
        while game["state"]["player"] != 0:  # Bob moves first: his turn is played out
            action = "stop" if game["state"]["phase"] == "decide" else game["state"]["legal"][0]
            assert post(bob, f"/api/games/{game_id}/actions", {"version": game["version"], "action": action}).status_code == 200
            game = phone.get(f"/api/games/{game_id}").json()
        with phone.websocket_connect(f"/ws/games/{game_id}") as ws:
            assert until(ws, "hello")["you"] == 0
        forged = phone.post(f"/api/games/{game_id}/actions", json={"version": game["version"], "action": "roll"})
        assert forged.status_code == 403 and forged.json()["error"] == "csrf"  # the session cookie alone authorises nothing
        assert phone.get(f"/api/games/{game_id}").json()["version"] == game["version"]
        moved = post(phone, f"/api/games/{game_id}/actions", {"version": game["version"], "action": "roll"})
        assert moved.status_code == 200 and moved.json()["version"] == game["version"] + 1
        post(phone, "/api/account/sign-out", {})
        assert phone.get(f"/api/games/{game_id}").json()["you"] is None


def test_a_seat_of_an_account_is_not_moved_by_a_link(storage: Storage) -> None:
    with people(storage, "Ann", "Bob") as (ann, bob):
        game_id = rated_game(ann, [bob])
        refused = post(ann, f"/api/games/{game_id}/seat-link", {})
        assert refused.status_code == 409 and refused.json()["error"] == "account_seat"


def test_a_guests_seat_moves_to_another_device_by_a_one_time_link(client: TestClient) -> None:
    game_id = new_game(client, ["open", "bot:random"])
    joined = client.post(f"/api/games/{game_id}/join", json={"seat": 0, "name": "Gus"})
    laptop = dict(client.cookies)
    link = client.post(f"/api/games/{game_id}/seat-link").json()
    assert link["url"] == f"/game/{game_id}#seat={link['code']}" and link["minutes"] == 10
    phone = Browser(client)
    used = phone.post(f"/api/games/{game_id}/seat-link/use", json={"code": link["code"]})
    assert used.status_code == 200 and used.json()["seat"] == 0
    assert "httponly" in used.headers["set-cookie"].lower() and "samesite=strict" in used.headers["set-cookie"].lower()
    assert phone.get(f"/api/games/{game_id}").json()["you"] == 0
    client.cookies = laptop  # type: ignore[assignment]
    assert client.get(f"/api/games/{game_id}").json()["you"] is None  # moved: the old device holds nothing
    stale = client.post(f"/api/games/{game_id}/actions", json={"version": 0, "action": "roll"}, headers=auth(joined.json()["token"]))
    assert stale.status_code == 403 and stale.json()["error"] == "bad_token"
    again = Browser(client).post(f"/api/games/{game_id}/seat-link/use", json={"code": link["code"]})
    assert again.status_code == 400 and again.json()["error"] == "bad_link"  # once only
    play_out(phone, game_id, used.json()["token"])  # type: ignore[arg-type]


def test_a_seat_link_refuses_strangers_other_games_and_old_links(storage: Storage) -> None:
    with TestClient(create_app(storage, bot_delay=0, **NO_LIMITS)) as client:
        game_id, other = new_game(client, ["open", "open"]), new_game(client, ["open", "open"])
        token = join(client, game_id, 0, "Gus")
        stranger = client.post(f"/api/games/{game_id}/seat-link")
        assert stranger.status_code == 403 and stranger.json()["error"] == "not_seated"
        code = client.post(f"/api/games/{game_id}/seat-link", headers=auth(token)).json()["code"]
        wrong_game = client.post(f"/api/games/{other}/seat-link/use", json={"code": code})
        assert wrong_game.status_code == 400 and wrong_game.json()["error"] == "bad_link"
        first = client.post(f"/api/games/{game_id}/seat-link", headers=auth(token)).json()["code"]
        second = client.post(f"/api/games/{game_id}/seat-link", headers=auth(token)).json()["code"]
        assert client.post(f"/api/games/{game_id}/seat-link/use", json={"code": second}).status_code == 200
        old = client.post(f"/api/games/{game_id}/seat-link/use", json={"code": first})  # made before the seat moved
        assert old.status_code == 400 and old.json()["error"] == "bad_link"
        expiring = client.post(f"/api/games/{game_id}/seat-link", headers=auth(client.cookies.get(f"cantstop_{game_id}") or "")).json()["code"]
        from sqlalchemy import update

        from cantstop.web.db.rows import SeatLinkRow, now

        with storage.session() as s:
            s.execute(update(SeatLinkRow).values(expires=now() - timedelta(seconds=1)))
        late = client.post(f"/api/games/{game_id}/seat-link/use", json={"code": expiring})
        assert late.status_code == 400 and late.json()["error"] == "bad_link"
        assert client.post(f"/api/games/{game_id}/seat-link/use", json={"code": "x" * 101}).status_code == 422


def test_an_old_devices_open_socket_loses_a_seat_that_moved(client: TestClient) -> None:
    game_id = new_game(client, ["open", "open"])
    token = join(client, game_id, 0, "Gus")
    join(client, game_id, 1, "Hal")
    with client.websocket_connect(f"/ws/games/{game_id}", headers=auth(token)) as old:
        hello = until(old, "hello")
        assert hello["you"] == 0
        code = client.post(f"/api/games/{game_id}/seat-link", headers=auth(token)).json()["code"]
        assert Browser(client).post(f"/api/games/{game_id}/seat-link/use", json={"code": code}).status_code == 200
        old.send_json({"type": "action", "version": hello["game"]["version"], "action": "roll"})
        refused = until(old, "error")
        assert refused["error"] == "not_seated"
    time.sleep(0)  # the socket is closed; nothing was played for the moved seat
    assert client.get(f"/api/games/{game_id}").json()["version"] == 0


def test_my_games_lists_the_ones_waiting_for_me_first(storage: Storage) -> None:
    with people(storage, "Ann", "Bob") as (ann, bob):
        mine = rated_game(ann, [bob])  # Ann's account's seat
        game = ann.get(f"/api/games/{mine}").json()
        to_move = game["state"]["player"]
        guest = Browser(ann.client)  # a guest's seats: a cookie, and tokens a page keeps
        cookie_game = new_game(guest, ["open", "open"])  # type: ignore[arg-type]
        guest.post(f"/api/games/{cookie_game}/join", json={"seat": 1, "name": "Gus"})
        screen = guest.post("/api/games", json={"variant": "classic", "seats": ["open", "bot:random"],
                                                 "take": [{"seat": 0, "name": "Kid"}]}).json()
        listed = post(guest, "/api/my-games", {"tokens": [{"game": screen["id"], "token": screen["taken"][0]["token"]}]}).json()
        by_id = {g["id"]: g for g in listed["games"]}
        assert set(by_id) == {cookie_game, screen["id"]} and by_id[cookie_game]["seat"] == 1
        assert by_id[cookie_game]["your_turn"] is False  # still waiting for a player
        for who, seat in ((ann, 0), (bob, 1)):
            listed = post(who, "/api/my-games", {}).json()
            assert [g["id"] for g in listed["games"]] == [mine]
            assert listed["games"][0]["your_turn"] is (to_move == seat) and listed["waiting"] == int(to_move == seat)
        stranger = Browser(ann.client)
        assert post(stranger, "/api/my-games", {"tokens": [{"game": mine, "token": "guessed"}]}).json() == {"waiting": 0, "games": []}
        assert ann.post("/api/my-games", json={}, headers={**csrf(ann), "X-CSRF-Token": "wrong"}).status_code == 403
