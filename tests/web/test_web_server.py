"""A real server process: racing clients, and a kill -9 in the middle of games."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import httpx
from web_helpers import Server, wait_for

from cantstop.core.record import read_record


def create(http: httpx.Client, seats: list[str]) -> str:
    response = http.post("/api/games", json={"variant": "classic", "seats": seats})
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


def seat_tokens(http: httpx.Client, game_id: str) -> dict[int, str]:
    return {seat: http.post(f"/api/games/{game_id}/join", json={"seat": seat, "name": name}).json()["token"] for seat, name in ((0, "Ann"), (1, "Bob"))}


def race(url: str, game_id: str, token: str, body: dict[str, Any]) -> list[int]:
    """Two clients send the same action at the same moment; returns their HTTP statuses."""
    barrier = threading.Barrier(2)
    statuses: list[int] = []

    def send() -> None:
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}) as own:
            barrier.wait()
            response = own.post(f"/api/games/{game_id}/actions", json=body)
            statuses.append(response.status_code)
            if response.status_code == 409:
                assert response.json()["error"] == "stale"

    threads = [threading.Thread(target=send) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return statuses


def move(state: dict[str, Any]) -> Any:
    return state["legal"][0] if state["phase"] == "choose" else "roll"


def test_two_clients_racing_with_the_same_move_apply_it_once(tmp_path: Path) -> None:
    with Server(f"sqlite:///{tmp_path / 'race.sqlite3'}") as server, httpx.Client(base_url=server.url) as http:
        game_id = create(http, ["open", "open"])
        tokens = seat_tokens(http, game_id)
        for _ in range(12):
            game = http.get(f"/api/games/{game_id}").json()
            state, version = game["state"], game["version"]
            token = tokens[state["player"]]
            body = {"version": version, "action": move(state)}
            statuses = race(server.url, game_id, token, body)
            assert sorted(statuses) == [200, 409]
            assert http.get(f"/api/games/{game_id}").json()["version"] == version + 1
        record = read_record(http.get(f"/api/games/{game_id}/record").text)
        assert len(record.events) == 12


def test_games_survive_a_kill_and_restart_exactly(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'restart.sqlite3'}"
    server = Server(db, bot_delay=0.02).start()
    try:
        http = httpx.Client(base_url=server.url)
        game_id = create(http, ["open", "open"])
        tokens = seat_tokens(http, game_id)
        for _ in range(7):
            game = http.get(f"/api/games/{game_id}").json()
            state = game["state"]
            response = http.post(f"/api/games/{game_id}/actions", json={"version": game["version"], "action": move(state)},
                                 headers={"Authorization": f"Bearer {tokens[state['player']]}"})
            assert response.status_code == 200
        before = http.get(f"/api/games/{game_id}").json()
        bots = create(http, ["bot:random", "bot:random"])
        wait_for(http, bots, lambda g: g["version"] >= 5)  # under way when the server dies
        http.close()
    finally:
        server.kill()
    with Server(db, bot_delay=0.0) as again, httpx.Client(base_url=again.url) as http:
        after = http.get(f"/api/games/{game_id}").json()
        assert after["version"] == before["version"] == 7
        assert after["state"] == before["state"]
        assert after["log"] == before["log"]
        state = after["state"]
        token = tokens[state["player"]]
        response = http.post(f"/api/games/{game_id}/actions", json={"version": 7, "action": move(state)},
                             headers={"Authorization": f"Bearer {token}"})
        assert response.status_code == 200 and response.json()["version"] == 8
        # The bots' game resumes by itself and finishes; its record replays move for move.
        final = wait_for(http, bots, lambda g: g["status"] == "over")
        record = read_record(http.get(f"/api/games/{bots}/record").text)
        assert len(record.events) == final["version"]
        assert record.final().winner == final["state"]["winner"]
