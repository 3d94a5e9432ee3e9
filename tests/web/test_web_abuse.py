"""Resource abuse: unknown ids, deep JSON, loose types, floods. Each is refused cleanly."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from web_helpers import NO_LIMITS, auth, join, new_game, until

from cantstop.web.app import create_app
from cantstop.web.db.storage import Storage
from cantstop.web.errors import TooMany
from cantstop.web.http import json_depth, too_deep
from cantstop.web.rate_limit import SWEEP_EVERY, RateLimiter, limit_items
from cantstop.web.settings import MAX_DEPTH, Settings, refusal

DEEP = 980  # a message this deep used to drop the WebSocket (code 1006)


def deep_action(depth: int) -> str:
    return '{"type": "action", "version": 0, "action": ' + "[" * depth + "]" * depth + "}"


def seated(client: TestClient) -> tuple[str, dict[int, str]]:
    game_id = new_game(client, ["open", "open"])
    return game_id, {0: join(client, game_id, 0, "Ann"), 1: join(client, game_id, 1, "Bob")}


def test_unknown_game_ids_leave_nothing_in_memory(client: TestClient) -> None:
    games = client.app.state.service.games  # type: ignore[attr-defined]
    for i in range(200):
        assert client.get(f"/api/games/unknown{i}").status_code == 404
        assert client.post(f"/api/games/other{i}/actions", json={"version": 0, "action": "roll"}).status_code == 404
    assert games.held == {} and games.loads_in_flight == 0


def test_json_nested_too_deep_is_a_clean_error_over_http(client: TestClient) -> None:
    game_id, tokens = seated(client)
    for depth in (MAX_DEPTH + 1, DEEP):
        body = deep_action(depth).replace('"type": "action", ', "")
        response = client.post(f"/api/games/{game_id}/actions", content=body, headers={**auth(tokens[0]), "content-type": "application/json"})
        assert response.status_code == 400 and response.json()["error"] == "too_deep", response.text
        assert str(MAX_DEPTH) in response.json()["message"]
    brackets_in_a_string = json.dumps({"variant": "[" * 50, "seats": ["open"]})  # not nesting: refused for its variant
    assert client.post("/api/games", content=brackets_in_a_string, headers={"content-type": "application/json"}).json()["error"] == "bad_variant"


@given(st.lists(st.sampled_from(["[", "{", '"['])), st.text(alphabet='[]{}"\\ab:,', max_size=30))
def test_the_bracket_count_shortcut_never_lets_a_too_deep_text_through(openers: list[str], rest: str) -> None:
    """`too_deep` skips the scan of a text with few brackets: it still says what the scan says."""
    text = "".join(openers) + rest
    assert too_deep(text) == (json_depth(text) > MAX_DEPTH)


def test_json_nested_too_deep_gets_an_error_frame_and_the_socket_stays(client: TestClient) -> None:
    game_id, tokens = seated(client)
    with client.websocket_connect(f"/ws/games/{game_id}", headers=auth(tokens[0])) as ws:
        until(ws, "hello")
        ws.send_text(deep_action(DEEP))
        assert until(ws, "error")["error"] == "too_deep"
        ws.send_json({"type": "ping"})
        assert until(ws, "pong") == {"type": "pong"}


def choosing(client: TestClient, game_id: str, tokens: dict[int, str]) -> dict[str, Any]:
    """Roll (whoever is to move) until someone has a choice to make; the game then."""
    for _ in range(100):
        game = client.get(f"/api/games/{game_id}").json()
        if game["state"]["phase"] == "choose":
            return game
        me = tokens[game["state"]["player"]]
        action = "roll" if game["state"]["phase"] == "roll" else "stop"
        client.post(f"/api/games/{game_id}/actions", json={"version": game["version"], "action": action}, headers=auth(me))
    raise AssertionError("nobody got a choice")


@pytest.mark.parametrize(
    "body",
    [
        {"version": False, "action": "roll"},
        {"version": True, "action": "roll"},
        {"version": "3", "action": "roll"},
        {"version": 3.0, "action": "roll"},
    ],
)
def test_a_version_must_be_a_number(client: TestClient, body: dict[str, Any]) -> None:
    game_id, tokens = seated(client)
    game = client.get(f"/api/games/{game_id}").json()
    response = client.post(f"/api/games/{game_id}/actions", json=body, headers=auth(tokens[game["state"]["player"]]))
    assert response.status_code == 422 and response.json()["error"] == "bad_request"
    assert "version" in response.json()["message"]
    assert client.get(f"/api/games/{game_id}").json()["version"] == 0


def test_a_choice_sent_as_strings_is_refused(client: TestClient) -> None:
    game_id, tokens = seated(client)
    game = choosing(client, game_id, tokens)
    choice = game["state"]["legal"][0]
    me = tokens[game["state"]["player"]]
    as_strings = {"version": game["version"], "action": [str(c) for c in choice]}
    response = client.post(f"/api/games/{game_id}/actions", json=as_strings, headers=auth(me))
    assert response.status_code == 422 and response.json()["error"] == "bad_request"
    assert client.get(f"/api/games/{game_id}").json()["version"] == game["version"]
    with client.websocket_connect(f"/ws/games/{game_id}", headers=auth(me)) as ws:
        until(ws, "hello")
        ws.send_json({"type": "action", **as_strings})
        assert until(ws, "error")["error"] == "bad_message"
        ws.send_json({"type": "action", "version": True, "action": "stop"})
        assert until(ws, "error")["error"] == "bad_message"
    assert client.get(f"/api/games/{game_id}").json()["version"] == game["version"]


@pytest.mark.parametrize(
    "body",
    [{"seat": True, "name": "Ann"}, {"seat": "1", "name": "Ann"}, {"seat": 1.0, "name": "Ann"}, {"seat": 1, "name": "Ann", "screen": "yes"}, {"seat": 1, "name": 7}],
)
def test_a_join_must_have_the_right_types(client: TestClient, body: dict[str, Any]) -> None:
    game_id = new_game(client, ["open", "open"])
    response = client.post(f"/api/games/{game_id}/join", json=body)
    assert response.status_code == 422 and response.json()["error"] == "bad_request"
    assert all(s["kind"] == "open" for s in client.get(f"/api/games/{game_id}").json()["seats"])


def test_a_new_game_must_have_the_right_types(client: TestClient) -> None:
    for body in ({"seats": "open"}, {"seats": ["open", 1]}, {"seats": ["open"], "variant": 5}, {"seats": ["open", "open"], "take": [{"seat": True, "name": "A"}]}):
        response = client.post("/api/games", json=body)
        assert response.status_code == 422 and response.json()["error"] == "bad_request", body
    assert client.get("/api/games").json() == []


@pytest.fixture
def strict(storage: Storage) -> Iterator[TestClient]:
    """A server with tiny limits: two of each a minute."""
    knobs = {**NO_LIMITS, "rate_create": "2/minute", "rate_join": "2/minute", "rate_action": "2/minute"}
    with TestClient(create_app(storage, bot_delay=0, **knobs)) as test_client:
        yield test_client


def assert_429(response: Any) -> None:
    assert response.status_code == 429, response.text
    refusal = response.json()
    assert refusal["error"] == "too_many" and "try again in" in refusal["message"]
    assert int(response.headers["retry-after"]) == refusal["retry_after"] >= 1


def test_creating_and_joining_past_the_limit_is_a_429(strict: TestClient) -> None:
    games = [new_game(strict, ["open", "open"]) for _ in range(2)]
    assert_429(strict.post("/api/games", json={"seats": ["open", "open"]}))
    assert len(strict.get("/api/games").json()) == 2  # the refused one was not created
    join(strict, games[0], 0, "Ann")
    join(strict, games[0], 1, "Bob")
    assert_429(strict.post(f"/api/games/{games[1]}/join", json={"seat": 0, "name": "Cy"}))
    assert strict.get(f"/api/games/{games[1]}").json()["seats"][0]["kind"] == "open"


def test_acting_past_the_limit_is_a_429_over_http_and_an_error_frame_over_ws(strict: TestClient) -> None:
    game_id = new_game(strict, ["open", "open"])
    tokens = {0: join(strict, game_id, 0, "Ann"), 1: join(strict, game_id, 1, "Bob")}
    for version in range(3):
        game = strict.get(f"/api/games/{game_id}").json()
        me = tokens[game["state"]["player"]]
        action = "roll" if game["state"]["phase"] != "choose" else game["state"]["legal"][0]
        response = strict.post(f"/api/games/{game_id}/actions", json={"version": version, "action": action}, headers=auth(me))
        if version < 2:
            assert response.status_code == 200, response.text
        else:
            assert_429(response)
    with strict.websocket_connect(f"/ws/games/{game_id}", headers=auth(me)) as ws:
        until(ws, "hello")
        ws.send_json({"type": "action", "version": 2, "action": action})
        refusal = until(ws, "error")
        assert refusal["error"] == "too_many" and refusal["retry_after"] >= 1
        ws.send_json({"type": "ping"})
        assert until(ws, "pong") == {"type": "pong"}  # the socket stays open
    assert strict.get(f"/api/games/{game_id}").json()["version"] == 2


def test_limits_count_per_client_address_believing_only_a_trusted_proxy(storage: Storage) -> None:
    def creates(trusted: tuple[str, ...]) -> list[int]:
        knobs = {**NO_LIMITS, "rate_create": "1/minute", "trusted_proxies": trusted}
        with TestClient(create_app(storage, bot_delay=0, **knobs)) as c:
            return [
                c.post("/api/games", json={"seats": ["open"], "variant": "solitaire"}, headers={"x-forwarded-for": f"10.0.0.{i}"}).status_code
                for i in (1, 2, 1)
            ]

    assert creates(("testclient",)) == [201, 201, 429]  # the proxy's clients are told apart
    assert creates(()) == [201, 429, 429]  # anyone else's header is ignored


def test_a_window_refuses_past_its_amount_until_it_ends_and_ended_windows_are_swept() -> None:
    clock = [1000.0]
    throttle = RateLimiter(Settings(rate_action="2 per 10 seconds", rate_chat="off"), clock=lambda: clock[0])

    async def hits(what: str, client: str, n: int) -> list[int | None]:
        refused: list[int | None] = []
        for _ in range(n):
            try:
                throttle.check(what, client)
                refused.append(None)
            except TooMany as error:
                refused.append(error.retry_after)
        return refused

    assert asyncio.run(hits("action", "a", 3)) == [None, None, 10]  # the window opened at the first hit
    clock[0] += 9.5
    assert asyncio.run(hits("action", "a", 1)) == [1] and asyncio.run(hits("action", "b", 1)) == [None]
    clock[0] += 0.5  # the first window has ended: a new one opens
    assert asyncio.run(hits("action", "a", 3)) == [None, None, 10]
    assert asyncio.run(hits("chat", "a", 50)) == [None] * 50  # off
    clock[0] += SWEEP_EVERY
    asyncio.run(hits("action", "c", 1))
    assert throttle.counted == [("action", "c")]


def test_counting_starts_no_threads() -> None:
    """The `limits` package's in-memory storage started a timer thread every 10 ms and held
    up the event loop until each had started: counting is on every action's path."""
    throttle = RateLimiter(Settings(rate_action="1000/second"))
    before = threading.active_count()

    async def many() -> None:
        for i in range(200):
            throttle.check("action", f"client{i % 7}")

    asyncio.run(many())
    assert threading.active_count() == before


def test_rate_settings_come_from_the_environment_and_bad_ones_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {"CANTSTOP_RATE_CHAT": " 5 per 10 seconds ", "CANTSTOP_TRUSTED_PROXIES": "10.0.0.1 ::1", "CANTSTOP_API_DOCS": "1"}.items():
        monkeypatch.setenv(name, value)
    settings = Settings()
    assert settings.rate_chat == "5 per 10 seconds" and settings.trusted_proxies == ("10.0.0.1", "::1") and settings.api_docs
    assert str(limit_items(settings)["chat"]) == "5 per 10 second"
    with pytest.raises(ValueError, match="rate_action: 'fast' is not a rate"):  # knobs set in code are not validated
        limit_items(Settings().model_copy(update={"rate_action": "fast"}))
    with pytest.raises(ValidationError) as bad:
        Settings(rate_action="fast")
    assert refusal(bad.value) == (
        "bad setting CANTSTOP_RATE_ACTION='fast': give a rate such as '20/minute' or '5 per 10 seconds', or 'off'"
    )


def test_every_setting_keeps_its_environment_name_and_default(monkeypatch: pytest.MonkeyPatch) -> None:
    defaults = {"bot_delay": 0.8, "origins": (), "trusted_proxies": (), "rate_create": "20/minute", "rate_join": "60/minute",
                "rate_action": "30/second", "rate_chat": "10/minute", "socket_rate": 20.0, "clock_scale": 1.0,
                "timeouts_to_forfeit": 3, "abandon_after": 604800.0, "sweep_every": 60.0, "idle_games_kept": 1000, "api_docs": False,
                "session_idle": 604800.0, "session_longest": 2592000.0, "secure_cookies": False, "sign_in_delay": 1.0, "public_origin": "",
                "webhook_private": False, "header_timeout": 10.0, "body_timeout": 15.0, "connections_per_address": 100, "metrics_token": "", "shutdown_grace": 5,
                "rate_analysis": "120/minute", "analysis_workers": 1, "analysis_warm": True, "analyse_after": "rated", "analyse_after_per_minute": 20,
                "analysis_wait": 10.0, "challenges_open": 10,
                "pairing_every": 2.0, "pairing_expire": 60.0, "pairing_bot_after": 60.0}
    for name in defaults:
        monkeypatch.delenv(f"CANTSTOP_{name.upper()}", raising=False)
    assert Settings().model_dump() == defaults
    given = {"bot_delay": ("0", 0.0), "origins": ("https://a.example https://b.example", ("https://a.example", "https://b.example")),
             "rate_join": ("off", "off"), "socket_rate": ("2.5", 2.5), "clock_scale": ("0.01", 0.01), "api_docs": ("yes", True),
             "connections_per_address": ("7", 7), "metrics_token": (" secret ", "secret"), "timeouts_to_forfeit": ("0", 0),
             "abandon_after": ("86400", 86400.0), "sweep_every": ("5", 5.0), "webhook_private": ("1", True),
             "idle_games_kept": ("0", 0),
             "analysis_workers": ("0", 0), "analysis_warm": ("no", False), "analyse_after": ("all", "all"), "analysis_wait": ("2.5", 2.5),
             "analyse_after_per_minute": ("3", 3), "challenges_open": ("25", 25),
             "pairing_every": ("0.5", 0.5), "pairing_expire": ("30", 30.0), "pairing_bot_after": ("0", 0.0)}
    for name, (text, _) in given.items():
        monkeypatch.setenv(f"CANTSTOP_{name.upper()}", text)
    assert Settings().model_dump() == {**defaults, **{name: value for name, (_, value) in given.items()}}
    monkeypatch.setenv("CANTSTOP_API_DOCS", "maybe")
    with pytest.raises(ValueError, match="api_docs"):
        Settings()
    monkeypatch.setenv("CANTSTOP_API_DOCS", "no")
    for name, bad in {"timeouts_to_forfeit": "-1", "abandon_after": "0", "sweep_every": "-5", "clock_scale": "0", "idle_games_kept": "-1",
                      "analysis_workers": "-1", "analyse_after": "sometimes", "analyse_after_per_minute": "0", "challenges_open": "0", "pairing_every": "0", "pairing_expire": "-1",
                      "pairing_bot_after": "-1"}.items():
        monkeypatch.setenv(f"CANTSTOP_{name.upper()}", bad)
        with pytest.raises(ValueError, match=name):
            Settings()
        monkeypatch.delenv(f"CANTSTOP_{name.upper()}")


@settings(deadline=None)  # five settings read per example: milliseconds, more on a loaded machine
@given(st.text(max_size=30))
def test_any_setting_that_does_not_read_is_refused_in_one_line_naming_its_variable(value: str) -> None:
    for name in ("api_docs", "rate_create", "socket_rate", "connections_per_address", "clock_scale"):
        try:
            Settings(**{name: value})
        except ValidationError as error:
            line = refusal(error)
            assert "\n" not in line and line.startswith(f"bad setting CANTSTOP_{name.upper()}=")
            assert ": give " in line or ": Input should" in line  # what it may be, said


@pytest.mark.parametrize(
    ("variable", "value", "line"),
    [
        ("CANTSTOP_RATE_JOIN", "lots", "CANTSTOP_RATE_JOIN='lots': give a rate such as '20/minute' or '5 per 10 seconds', or 'off'"),
        ("CANTSTOP_API_DOCS", "maybe", "CANTSTOP_API_DOCS='maybe': give yes or no: 1/0, yes/no, true/false or on/off"),
        ("CANTSTOP_CLOCK_SCALE", "0", "CANTSTOP_CLOCK_SCALE='0': give a number above 0"),
        ("CANTSTOP_SOCKET_RATE", "fast", "CANTSTOP_SOCKET_RATE='fast': give a number"),
    ],
)
def test_serve_refuses_a_bad_setting_in_one_line_before_it_names_an_address(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str, value: str, line: str
) -> None:
    from click.testing import CliRunner

    from cantstop.cli.serve import serve

    monkeypatch.setenv(variable, value)
    for name in ("CANTSTOP_DB", "CANTSTOP_BOT_DELAY", "CANTSTOP_ORIGINS"):  # serve sets them: undone after the test
        monkeypatch.setenv(name, "")
    result = CliRunner().invoke(serve, ["--db", f"sqlite:///{tmp_path / 'x.sqlite3'}"])
    assert result.exit_code == 1 and result.output == f"Error: bad setting {line}\n"
    assert not (tmp_path / "x.sqlite3").exists()  # refused before the database was touched
