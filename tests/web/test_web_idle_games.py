"""Waiting games cost no memory (issue 35): a game nobody has open, with no bot to move and
no clock due soon, is let go of and read back from the database when it is opened or its
clock comes due, and plays on as if it had never left. Time is moved on by the tests'
clock; the grace a game asked for is kept is set to nothing here."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_web_lifecycle import hot_seat, sweep
from web_helpers import NO_LIMITS, Clock, act, auth, until

from cantstop.core.state import ROLL
from cantstop.table import Move
from cantstop.web.app import create_app
from cantstop.web.db.storage import Storage
from cantstop.web.games.clock import DAY
from cantstop.web.games.live import LiveGames
from cantstop.web.service import GameService


def service_of(client: TestClient) -> GameService:
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    return service


@pytest.fixture
def app_client(storage: Storage, clock: Clock) -> Iterator[TestClient]:
    with TestClient(create_app(storage, now=clock, bot_delay=0, **NO_LIMITS)) as client:
        service_of(client).games.idle_grace = 0.0
        yield client


def held(client: TestClient) -> set[str]:
    return set(service_of(client).games.held)


def to_move_token(client: TestClient, game_id: str, tokens: list[str]) -> str:
    return tokens[client.get(f"/api/games/{game_id}").json()["state"]["player"]]


def test_a_turn_based_game_nobody_has_open_is_let_go_and_read_back_as_it_was(app_client: TestClient) -> None:
    client = app_client
    game_id, tokens = hot_seat(client, ["Ann", "Bob"], clock=DAY)
    act(client, game_id, to_move_token(client, game_id, tokens), "roll")
    before = client.get(f"/api/games/{game_id}").json()
    assert game_id in held(client)
    sweep(client)  # read this sweep, so kept: the next one lets it go
    sweep(client)
    assert game_id not in held(client)
    again = client.get(f"/api/games/{game_id}").json()  # opened: read back
    assert game_id in held(client)
    assert again["version"] == before["version"] and again["state"] == before["state"] and again["log"] == before["log"]
    # counted from the stored move (whose time storage took a moment apart from the memory's), not from the read
    assert abs(again["clock"]["deadline"] - before["clock"]["deadline"]) < 1000
    choice = again["state"]["legal"][0]
    moved = act(client, game_id, to_move_token(client, game_id, tokens), choice)
    assert moved["version"] == before["version"] + 1


def test_a_game_open_in_a_browser_is_kept_and_let_go_once_closed(app_client: TestClient) -> None:
    client = app_client
    game_id, tokens = hot_seat(client, ["Ann", "Bob"], clock=DAY)
    with client.websocket_connect(f"/ws/games/{game_id}", headers=auth(tokens[0])) as ws:
        until(ws, "hello")
        sweep(client)
        sweep(client)
        assert game_id in held(client)
    sweep(client)
    assert game_id not in held(client)


def test_a_game_whose_clock_comes_due_is_read_back_with_its_countdown(app_client: TestClient, clock: Clock) -> None:
    client = app_client
    game_id, _ = hot_seat(client, ["Ann", "Bob"], clock=DAY)
    sweep(client)
    sweep(client)
    assert game_id not in held(client)
    clock.advance(DAY - 30)  # due within the clock's horizon
    sweep(client)
    service = service_of(client)
    assert game_id in held(client) and service.clock.counting(service.games.held[game_id])
    sweep(client)
    assert game_id in held(client)  # counting down: kept


def test_no_more_idle_games_are_held_than_the_setting_keeps(storage: Storage, clock: Clock) -> None:
    with TestClient(create_app(storage, now=clock, bot_delay=0, idle_games_kept=3, **NO_LIMITS)) as client:
        service_of(client).games.idle_grace = 0.0
        made = [hot_seat(client, ["Ann", "Bob"], clock=DAY)[0] for _ in range(8)]
        assert len(held(client)) == 3
        assert held(client) == set(made[-3:])  # the least recently used went first
        client.get(f"/api/games/{made[0]}")  # read back on demand
        assert made[0] in held(client) and len(held(client)) == 3


def test_a_game_with_a_bot_to_move_is_never_let_go(storage: Storage, clock: Clock) -> None:
    with TestClient(create_app(storage, now=clock, bot_delay=30, idle_games_kept=0, **NO_LIMITS)) as client:
        service_of(client).games.idle_grace = 0.0
        response = client.post("/api/games", json={"seats": ["bot:random", "open"], "take": [{"seat": 1, "name": "Ann"}], "clock": DAY})
        assert response.status_code == 201
        game_id = response.json()["id"]
        if client.get(f"/api/games/{game_id}").json()["state"]["player"] == 0:  # the bot waits its 30 s before it moves
            sweep(client)
            sweep(client)
            assert game_id in held(client)


def test_a_copy_let_go_meanwhile_tells_the_copy_held_now_of_its_move(app_client: TestClient) -> None:
    """A caller that looked a game up just before it was let go stores its move through that
    copy: the clients of the copy read in since hear of it all the same."""
    client = app_client
    game_id, tokens = hot_seat(client, ["Ann", "Bob"], clock=DAY)
    games: LiveGames = service_of(client).games

    async def old_copy() -> Any:
        game = await games.live(game_id)
        games._drop(game)
        return game

    stale = client.portal.call(old_copy)  # type: ignore[union-attr]
    with client.websocket_connect(f"/ws/games/{game_id}", headers=auth(tokens[0])) as ws:
        hello = until(ws, "hello")
        assert hello["game"]["version"] == 0

        async def move_on_the_old_copy() -> None:
            async with stale.lock:
                ready = stale.table.prepare(Move.of(ROLL), 0, stale.table.seat)
                await games.commit(stale, [ready], None)

        client.portal.call(move_on_the_old_copy)  # type: ignore[union-attr]
        update = until(ws, "update")
        assert update["game"]["version"] == 1 and update["log"][-1]["kind"] == "roll"
