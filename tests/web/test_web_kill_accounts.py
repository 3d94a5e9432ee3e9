"""kill -9 of a real server while people sign up and while a rated game is played: whatever
was acknowledged is there after a restart, and nothing is left half made."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import httpx
from account_helpers import PASSWORD, csrf, play_between
from web_helpers import WAIT, Server, pick


def signed_up(server: Server, name: str) -> httpx.Client:
    client = httpx.Client(base_url=server.url, timeout=60)
    assert client.post("/api/account/sign-up", json={"name": name, "password": PASSWORD}).status_code == 201
    return client


def test_sign_ups_under_way_when_the_server_is_killed(tmp_path: Path) -> None:
    with Server(f"sqlite:///{tmp_path / 'kill.sqlite3'}") as server:
        acknowledged: list[str] = []
        tried: list[str] = []
        stop = threading.Event()
        enough = threading.Event()  # a dozen acknowledged, or a worker has ended

        def sign_ups(worker: int) -> None:
            try:
                for n in range(1000):
                    if stop.is_set():
                        return
                    name = f"Player {worker}-{n}"
                    tried.append(name)
                    with httpx.Client(base_url=server.url, timeout=60) as client:
                        if client.post("/api/account/sign-up", json={"name": name, "password": PASSWORD}).status_code == 201:
                            acknowledged.append(name)
                            if len(acknowledged) >= 12:
                                enough.set()
            except httpx.TransportError:
                return  # the server is gone
            finally:
                enough.set()

        workers = [threading.Thread(target=sign_ups, args=(w,)) for w in range(4)]
        for w in workers:
            w.start()
        enough.wait(WAIT)
        assert len(acknowledged) >= 12, f"only {len(acknowledged)} sign-ups were acknowledged before the kill"
        server.kill()  # SIGKILL with sign-ups in flight
        stop.set()
        for w in workers:
            w.join(WAIT)
            assert not w.is_alive()
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
        enough = threading.Event()  # thirty moves acknowledged, or the player has stopped

        def play() -> None:
            rolls = 0
            try:
                for _ in range(100_000):  # until the server is killed
                    game = ann.get(f"/api/games/{game_id}").json()
                    state = game["state"]
                    action = pick(state, rolls)
                    rolls = 0 if action == "stop" else rolls + (action == "roll")
                    answer = by_seat[state["player"]].post(f"/api/games/{game_id}/actions", json={"version": game["version"], "action": action},
                                                           headers=csrf(by_seat[state["player"]]))
                    if answer.status_code == 200:
                        acknowledged.append(answer.json()["version"])
                        moves[answer.json()["version"]] = answer.json()["state"]
                        if len(acknowledged) >= 30:
                            enough.set()
            except (httpx.TransportError, KeyError, TypeError):
                return  # killed
            finally:
                enough.set()

        player = threading.Thread(target=play)
        player.start()
        enough.wait(WAIT)
        assert len(acknowledged) >= 30, f"only {len(acknowledged)} moves were acknowledged before the kill"
        server.kill()
        player.join(WAIT)
        assert not player.is_alive()
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
        play_between(again, game_id)  # and the game goes on to its rating
        people = again[0].get("/api/players", params={"provisional": True}).json()  # one game each: both provisional
        assert sorted(r["name"] for r in people) == ["Ann", "Bob"] and all(r["games"] == 1 for r in people)
        for client in again.values():
            client.close()
