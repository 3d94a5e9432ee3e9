"""kill -9 of a real server while people sign up and while a rated game is played: whatever
was acknowledged is there after a restart, and nothing is left half made."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import httpx
from account_helpers import PASSWORD
from web_helpers import Server, pick


def signed_up(server: Server, name: str) -> httpx.Client:
    client = httpx.Client(base_url=server.url, timeout=60)
    assert client.post("/api/account/sign-up", json={"name": name, "password": PASSWORD}).status_code == 201
    return client


def csrf(client: httpx.Client) -> dict[str, str]:
    return {"X-CSRF-Token": client.cookies.get("cantstop_csrf") or ""}


def test_sign_ups_under_way_when_the_server_is_killed(tmp_path: Path) -> None:
    with Server(f"sqlite:///{tmp_path / 'kill.sqlite3'}") as server:
        acknowledged: list[str] = []
        tried: list[str] = []
        stop = threading.Event()

        def sign_ups(worker: int) -> None:
            for n in range(1000):
                if stop.is_set():
                    return
                name = f"Player {worker}-{n}"
                tried.append(name)
                try:
                    with httpx.Client(base_url=server.url, timeout=10) as client:
                        if client.post("/api/account/sign-up", json={"name": name, "password": PASSWORD}).status_code == 201:
                            acknowledged.append(name)
                except httpx.TransportError:
                    return  # the server is gone

        workers = [threading.Thread(target=sign_ups, args=(w,)) for w in range(4)]
        for w in workers:
            w.start()
        while len(acknowledged) < 12:
            time.sleep(0.02)
        server.kill()  # SIGKILL with sign-ups in flight
        stop.set()
        for w in workers:
            w.join()
        server.start()
        with httpx.Client(base_url=server.url, timeout=60) as client:
            for name in tried:
                signed_in = client.post("/api/account/sign-in", json={"name": name, "password": PASSWORD}).status_code
                if name in acknowledged:
                    assert signed_in == 200, name
                elif signed_in != 200:  # never made: the name is free, not half taken
                    again = client.post("/api/account/sign-up", json={"name": name, "password": PASSWORD})
                    assert again.status_code == 201, (name, again.text)


def test_a_rated_game_under_way_when_the_server_is_killed(tmp_path: Path) -> None:
    with Server(f"sqlite:///{tmp_path / 'kill.sqlite3'}") as server:
        ann, bob = signed_up(server, "Ann"), signed_up(server, "Bob")
        made = ann.post("/api/games", json={"variant": "classic", "seats": ["open", "open"], "rated": True, "take": [{"seat": 0}]}, headers=csrf(ann))
        game_id = made.json()["id"]
        assert bob.post(f"/api/games/{game_id}/join", json={"seat": 1}, headers=csrf(bob)).status_code == 200
        by_seat = {0: ann, 1: bob}
        acknowledged: list[int] = []
        moves: dict[int, Any] = {}

        def play() -> None:
            rolls = 0
            try:
                while True:
                    game = ann.get(f"/api/games/{game_id}").json()
                    state = game["state"]
                    action = pick(state, rolls)
                    rolls = 0 if action == "stop" else rolls + (action == "roll")
                    answer = by_seat[state["player"]].post(f"/api/games/{game_id}/actions", json={"version": game["version"], "action": action},
                                                           headers=csrf(by_seat[state["player"]]))
                    if answer.status_code == 200:
                        acknowledged.append(answer.json()["version"])
                        moves[answer.json()["version"]] = answer.json()["state"]
            except (httpx.TransportError, KeyError, TypeError):
                return  # killed

        player = threading.Thread(target=play)
        player.start()
        while len(acknowledged) < 30:
            time.sleep(0.01)
        server.kill()
        player.join()
        server.start()
        for client in (ann, bob):
            client.close()
        again = {seat: httpx.Client(base_url=server.url, timeout=60) for seat in (0, 1)}
        for seat, name in ((0, "Ann"), (1, "Bob")):
            assert again[seat].post("/api/account/sign-in", json={"name": name, "password": PASSWORD}).status_code == 200
        game = again[0].get(f"/api/games/{game_id}").json()
        assert game["you"] == 0 and game["rated"] is True
        assert game["version"] >= max(acknowledged)  # every acknowledged move is stored
        replay = again[0].get(f"/api/games/{game_id}/replay").json()["frames"]
        for version in acknowledged:
            assert replay[version]["state"] == moves[version], version
        rolls = 0
        while game["status"] != "over":  # and the game goes on to its rating
            state = game["state"]
            action = pick(state, rolls)
            rolls = 0 if action == "stop" else rolls + (action == "roll")
            client = again[state["player"]]
            assert client.post(f"/api/games/{game_id}/actions", json={"version": game["version"], "action": action}, headers=csrf(client)).status_code == 200
            game = client.get(f"/api/games/{game_id}").json()
        people = again[0].get("/api/players", params={"provisional": True}).json()  # one game each: both provisional
        assert sorted(r["name"] for r in people) == ["Ann", "Bob"] and all(r["games"] == 1 for r in people)
        for client in again.values():
            client.close()
