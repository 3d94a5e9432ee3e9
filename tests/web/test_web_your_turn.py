""""Your turn" without outside services, on the server's side: an account's webhook, set,
refused and delivered (to a local receiver) whenever a turn passes to its owner; the games
waiting for a player's move, with the time each clock leaves."""

from __future__ import annotations

import json
import re
import time
from typing import Any

from account_helpers import csrf, people, play_between, post, rated_game
from fastapi.testclient import TestClient
from test_webhooks import Receiver, receiver  # noqa: F401  (a fixture)
from web_helpers import NO_LIMITS, Clock, pick

from cantstop.web.app import create_app
from cantstop.web.db.storage import Storage
from cantstop.web.identity.accounts import Accounts
from cantstop.web.identity.hooks import HOOK_FRESH, Hooks
from cantstop.web.service import GameService
from cantstop.web.webhooks import verify


def put_hook(browser: Any, url: str) -> Any:
    return browser.put("/api/account/webhook", json={"url": url}, headers=csrf(browser))


def delivered(browser: Any) -> None:
    """Wait until each "your turn" of the turns begun so far has been delivered (or given up)
    by the server of `browser`."""
    service: GameService = browser.client.app.state.service
    browser.client.portal.call(service.turns.drain)


def turns_of(seat: int, log: list[dict[str, Any]]) -> int:
    """How many turns of `seat` began in a game's log: the runs of its rolls."""
    rollers = [e["seat"] for e in log if e["kind"] in ("roll", "bust")]
    return sum(1 for i, s in enumerate(rollers) if s == seat and (i == 0 or rollers[i - 1] != seat))


def test_a_loopback_or_private_hook_is_refused_unless_the_operator_allows_it(storage: Storage, receiver: Receiver) -> None:  # noqa: F811
    with people(storage, "Ann") as (ann,):
        for url in (receiver.url(), "http://10.0.0.7/hook", "http://[::1]/hook", "http://169.254.169.254/latest"):
            refused = put_hook(ann, url)
            assert refused.status_code == 422 and refused.json()["error"] == "bad_webhook", url
            assert "private, loopback or reserved" in refused.json()["message"]
        assert put_hook(ann, "ftp://example.org/x").json()["error"] == "bad_webhook"
        assert ann.get("/api/account").json()["webhook"] is None
        unsigned = ann.put("/api/account/webhook", json={"url": "https://example.org/hook"})
        assert unsigned.status_code == 403 and unsigned.json()["error"] == "csrf"


def test_each_turn_that_passes_to_the_owner_is_posted_signed(storage: Storage, receiver: Receiver) -> None:  # noqa: F811
    with people(storage, "Ann", "Bob", webhook_private=True) as (ann, bob):
        hook = put_hook(ann, receiver.url("/ann"))
        assert hook.status_code == 200
        secret = hook.json()["secret"]
        assert ann.get("/api/account").json()["webhook"] == receiver.url("/ann")  # the secret is never shown again
        tried = post(ann, "/api/account/webhook/test", {}).json()
        assert tried == {"ok": True, "status": 204, "reason": "delivered"}
        game_id = rated_game(ann, [bob])
        final = play_between({0: ann, 1: bob}, game_id)
        expected = 1 + turns_of(0, final["log"])  # the test delivery and each of Ann's turns
        delivered(ann)
        assert len(receiver.seen) == expected
        for path, headers, body in receiver.seen:
            assert path == "/ann" and verify(secret, headers, body, time.time())
        events = [json.loads(body) for _, _, body in receiver.seen]
        assert events[0]["event"] == "test"
        # One way of writing the time in every payload: UTC, to the second, ending in Z (the test
        # event once wrote the stored time with no zone at all, the turns +00:00).
        assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", e["sent"]) for e in events), [e["sent"] for e in events]
        turns = events[1:]
        assert {e["event"] for e in turns} == {"your_turn"} and {e["seat"] for e in turns} == {0}
        assert {e["game"] for e in turns} == {game_id} and turns[0]["url"] == f"/game/{game_id}" and turns[0]["rated"] is True
        assert [e["version"] for e in turns] == sorted(e["version"] for e in turns)
        assert ann.delete("/api/account/webhook", headers=csrf(ann)).status_code == 204
        gone = post(ann, "/api/account/webhook/test", {})
        assert gone.status_code == 409 and gone.json()["error"] == "no_webhook"


def test_a_hook_set_or_removed_during_a_game_counts_from_the_next_turn(storage: Storage, receiver: Receiver) -> None:  # noqa: F811
    """The server remembers an account's hook (or that it has none) between turns; a change
    through the server is heard at once: set after Ann's turn was announced to nobody, the
    hook gets her next turn; removed, it gets nothing more."""
    with people(storage, "Ann", "Bob", webhook_private=True) as (ann, bob):
        game_id = rated_game(ann, [bob])
        play_turn(ann, game_id, 0)
        play_turn(bob, game_id, 1)  # Ann's second turn begins: no hook yet
        assert put_hook(ann, receiver.url("/ann")).status_code == 200
        play_turn(ann, game_id, 0)
        play_turn(bob, game_id, 1)  # her third begins: announced
        delivered(ann)
        assert [json.loads(body)["event"] for _, _, body in receiver.seen] == ["your_turn"]
        assert ann.delete("/api/account/webhook", headers=csrf(ann)).status_code == 204
        play_turn(ann, game_id, 0)
        play_turn(bob, game_id, 1)  # her fourth begins: nowhere to announce it
        delivered(ann)
        assert len(receiver.seen) == 1


def test_a_hook_changed_by_another_process_is_seen_within_the_freshness_window(storage: Storage) -> None:
    """Each process remembers the hooks it read for `HOOK_FRESH` seconds; a change made
    through another process (another `Hooks`) is read again once that time is up."""
    now = [1000.0]
    here, elsewhere = Hooks(storage, clock=lambda: now[0]), Hooks(storage)
    ann = Accounts(storage).create("Ann", None).id
    assert here.known(ann) == (False, None) and here.for_turn(ann) is None
    assert here.known(ann) == (True, None)  # no query on the next turn
    elsewhere.set(ann, "https://example.org/hook", "s" * 64)
    now[0] += HOOK_FRESH / 2
    assert here.known(ann) == (True, None)
    now[0] += HOOK_FRESH
    assert here.known(ann) == (False, None)
    assert here.for_turn(ann) == ("https://example.org/hook", "s" * 64)
    here.set(ann, None, None)  # through this process: forgotten at once
    assert here.known(ann) == (False, None) and here.for_turn(ann) is None


def clock_of(by_clock: dict[int, str], game_id: str) -> int:
    return next(clock for clock, listed in by_clock.items() if listed == game_id)


def play_turn(person: Any, game_id: str, seat: int) -> None:
    """The seat's moves until its turn is over (a stop, or a bust), if it is its turn."""
    rolls = 0
    while (game := person.get(f"/api/games/{game_id}").json())["state"]["player"] == seat:
        action = pick(game["state"], rolls)
        rolls += action == "roll"
        assert post(person, f"/api/games/{game_id}/actions", {"version": game["version"], "action": action}).status_code == 200


def test_a_game_waiting_for_your_move_on_a_clock_says_how_long_you_have_and_the_most_pressing_comes_first(
    storage: Storage, still_clock: Clock,
) -> None:
    """Turn-based play is many games at once: the list says, for each one waiting on you, the
    time left for the move, and puts the one running out first first (not the last moved).
    The server's clock stands still but when the test moves it: the lists read it alike."""
    with people(storage, "Ann", "Bob", now=still_clock) as (ann, bob):
        by_clock = {}
        for clock in (3 * 86400, 43200, 86400):  # made in this order: the 12-hour one is not the last moved
            made = post(ann, "/api/games", {"variant": "classic", "seats": ["open", "open"], "clock": clock, "take": [{"seat": 0}]})
            game_id = made.json()["id"]
            assert post(bob, f"/api/games/{game_id}/join", {"seat": 1}).status_code == 200
            bob.cookies.delete(f"cantstop_{game_id}")  # Bob acts as his account
            play_turn(bob, game_id, 1)  # if Bob goes first: every game waits on Ann
            by_clock[clock] = game_id
        listed = post(ann, "/api/my-games", {"tokens": []}).json()["games"]
        assert [g["id"] for g in listed] == [by_clock[43200], by_clock[86400], by_clock[3 * 86400]]
        assert all(g["your_turn"] and g["left"] == clock_of(by_clock, g["id"]) for g in listed)  # the whole clock
        still_clock.advance(3600.5)
        listed = post(ann, "/api/my-games", {"tokens": []}).json()["games"]
        assert [(g["id"], g["left"]) for g in listed] == [(by_clock[c], c - 3600) for c in (43200, 86400, 3 * 86400)]  # whole seconds, rounded up
        assert all("left" not in g for g in post(bob, "/api/my-games", {"tokens": []}).json()["games"])  # not Bob's move anywhere
        profile = bob.get("/api/players/Ann").json()["playing"]  # Ann's page, seen by anyone, says so too
        assert [(g["id"], g["left"]) for g in profile] == [(g["id"], g["left"]) for g in listed]
        friendly = post(ann, "/api/games", {"variant": "classic", "seats": ["open", "bot:random"], "take": [{"seat": 0}]}).json()["id"]
        unclocked = [g for g in post(ann, "/api/my-games", {"tokens": []}).json()["games"] if g["id"] == friendly]
        assert unclocked and "left" not in unclocked[0]  # no clock, no time to tell


def test_a_guests_games_count_the_time_left_on_the_servers_clock(storage: Storage, still_clock: Clock) -> None:
    """A guest's seats (held by tokens) are listed as an account's are: the time left is what
    the server's clock leaves of the move's, as the live game counts its deadline."""
    with TestClient(create_app(storage, now=still_clock, bot_delay=0, **NO_LIMITS)) as client:
        made = client.post("/api/games", json={"seats": ["open", "open"], "clock": 43200,
                                                "take": [{"seat": 0, "name": "Ann"}, {"seat": 1, "name": "Bob"}]}).json()
        to_move = client.get(f"/api/games/{made['id']}").json()["state"]["player"]
        held = {"tokens": [{"game": made["id"], "token": t["token"]} for t in made["taken"] if t["seat"] == to_move]}
        client.cookies.clear()
        for elapsed in (0, 3600.5):
            still_clock.advance(elapsed)
            [listed] = client.post("/api/my-games", json=held).json()["games"]
            assert listed["your_turn"] and listed["left"] == 43200 - 3600 * (elapsed > 0)
