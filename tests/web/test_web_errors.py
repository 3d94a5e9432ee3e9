"""Every error under /api is JSON {error, message}, whoever refuses; HEAD works wherever GET does."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.exc import OperationalError
from starlette.exceptions import HTTPException
from web_helpers import NO_LIMITS, auth, join, new_game, until

from cantstop.core.errors import CantStopError
from cantstop.core.state import ROLL, STOP
from cantstop.table import GameOverError, IllegalMoveError, NotYourTurnError, StaleMoveError
from cantstop.web import errors as refusals
from cantstop.web.app import create_app
from cantstop.web.db.storage import Storage
from cantstop.web.http import refusal


def down(*_: Any) -> Any:
    raise OperationalError("SELECT 1", {}, Exception("connection refused"))


def started(client: TestClient) -> tuple[str, dict[int, str], dict[str, Any]]:
    game_id = new_game(client, ["open", "open"])
    tokens = {0: join(client, game_id, 0, "Ann"), 1: join(client, game_id, 1, "Bob")}
    return game_id, tokens, client.get(f"/api/games/{game_id}").json()


SIGNED_IN_ONLY = ("/api/social", "/api/practice", "/api/challenges")  # whom an account follows and blocks; its practice; its challenges


def test_head_is_answered_wherever_get_is(client: TestClient) -> None:
    game_id, _, _ = started(client)
    api = client.get("/openapi.json").json()["paths"]
    paths = [path.replace("{game_id}", game_id) for path, methods in api.items() if "get" in methods]
    assert f"/api/games/{game_id}/replay" in paths
    for path in [*paths, "/", f"/game/{game_id}", "/openapi.json", "/static/game.js", "/static/style.css"]:
        got, head = client.get(path), client.head(path)
        # A path still holding a parameter (a player's name) names nothing here: a 404 both ways;
        # a game still played has no summary nor analysis yet: a 409 both ways; the tutor is a
        # seated player's; an account's own lists and practice ask a guest to sign in; a browser
        # that asked for no quick game has no request to show.
        refused = {"/summary": 409, "/analysis": 409, "/tutor": 403, "/api/pairing": 404}
        expected = (401 if path.startswith(SIGNED_IN_ONLY) else 404 if "{" in path
                    else next((code for end, code in refused.items() if path.endswith(end)), 200))
        assert head.status_code == got.status_code == expected, (path, head.status_code)
        assert head.headers["content-type"] == got.headers["content-type"] and head.content == b""
    assert client.head("/api/games/nope").status_code == 404


def test_a_400_from_the_framework_is_json(storage: Storage) -> None:
    """FastAPI raises a bare 400 where it cannot read a body at all (this version reports most
    unreadable bodies as 422): such a refusal gets the one shape too."""
    app = create_app(storage, bot_delay=0)

    async def unreadable() -> None:
        raise HTTPException(400, "There was an error parsing the body")

    app.add_api_route("/api/unreadable", unreadable, methods=["POST"])
    with TestClient(app) as client:
        response = client.post("/api/unreadable")
    assert response.status_code == 400
    assert response.json() == {"error": "bad_request", "message": "There was an error parsing the body"}


def test_a_database_that_is_down_is_a_json_503(storage: Storage, monkeypatch: pytest.MonkeyPatch) -> None:
    with TestClient(create_app(storage, bot_delay=0, **NO_LIMITS)) as client:
        game_id, tokens, game = started(client)
        me = tokens[game["state"]["player"]]
        monkeypatch.setattr(storage, "games", down)
        monkeypatch.setattr(storage, "append_many", down)
        listed = client.get("/api/games")
        assert listed.status_code == 503 and listed.json()["error"] == "db_unavailable"
        assert listed.headers["content-type"] == "application/json" and listed.headers["retry-after"]
        acted = client.post(f"/api/games/{game_id}/actions", json={"version": 0, "action": "roll"}, headers=auth(me))
        assert acted.status_code == 503 and acted.json()["error"] == "db_unavailable"
        with client.websocket_connect(f"/ws/games/{game_id}", headers=auth(me)) as ws:
            until(ws, "hello")
            ws.send_json({"type": "action", "version": 0, "action": "roll"})
            assert until(ws, "error")["error"] == "db_unavailable"
            ws.send_json({"type": "ping"})
            assert until(ws, "pong") == {"type": "pong"}
        monkeypatch.undo()
        assert client.get(f"/api/games/{game_id}").json()["version"] == 0  # nothing half-applied


def test_an_unexpected_failure_is_a_json_500(storage: Storage, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_: Any) -> Any:
        raise RuntimeError("a bug")

    with TestClient(create_app(storage, bot_delay=0), raise_server_exceptions=False) as client:
        monkeypatch.setattr(storage, "games", broken)
        response = client.get("/api/games")
    assert response.status_code == 500 and response.json()["error"] == "internal" and "a bug" not in response.text


@pytest.mark.parametrize(("method", "path", "status", "error"), [
    ("GET", "/api/nothing", 404, "not_found"),
    ("DELETE", "/api/games", 405, "method_not_allowed"),
    ("PUT", "/api/games/x/actions", 405, "method_not_allowed"),
    ("GET", "/api/games/x/join", 405, "method_not_allowed"),
])
def test_framework_refusals_are_json(client: TestClient, method: str, path: str, status: int, error: str) -> None:
    response = client.request(method, path)
    assert response.status_code == status and response.json()["error"] == error and response.json()["message"]


@pytest.mark.parametrize(
    ("error", "status", "body", "headers"),
    [
        (refusals.NotFound("no_game", "no game 'x'"), 404, {"error": "no_game", "message": "no game 'x'"}, {}),
        (refusals.NotAllowed("bad_token", "no seat"), 403, {"error": "bad_token", "message": "no seat"}, {}),
        (refusals.Conflict("rematch_exists", "made", game="g", url="/game/g"), 409,
         {"error": "rematch_exists", "message": "made", "game": "g", "url": "/game/g"}, {}),
        (refusals.Invalid("bad_name", "no"), 422, {"error": "bad_name", "message": "no"}, {}),
        (refusals.TooMany("slow down", 7), 429, {"error": "too_many", "message": "slow down", "retry_after": 7}, {"Retry-After": "7"}),
        (refusals.TooMany("wait", 4, "sign_in_throttled"), 429, {"error": "sign_in_throttled", "message": "wait", "retry_after": 4},
         {"Retry-After": "4"}),
        (refusals.NotSignedIn("bad_credentials", "wrong"), 401, {"error": "bad_credentials", "message": "wrong"}, {}),
        (refusals.NotSignedIn("bad_token", "token?"), 401, {"error": "bad_token", "message": "token?"}, {"WWW-Authenticate": "Bearer"}),
        (refusals.NotAllowed("csrf", "no token"), 403, {"error": "csrf", "message": "no token"}, {}),
        (refusals.NotVerified("passkey_refused", "bad"), 400, {"error": "passkey_refused", "message": "bad"}, {}),
        (refusals.Conflict("name_taken", "taken"), 409, {"error": "name_taken", "message": "taken"}, {}),
        (StaleMoveError(3, 5), 409, {"error": "stale", "message": str(StaleMoveError(3, 5)), "version": 5}, {}),
        (NotYourTurnError("seat B's turn", 0, 1), 409, {"error": "not_your_turn", "message": "seat B's turn"}, {}),
        (GameOverError("over", 1), 409, {"error": "game_over", "message": "over"}, {}),
        (IllegalMoveError("no", (ROLL, STOP)), 422, {"error": "illegal", "message": "no", "legal": ["roll", "stop"]}, {}),
        (IllegalMoveError("no", ((6, 10), (7,))), 422, {"error": "illegal", "message": "no", "legal": [[6, 10], [7]]}, {}),
    ],
)
def test_each_refusal_gets_its_status_and_body_in_one_place(
    error: CantStopError, status: int, body: dict[str, Any], headers: dict[str, str]
) -> None:
    assert refusal(error) == (status, body, headers)
