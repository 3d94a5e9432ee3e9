"""Play again: a finished game's rematch keeps its variant, seats and bots; the players at the
asking screen sit again under their names, everyone else's seat is open; the old game links to it."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_helpers import auth, join, pick, until

from cantstop.web.db.storage import Storage
from cantstop.web.db.tokens import new_token
from cantstop.web.db.values import RematchExists, Taker
from cantstop.web.errors import NotAllowed
from cantstop.web.games.live import parse_action
from cantstop.web.service import GameService


def play_out(client: TestClient, game_id: str, tokens: dict[int, str]) -> dict[str, Any]:
    """Play the people's seats (by token) until the game is over; bots move on the server."""
    rolls = 0
    for _ in range(20_000):
        game: dict[str, Any] = client.get(f"/api/games/{game_id}").json()
        if game["status"] == "over":
            return game
        state = game["state"]
        if state["player"] not in tokens:
            time.sleep(0.002)
            continue
        rolls = 0 if state["phase"] == "roll" else rolls
        action = pick(state, rolls)
        rolls += action == "roll"
        client.post(f"/api/games/{game_id}/actions", json={"version": game["version"], "action": action}, headers=auth(tokens[state["player"]]))
    raise AssertionError(f"game {game_id} never ended")


def hot_seat(client: TestClient) -> tuple[str, dict[int, str]]:
    """Ann and Bob at one screen with a bot between them, in a short game."""
    created = client.post("/api/games", json={"variant": "classic+to_win=1", "seats": ["open", "bot:random", "open"],
                                              "take": [{"seat": 0, "name": "Ann"}, {"seat": 2, "name": "Bob"}]}).json()
    return created["id"], {t["seat"]: t["token"] for t in created["taken"]}


def rematch(client: TestClient, game_id: str, tokens: list[str], headers: dict[str, str] | None = None) -> Any:
    return client.post(f"/api/games/{game_id}/rematch", json={"tokens": tokens}, headers=headers or {})


def test_people_at_one_screen_play_again_with_the_same_bot_and_variant(client: TestClient) -> None:
    game_id, tokens = hot_seat(client)
    early = rematch(client, game_id, list(tokens.values()))
    assert early.status_code == 409 and early.json()["error"] == "not_over"
    play_out(client, game_id, tokens)
    response = rematch(client, game_id, list(tokens.values()))
    assert response.status_code == 201, response.text
    created = response.json()
    assert "set-cookie" not in response.headers
    new_id = created["id"]
    assert new_id != game_id and created["url"] == f"/game/{new_id}"
    fresh = {t["seat"]: t["token"] for t in created["taken"]}
    assert set(fresh) == {0, 2} and not set(fresh.values()) & set(tokens.values())
    game = client.get(f"/api/games/{new_id}").json()
    assert game["variant"] == "classic+to_win=1" and game["status"] == "playing"  # nobody to wait for
    assert [(s["kind"], s["bot"], s["name"]) for s in game["seats"]] == [
        ("person", None, "Ann"), ("bot", "random", "bot:random"), ("person", None, "Bob")]
    for seat, token in fresh.items():
        assert client.get(f"/api/games/{new_id}", headers=auth(token)).json()["you"] == seat
    old = client.get(f"/api/games/{game_id}").json()
    assert old["rematch"] == new_id and game["rematch"] is None
    # Once only: a second request is told where the rematch is, and nothing more is created.
    again = rematch(client, game_id, [tokens[0]])
    assert again.status_code == 409
    assert again.json()["error"] == "rematch_exists" and again.json()["game"] == new_id
    assert len(client.get("/api/games").json()) == 1


def test_an_online_player_plays_again_and_the_other_seat_is_open_for_its_player(client: TestClient) -> None:
    game_id = client.post("/api/games", json={"variant": "classic+to_win=1", "seats": ["open", "open"]}).json()["id"]
    tokens = {0: join(client, game_id, 0, "Ann"), 1: join(client, game_id, 1, "Bob")}
    play_out(client, game_id, tokens)
    client.cookies.set(f"cantstop_{game_id}", tokens[1])  # Bob's browser: his cookie tells his seat
    created = rematch(client, game_id, [])
    client.cookies.clear()
    assert created.status_code == 201, created.text
    new_id = created.json()["id"]
    assert [(t["seat"], t["game"]) for t in created.json()["taken"]] == [(1, new_id)]
    game = client.get(f"/api/games/{new_id}").json()
    assert game["status"] == "waiting"
    assert [(s["kind"], s["name"]) for s in game["seats"]] == [("open", None), ("person", "Bob")]
    assert join(client, new_id, 0, "Ann")  # Ann follows the link and sits down
    assert client.get(f"/api/games/{new_id}").json()["status"] == "playing"


@pytest.mark.parametrize(
    ("tokens", "headers", "status", "error"),
    [
        ([], {}, 403, "not_seated"),  # a spectator
        (["not-a-token"], {}, 403, "bad_token"),
        ([], auth("not-a-token"), 403, "bad_token"),
    ],
)
def test_who_is_no_player_cannot_start_a_rematch(
    client: TestClient, tokens: list[str], headers: dict[str, str], status: int, error: str
) -> None:
    game_id, held = hot_seat(client)
    play_out(client, game_id, held)
    response = rematch(client, game_id, tokens, headers)
    assert response.status_code == status and response.json()["error"] == error
    assert client.get(f"/api/games/{game_id}").json()["rematch"] is None
    assert client.get("/api/games").json() == []  # nothing half-created


def test_a_rematch_of_no_game_is_not_found(client: TestClient) -> None:
    response = rematch(client, "nope", ["x"])
    assert response.status_code == 404 and response.json()["error"] == "no_game"


def test_everyone_on_the_finished_game_hears_of_the_rematch(client: TestClient) -> None:
    game_id, tokens = hot_seat(client)
    play_out(client, game_id, tokens)
    with client.websocket_connect(f"/ws/games/{game_id}") as watcher:
        assert until(watcher, "hello")["game"]["rematch"] is None
        new_id = rematch(client, game_id, [tokens[2]]).json()["id"]
        update = until(watcher, "update")
    assert update["game"]["rematch"] == new_id and update["log"] == []
    seats = client.get(f"/api/games/{new_id}").json()["seats"]
    assert [s["kind"] for s in seats] == ["open", "bot", "person"]  # Ann's seat waits for her


def test_a_game_has_one_rematch_and_a_refused_one_stores_nothing(any_storage: Storage) -> None:
    old = any_storage.create_game("classic", [("bot", "random"), ("bot", "random")])
    first = any_storage.create_game("classic", [("bot", "random"), ("bot", "random")], rematch_of=old)
    game = any_storage.game(old)
    assert game is not None and game.rematch == first
    with pytest.raises(RematchExists) as refused:
        any_storage.create_game("classic", [("bot", "random"), ("open", None)], rematch_of=old)
    assert refused.value.game_id == first
    assert {g.id for g in any_storage.games(("waiting",), 10)} == {old, first}


def test_another_process_tells_its_watchers_of_the_rematch(storage: Storage) -> None:
    async def run() -> None:
        here, there = GameService(storage, bot_delay=0), GameService(storage, bot_delay=0)
        game_id = await here.lobby.create("classic+to_win=1", ["open", "bot:random"], {0: Taker("Ann", new_token())})
        game, rolls = await here.games.live(game_id), 0
        for _ in range(20_000):  # Ann plays here; the bot plays on this process's loop
            if game.state is not None and game.state.is_over:
                break
            state = game.snapshot()["state"]
            if state["player"] != 0:
                await asyncio.sleep(0.001)
                continue
            rolls = 0 if state["phase"] == "roll" else rolls
            action = pick(state, rolls)
            rolls += action == "roll"
            await here.games.act(game_id, 0, game.version, parse_action(action))
        watched = await there.games.live(game_id)
        queue: asyncio.Queue[str] = asyncio.Queue()
        watched.connections.open(queue, seated=False)
        with pytest.raises(NotAllowed, match="only a player"):
            await here.lobby.rematch(game_id, set())
        new_id, tokens = await here.lobby.rematch(game_id, {0})
        assert list(tokens) == [0] and await there.lobby.seat_of(new_id, tokens[0]) == 0
        await there.games.notified(game_id, -1)  # as PostgreSQL's NOTIFY tells the other process
        assert watched.snapshot()["rematch"] == new_id
        assert f'"rematch": "{new_id}"' in queue.get_nowait()
        await here.close()
        await there.close()

    asyncio.run(run())
