"""Helpers shared by the web tests."""

from __future__ import annotations

import time
from typing import Any

from fastapi.testclient import TestClient


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_game(client: TestClient, seats: list[str], variant: str = "classic") -> str:
    response = client.post("/api/games", json={"variant": variant, "seats": seats})
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


def join(client: TestClient, game_id: str, seat: int, name: str) -> str:
    response = client.post(f"/api/games/{game_id}/join", json={"seat": seat, "name": name})
    assert response.status_code == 200, response.text
    client.cookies.clear()  # tests name the seat they act for explicitly
    return str(response.json()["token"])


def wait_for(client: TestClient, game_id: str, ready: Any, limit: int = 2000) -> dict[str, Any]:
    """Poll the game until `ready(game)` (bots play on the server's own loop meanwhile)."""
    for _ in range(limit):
        game: dict[str, Any] = client.get(f"/api/games/{game_id}").json()
        if ready(game):
            return game
        time.sleep(0.005)
    raise AssertionError(f"game {game_id} never became ready: {game}")


def pick(state: dict[str, Any], turn_rolls: int) -> Any:
    """A simple person: first choice, stops after three rolls in a turn."""
    if state["phase"] == "roll":
        return "roll"
    if state["phase"] == "choose":
        return state["legal"][0]
    return "stop" if turn_rolls >= 3 and "stop" in state["legal"] else "roll"
