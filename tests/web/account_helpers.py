"""Helpers for the account tests: sign up or in through the API, as a browser's page would,
and people with accounts playing rated games through their own clients."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import httpx
from fastapi.testclient import TestClient
from web_helpers import NO_LIMITS, hearing, pg_schema, pick, postgres_url, storages

from cantstop.web.app import create_app
from cantstop.web.db.storage import Storage

PASSWORD = "seven dice on the table"  # passes the rules: 12+ characters, not a common one


def sign_up(client: TestClient, name: str, password: str = PASSWORD) -> dict[str, Any]:
    """A new account, signed in on `client`; its reply (account and CSRF token)."""
    response = client.post("/api/account/sign-up", json={"name": name, "password": password})
    assert response.status_code == 201, response.text
    reply: dict[str, Any] = response.json()
    return reply


def sign_in(client: TestClient, name: str, password: str = PASSWORD) -> Any:
    return client.post("/api/account/sign-in", json={"name": name, "password": password})


def csrf(client: httpx.Client) -> dict[str, str]:
    """The header a page sends with a change: the token from the cantstop_csrf cookie."""
    return {"X-CSRF-Token": client.cookies.get("cantstop_csrf") or ""}


class Browser:
    """One person's browser: its own cookies, on a test client shared with other browsers (one
    client, so one event loop: the server's tasks live on it)."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.cookies = httpx.Cookies()

    def _call(self, method: str, url: str, **kwargs: Any) -> Any:
        self.client.cookies = self.cookies
        try:
            return getattr(self.client, method)(url, **kwargs)
        finally:
            self.cookies = self.client.cookies  # with what the answer set

    def get(self, url: str, **kwargs: Any) -> Any:
        return self._call("get", url, **kwargs)

    def post(self, url: str, **kwargs: Any) -> Any:
        return self._call("post", url, **kwargs)

    def put(self, url: str, **kwargs: Any) -> Any:
        return self._call("put", url, **kwargs)

    def delete(self, url: str, **kwargs: Any) -> Any:
        return self._call("delete", url, **kwargs)

    def websocket_connect(self, url: str, **kwargs: Any) -> Any:
        self.client.cookies = self.cookies
        return self.client.websocket_connect(url, **kwargs)


@contextmanager
def people(storage: Storage, *names: str, **knobs: Any) -> Iterator[list[Any]]:
    """One browser per name on one server, each signed up (and so signed in) as that name."""
    app = create_app(storage, bot_delay=0, **{**NO_LIMITS, **knobs})
    with TestClient(app) as client:
        browsers = [Browser(client) for _ in names]
        for browser, name in zip(browsers, names):
            sign_up(browser, name)  # type: ignore[arg-type]
        yield browsers


@contextmanager
def two_processes(**knobs: Any) -> Iterator[tuple[TestClient, TestClient]]:
    """Two servers on one fresh PostgreSQL schema, as two processes would be: each app its own
    storage and its own LISTEN connection (one test client each)."""
    with pg_schema(postgres_url()) as url, storages(url, 2) as stores, \
            TestClient(create_app(stores[0], bot_delay=0, **{**NO_LIMITS, **knobs})) as first, \
            TestClient(create_app(stores[1], bot_delay=0, **{**NO_LIMITS, **knobs})) as second:
        hearing(first), hearing(second)
        yield first, second


def post(client: httpx.Client, path: str, body: dict[str, Any]) -> Any:
    """A change as a signed-in page makes it: with the session's CSRF token."""
    return client.post(path, json=body, headers=csrf(client))


def create(client: TestClient, seats: list[str], variant: str = "classic", rated: bool = True, **more: Any) -> Any:
    return post(client, "/api/games", {"variant": variant, "seats": seats, "rated": rated, **more})


def rated_game(creator: TestClient, joiners: list[TestClient], variant: str = "classic", bots: tuple[str, ...] = ()) -> str:
    """A rated game: the creator takes seat 0 of its account, each joiner the next seat, the
    bots (if any) the last ones."""
    seats = ["open"] * (1 + len(joiners)) + [f"bot:{b}" for b in bots]
    response = create(creator, seats, variant, take=[{"seat": 0}])
    assert response.status_code == 201, response.text
    game_id = str(response.json()["id"])
    for seat, joiner in enumerate(joiners, 1):
        joined = post(joiner, f"/api/games/{game_id}/join", {"seat": seat})
        assert joined.status_code == 200, joined.text
        joiner.cookies.delete(f"cantstop_{game_id}")  # each acts as its account, on whatever device
    creator.cookies.delete(f"cantstop_{game_id}")
    return game_id


def play_between(by_seat: Mapping[int, httpx.Client], game_id: str, most: int = 20_000) -> dict[str, Any]:
    """Play the game to its end, each seat's move made by its client through its session
    (a bot's seats play themselves on the server), and read its summary as the browser
    does then (a rated game's rating is written just after its last move: the summary
    waits for it, so storage read afterwards holds it)."""
    rolls = 0
    watcher = next(iter(by_seat.values()))
    for _ in range(most):
        game: dict[str, Any] = watcher.get(f"/api/games/{game_id}").json()
        if game["status"] == "over":
            assert watcher.get(f"/api/games/{game_id}/summary").status_code == 200
            return game
        state = game["state"]
        if state is None or state["player"] not in by_seat:
            continue  # a bot's move, made on the server's loop
        action = pick(state, rolls)
        rolls = 0 if action == "stop" else rolls + (action == "roll")
        if state["phase"] == "roll":
            rolls = 1
        response = post(by_seat[state["player"]], f"/api/games/{game_id}/actions", {"version": game["version"], "action": action})
        assert response.status_code == 200, response.text
    raise AssertionError("the game did not end")
