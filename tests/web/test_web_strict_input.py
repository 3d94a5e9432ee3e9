"""Input that once reached the database or slipped past the models (issue 22, item 8), on both databases."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from web_helpers import NO_LIMITS

from cantstop.web.app import create_app
from cantstop.web.db.storage import Storage


@pytest.fixture
def any_client(any_storage: Storage) -> Iterator[TestClient]:
    with TestClient(create_app(any_storage, bot_delay=0, **NO_LIMITS)) as client:
        yield client


@pytest.mark.parametrize("name", ["a%00b", "%00", "a%01b", "a%7Fb"])
def test_a_player_name_with_a_control_character_is_nobody(any_client: TestClient, name: str) -> None:
    found = any_client.get(f"/api/players/{name}")
    assert found.status_code == 404 and found.json()["error"] == "no_player"
    listed = any_client.get(f"/api/finished?player={name}")
    assert listed.status_code == 422 and listed.json()["error"] == "bad_name" and "U+00" in listed.json()["message"]


def test_account_routes_never_hand_a_nul_to_the_database(any_client: TestClient) -> None:
    signed = any_client.post("/api/account/sign-in", json={"name": "a\u0000b", "password": "whatever it is here"})
    assert signed.status_code == 401
    made = any_client.post("/api/account/sign-up", json={"name": "a\u0000b", "password": "whatever it is here"})
    assert made.status_code == 422 and made.json()["error"] == "bad_name"


@pytest.mark.parametrize("clock", [False, True, 0.0, 30.0, 120.0, "30", None, 31, -30])
def test_the_clock_is_an_integer_of_the_three_offered(any_client: TestClient, clock: object) -> None:
    refused = any_client.post("/api/games", json={"seats": ["open", "bot:random"], "clock": clock})
    assert refused.status_code == 422 and refused.json()["error"] == "bad_request"
    assert refused.json()["message"].startswith("the request does not fit the API: clock:")


@pytest.mark.parametrize("clock", [0, 30, 120])
def test_each_offered_clock_is_taken(any_client: TestClient, clock: int) -> None:
    created = any_client.post("/api/games", json={"seats": ["open", "bot:random"], "clock": clock})
    assert created.status_code == 201
    assert any_client.get(f"/api/games/{created.json()['id']}").json()["clock"]["seconds"] == clock
