"""The seat a request acts for: a guest's seat cookie is SameSite=Strict, which another page
of the same site (another port of the host, a sibling sub-domain) still sends, so a change it
authorises is refused when the browser says it comes from another origin."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from web_helpers import auth, new_game

EVIL = {"Origin": "http://testserver:9999"}  # the same host on another port: the same site, another origin
OWN = {"Origin": "http://testserver"}


def joined(client: TestClient, seat: int = 0) -> tuple[str, str]:
    """A game whose seat `seat` this client's seat cookie holds, and that seat's token."""
    game_id = new_game(client, ["open", "open"])
    response = client.post(f"/api/games/{game_id}/join", json={"seat": seat, "name": "Gus"})
    assert response.status_code == 200 and client.cookies.get(f"cantstop_{game_id}")
    return game_id, str(response.json()["token"])


@pytest.mark.parametrize("path", ["resign", "seat-link", "actions"])
def test_a_change_the_seat_cookie_authorises_from_another_origin_is_refused(client: TestClient, path: str) -> None:
    game_id, _ = joined(client)
    body = {"version": 0, "action": "roll"} if path == "actions" else {}
    refused = client.post(f"/api/games/{game_id}/{path}", json=body, headers=EVIL)
    assert refused.status_code == 403 and refused.json()["error"] == "csrf"
    assert "http://testserver:9999" in refused.json()["message"]
    game = client.get(f"/api/games/{game_id}").json()
    assert game["you"] == 0 and game["seats"][0]["name"] == "Gus" and game["version"] == 0  # nothing changed


def test_the_sites_own_pages_and_clients_without_an_origin_still_act_by_the_cookie(client: TestClient) -> None:
    game_id, _ = joined(client)
    assert client.post(f"/api/games/{game_id}/seat-link", json={}, headers=OWN).status_code == 200
    assert client.post(f"/api/games/{game_id}/seat-link", json={}).status_code == 200  # a program sends no Origin
    resigned = client.post(f"/api/games/{game_id}/resign", headers=OWN)
    assert resigned.status_code == 200 and resigned.json()["seats"][0]["kind"] == "open"


def test_a_bearer_token_acts_whatever_the_origin(client: TestClient) -> None:
    """No other page can send a bearer token, so its origin does not matter (seats kept by a
    page for people at its screen go as bearer tokens)."""
    game_id, token = joined(client)
    client.cookies.clear()
    resigned = client.post(f"/api/games/{game_id}/resign", headers={**auth(token), **EVIL})
    assert resigned.status_code == 200 and resigned.json()["seats"][0]["kind"] == "open"
