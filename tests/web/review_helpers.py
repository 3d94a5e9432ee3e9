"""Helpers for the review room's tests: finished games, and an analysis asked for until it is done."""

from __future__ import annotations

import time
from typing import Any

from fastapi.testclient import TestClient
from web_helpers import new_game, wait_for

# A board the rivals bot has learned for two players, where games last a few turns.
SMALL = "classic+heights=1.1.1.2.2.2.2.2.1.1.1"
# A board no value model knows: custom heights, two players.
UNKNOWN = "classic+heights=1.1.1.1.1.1.1.1.1.1.2"


def bot_game(client: TestClient, variant: str = SMALL, bots: tuple[str, str] = ("rule28", "expert")) -> str:
    """A game between two bots, played to its end on the server."""
    game_id = new_game(client, [f"bot:{bots[0]}", f"bot:{bots[1]}"], variant)
    wait_for(client, game_id, lambda game: game["status"] == "over")
    return game_id


def asked(client: Any, game_id: str, most: int = 120) -> Any:
    """The answer to a request for the game's analysis, asked again (as the page does) while
    it is 202, under way; at most `most` times, each after a share of the server's Retry-After."""
    for _ in range(most):
        response = client.get(f"/api/games/{game_id}/analysis")
        if response.status_code != 202:
            return response
        assert response.json() == {"status": "analysing", "retry_after": 2}
        time.sleep(float(response.headers["retry-after"]) / 20)  # the test's server waits longer than a page would
    raise AssertionError(f"the analysis of {game_id} never came")


def analysed(client: Any, game_id: str) -> dict[str, Any]:
    """The game's analysis, once done."""
    response = asked(client, game_id)
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found
