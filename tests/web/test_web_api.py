"""The JSON API: creating, joining, playing a whole game, and every way an action is refused."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from fastapi.websockets import WebSocketDisconnect
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from web_helpers import auth, join, new_game, pick, wait_for

from cantstop.core.record import read_record
from cantstop.web.app import create_app
from cantstop.web.db.storage import Storage
from cantstop.web.settings import MAX_BODY


def my_turn(seat: int) -> Any:
    return lambda g: g["status"] == "over" or (g["state"] is not None and g["state"]["player"] == seat)


def play_out(client: TestClient, game_id: str, token: str, seat: int = 0) -> dict[str, Any]:
    rolls = 0
    for _ in range(5000):
        game = wait_for(client, game_id, my_turn(seat))
        if game["status"] == "over":
            return game
        state = game["state"]
        action = pick(state, rolls)
        rolls = 0 if action == "stop" else rolls + (action == "roll")
        if state["phase"] == "roll":
            rolls = 1
        response = client.post(f"/api/games/{game_id}/actions", json={"version": game["version"], "action": action}, headers=auth(token))
        assert response.status_code == 200, response.text
    raise AssertionError("the game did not end")


def test_a_person_plays_a_whole_game_against_the_random_bot(client: TestClient) -> None:
    game_id = new_game(client, ["open", "bot:random"])
    waiting = client.get(f"/api/games/{game_id}").json()
    assert waiting["status"] == "waiting" and waiting["state"] is None
    token = join(client, game_id, 0, "Ann")
    final = play_out(client, game_id, token)
    assert final["state"]["winner"] in (0, 1)
    assert final["log"][-1]["kind"] == "win"
    text = client.get(f"/api/games/{game_id}/record").text
    record = read_record(text)  # the download is a valid record that replays to the end
    assert record.players == ["Ann", "Random bot"]  # as the page and the terminal game's records name them
    assert record.tags["Seats"] == "Ann,bot:random"  # and as the server seats them, for programs
    assert len(record.events) == final["version"]
    assert record.final().winner == final["state"]["winner"]
    finished = client.get("/api/games", params={"finished": 1}).json()
    assert [g["id"] for g in finished] == [game_id]
    assert client.get("/api/games").json() == []
    # A guest's game is friendly: no board moves (test_web_rated has the rated ones).
    assert client.get("/api/leaderboard").json() == client.get("/api/players", params={"board": "bots"}).json() == []


def test_bots_alone_play_to_the_end_and_replay_frame_by_frame(client: TestClient) -> None:
    game_id = new_game(client, ["bot:random", "bot:easy", "bot:random"])
    final = wait_for(client, game_id, lambda g: g["status"] == "over")
    replay = client.get(f"/api/games/{game_id}/replay").json()
    frames = replay["frames"]
    assert len(frames) == final["version"] + 1
    assert frames[-1]["state"] == final["state"]
    assert [f["version"] for f in frames] == list(range(len(frames)))


def test_reload_finds_the_seat_again_by_cookie(client: TestClient) -> None:
    game_id = new_game(client, ["open", "open"])
    response = client.post(f"/api/games/{game_id}/join", json={"seat": 1, "name": "Bob"})
    assert "httponly" in response.headers["set-cookie"].lower()
    assert client.get(f"/api/games/{game_id}").json()["you"] == 1
    client.cookies.clear()
    assert client.get(f"/api/games/{game_id}").json()["you"] is None


@pytest.fixture
def duel(client: TestClient) -> tuple[str, dict[int, str], dict[str, Any]]:
    """Two people seated; the game is waiting for the first player's roll."""
    game_id = new_game(client, ["open", "open"])
    tokens = {0: join(client, game_id, 0, "Ann"), 1: join(client, game_id, 1, "Bob")}
    game = client.get(f"/api/games/{game_id}").json()
    assert game["status"] == "playing" and game["version"] == 0
    return game_id, tokens, game


def act(client: TestClient, game_id: str, body: Any, token: str | None = None) -> Any:
    headers = auth(token) if token else {}
    return client.post(f"/api/games/{game_id}/actions", json=body, headers=headers)


def test_out_of_turn_is_refused(client: TestClient, duel: Any) -> None:
    game_id, tokens, game = duel
    other = 1 - game["state"]["player"]
    response = act(client, game_id, {"version": 0, "action": "roll"}, tokens[other])
    assert response.status_code == 409
    assert response.json()["error"] == "not_your_turn"
    assert client.get(f"/api/games/{game_id}").json()["version"] == 0


def test_a_wrong_token_or_none_is_refused(client: TestClient, duel: Any) -> None:
    game_id, _, _ = duel
    wrong = act(client, game_id, {"version": 0, "action": "roll"}, "not-a-token")
    assert wrong.status_code == 403 and wrong.json()["error"] == "bad_token"
    spectator = act(client, game_id, {"version": 0, "action": "roll"})
    assert spectator.status_code == 403 and spectator.json()["error"] == "not_seated"


def test_a_token_of_another_game_is_refused(client: TestClient, duel: Any) -> None:
    game_id, _, _ = duel
    other = new_game(client, ["open", "bot:random"])
    token = join(client, other, 0, "Eve")
    response = act(client, game_id, {"version": 0, "action": "roll"}, token)
    assert response.status_code == 403


def test_illegal_actions_name_the_legal_ones(client: TestClient, duel: Any) -> None:
    game_id, tokens, game = duel
    me = tokens[game["state"]["player"]]
    stop_first = act(client, game_id, {"version": 0, "action": "stop"}, me)
    assert stop_first.status_code == 422
    assert stop_first.json()["error"] == "illegal" and stop_first.json()["legal"] == ["roll"]
    rolled = act(client, game_id, {"version": 0, "action": "roll"}, me).json()
    if rolled["state"]["phase"] != "choose":
        return  # a bust: the other player is to roll, checked by the tests above
    offered = rolled["state"]["legal"]
    bogus = next(c for c in ([2, 2], [12, 12], [2, 12]) if c not in offered)
    response = act(client, game_id, {"version": 1, "action": bogus}, me)
    assert response.status_code == 422
    assert response.json()["legal"] == offered
    assert "not legal" in response.json()["message"]
    nonsense = act(client, game_id, {"version": 1, "action": "jump"}, me)
    assert nonsense.status_code == 422 and nonsense.json()["error"] == "bad_action"
    assert client.get(f"/api/games/{game_id}").json()["version"] == 1


def test_stale_and_duplicate_actions_are_refused(client: TestClient, duel: Any) -> None:
    game_id, tokens, game = duel
    me = tokens[game["state"]["player"]]
    assert act(client, game_id, {"version": 0, "action": "roll"}, me).status_code == 200
    again = act(client, game_id, {"version": 0, "action": "roll"}, me)
    assert again.status_code == 409
    assert again.json() == {"error": "stale", "message": again.json()["message"], "version": 1}
    future = act(client, game_id, {"version": 7, "action": "roll"}, me)
    assert future.status_code == 409 and future.json()["error"] == "stale"
    assert client.get(f"/api/games/{game_id}").json()["version"] == 1


@pytest.mark.parametrize(
    "body",
    [
        b"{not json",
        b'{"version": "x", "action": "roll"}',
        b'{"version": 0}',
        b'{"version": -1, "action": "roll"}',
        b'{"version": 0, "action": "roll", "extra": 1}',
        b'{"version": 0, "action": {"a": 1}}',
        b"[]",
    ],
)
def test_malformed_bodies_get_a_422(client: TestClient, duel: Any, body: bytes) -> None:
    game_id, tokens, _ = duel
    response = client.post(f"/api/games/{game_id}/actions", content=body, headers={**auth(tokens[0]), "content-type": "application/json"})
    assert response.status_code == 422
    refusal = response.json()
    assert refusal["error"] == "bad_request" and refusal["detail"]  # the same shape as every refusal
    assert refusal["message"].startswith("the request does not fit the API: ")


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b"{not json", "the body is not JSON (Expecting property name enclosed in double quotes)"),
        (b'{"version": "x", "action": "roll"}', "version: Input should be a valid integer"),
        (b'{"version": 0}', "action: Field required"),
        (b'{"version": 0, "action": "roll", "extra": 1}', "extra: Extra inputs are not permitted"),
        (b"[]", "the body: Input should be a valid dictionary"),
    ],
)
def test_a_malformed_body_is_named_in_the_message(client: TestClient, duel: Any, body: bytes, says: str) -> None:
    game_id, tokens, _ = duel
    response = client.post(f"/api/games/{game_id}/actions", content=body, headers={**auth(tokens[0]), "content-type": "application/json"})
    assert says in response.json()["message"], response.json()


def test_unknown_paths_and_methods_get_json_refusals(client: TestClient) -> None:
    missing = client.get("/api/nothing")
    assert missing.status_code == 404 and missing.json() == {"error": "not_found", "message": "Not Found"}
    wrong = client.delete("/api/games")
    assert wrong.status_code == 405 and wrong.json()["error"] == "method_not_allowed"
    assert wrong.headers["allow"]  # the headers Starlette sets are kept


def test_an_oversized_body_is_refused_before_parsing(client: TestClient, duel: Any) -> None:
    game_id, tokens, _ = duel
    body = b'{"version": 0, "action": "' + b"r" * MAX_BODY + b'"}'
    response = client.post(f"/api/games/{game_id}/actions", content=body, headers={**auth(tokens[0]), "content-type": "application/json"})
    assert response.status_code == 413 and response.json()["error"] == "too_large"


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ({"variant": "chess", "seats": ["open", "open"]}, "bad_variant"),
        ({"variant": "solitaire", "seats": ["open", "open"]}, "bad_seats"),
        ({"variant": "classic", "seats": ["open", "bot:nobody"]}, "bad_seat"),
        ({"variant": "classic", "seats": ["open", "human"]}, "bad_seat"),
        ({"variant": "classic", "seats": ["open", "bot:optimal"]}, "bad_seat"),  # one-player games only
    ],
)
def test_bad_games_are_refused_with_reasons(client: TestClient, body: dict[str, Any], error: str) -> None:
    response = client.post("/api/games", json=body)
    assert response.status_code == 422 and response.json()["error"] == error
    assert client.get("/api/games").json() == []


def test_seats_and_names_are_checked(client: TestClient) -> None:
    game_id = new_game(client, ["open", "bot:random"])
    assert client.post(f"/api/games/{game_id}/join", json={"seat": 1, "name": "Ann"}).json()["error"] == "seat_taken"
    assert client.post(f"/api/games/{game_id}/join", json={"seat": 5, "name": "Ann"}).status_code == 422
    assert client.post(f"/api/games/{game_id}/join", json={"seat": 0, "name": "a;b"}).json()["error"] == "bad_name"
    assert client.post(f"/api/games/{game_id}/join", json={"seat": 0, "name": "bot:x"}).json()["error"] == "bad_name"
    join(client, game_id, 0, "Ann")
    assert client.post(f"/api/games/{game_id}/join", json={"seat": 0, "name": "Eve"}).status_code == 409


def test_an_oversized_body_without_a_length_is_a_413_too(client: TestClient, duel: Any) -> None:
    game_id, tokens, _ = duel  # sent in chunks: the limit trips while FastAPI reads the body
    chunks = iter([b'{"version": 0, "action": "', *[b"r" * 1000] * (MAX_BODY // 1000 + 1), b'"}'])
    response = client.post(f"/api/games/{game_id}/actions", content=chunks, headers={**auth(tokens[0]), "content-type": "application/json"})
    assert "content-length" not in response.request.headers
    assert response.status_code == 413 and response.json()["error"] == "too_large"


def test_unknown_games_are_404(client: TestClient, duel: Any) -> None:
    for path in ("", "/record", "/replay", "/odds"):
        response = client.get(f"/api/games/nope{path}")
        assert response.status_code == 404 and response.json()["error"] == "no_game"
    _, tokens, _ = duel  # a token of another game does not make an unknown game a 403
    for body, headers in (({"version": 0, "action": "roll"}, auth(tokens[0])), ({"version": 0, "action": "roll"}, {})):
        response = client.post("/api/games/nope/actions", json=body, headers=headers)
        assert response.status_code == 404 and response.json()["error"] == "no_game"


def test_odds_and_advice(client: TestClient, duel: Any) -> None:
    game_id, tokens, game = duel
    start = client.get(f"/api/games/{game_id}/odds").json()
    assert start["bust"] == 0 and start["columns"]["7"] == 64.35
    me = tokens[game["state"]["player"]]
    rolled = act(client, game_id, {"version": 0, "action": "roll"}, me).json()
    if rolled["state"]["phase"] == "choose":
        odds = client.get(f"/api/games/{game_id}/odds").json()
        assert [c["choice"] for c in odds["choices"]] == rolled["state"]["legal"]
        assert odds["advice"]["action"] in rolled["state"]["legal"]


def test_the_openapi_page_lists_the_api(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/api/games", "/api/games/{game_id}/actions", "/api/games/{game_id}/join", "/api/leaderboard"} <= set(paths)
    assert client.get("/docs").status_code == 404  # off by default: it loads its scripts from a CDN


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_nothing_a_client_sends_breaks_the_game(client: TestClient, data: st.DataObject) -> None:
    """Random actions, versions and tokens: each is applied whole or refused with a JSON error."""
    game_id = new_game(client, ["open", "open"])
    tokens = [join(client, game_id, 0, "Ann"), join(client, game_id, 1, "Bob"), "forged"]
    applied = 0
    actions = st.one_of(
        st.sampled_from(["roll", "stop", "7", "6+8", "2+2+2", "", "ROLL"]),
        st.lists(st.integers(2, 12), max_size=3),
    )
    for _ in range(40):
        game = client.get(f"/api/games/{game_id}").json()
        state = game["state"]
        legal = state["legal"] + ["roll"]
        action = data.draw(st.one_of(st.sampled_from(legal), actions))
        version = game["version"] + data.draw(st.sampled_from([0, 0, 0, -1, 1]))
        token = data.draw(st.sampled_from([tokens[state["player"]], *tokens]))
        response = client.post(f"/api/games/{game_id}/actions", json={"version": version, "action": action}, headers=auth(token))
        if response.status_code == 200:
            applied += 1
        else:
            assert response.status_code in (403, 409, 422) and response.json()
    record = read_record(client.get(f"/api/games/{game_id}/record").text)
    assert len(record.events) == applied == client.get(f"/api/games/{game_id}").json()["version"]


def test_solitaire_is_played_alone_and_not_rated(client: TestClient) -> None:
    game_id = new_game(client, ["open"], variant="solitaire")
    token = join(client, game_id, 0, "Sol")
    final = play_out(client, game_id, token)
    assert final["state"]["winner"] == 0
    assert final["log"][-1]["text"] == f"Sol finishes after {final['state']['turn']} turns."
    assert client.get("/api/leaderboard").json() == []


def test_a_broken_bot_does_not_stall_the_game(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    from cantstop.bots import base

    def broken(state: object, rng: object, budget: object) -> object:
        raise RuntimeError("out of its mind")

    info = base.get_bot("random")
    monkeypatch.setitem(base._REGISTRY, "random", base.BotInfo(info.name, info.level, info.description, broken, info.display))
    game_id = new_game(client, ["bot:random", "bot:random"])
    final = wait_for(client, game_id, lambda g: g["status"] == "over")
    assert final["state"]["winner"] in (0, 1)
    # Every move the table played in a bot's stead says so: never passed off as the bot's.
    decisions = [e for e in final["log"] if e["kind"] in ("choice", "stop")]
    assert decisions and all(e.get("fell_back") == "crash" and "out of its mind" in e["text"] for e in decisions)


def test_a_game_id_no_database_can_hold_is_a_404(any_storage: Storage) -> None:
    """A NUL in the id used to reach PostgreSQL, which refuses it: a 500 instead of a 404."""
    with TestClient(create_app(any_storage, bot_delay=0)) as client:
        for path in ("/api/games/a%00b", "/api/games/a%00b/replay", "/api/games/%0A"):
            response = client.get(path)
            assert response.status_code == 404 and response.json()["error"] == "no_game", response.text
        joined = client.post("/api/games/a%00b/join", json={"seat": 0, "name": "Ann"})
        assert joined.status_code == 404 and joined.json()["error"] == "no_game"
        with pytest.raises(WebSocketDisconnect), client.websocket_connect("/ws/games/a%00b") as ws:
            ws.receive_json()
