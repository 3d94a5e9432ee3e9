"""Quick pairing through the API: two accounts asking for the same game are paired into it,
the rating window widening with time, a blocked pair never paired, guests paired with guests
and offered a bot, requests that expire when nobody looks at them, cancelling; every hostile
request refused naming its field with nothing stored; and two services pairing one queue at
once, each request paired once. On SQLite and PostgreSQL; time is the tests' clock."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from account_helpers import Browser, people, post
from fastapi.testclient import TestClient
from sqlalchemy import select, update
from test_web_moderation import admin
from web_helpers import NO_LIMITS, Clock, hearing, pg_schema, pick, postgres_url, storages

from cantstop.web.app import create_app
from cantstop.web.db.rows import GAMES, SEATS
from cantstop.web.db.storage import Storage
from cantstop.web.db.tokens import new_token
from cantstop.web.errors import Conflict
from cantstop.web.games.sweeper import stamp
from cantstop.web.pairing.rows import REQUESTS
from cantstop.web.pairing.store import PairingStore, RequestState
from cantstop.web.service import GameService

RATED = {"variant": "classic", "players": 2, "clock": 120, "rated": True}
FRIENDLY = {**RATED, "rated": False}


def service_of(browser: Any) -> GameService:
    service: GameService = browser.client.app.state.service
    return service


def ask(browser: Any, **fields: Any) -> Any:
    return post(browser, "/api/pairing", {**RATED, **fields})


def look(browser: Any, wait: float = 0) -> dict[str, Any]:
    response = browser.get(f"/api/pairing?wait={wait}")
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


def pair_now(browser: Any) -> int:
    """One look at the queue, as the server makes it every few seconds while a request waits
    (it may also have made one of its own meanwhile); the requests waiting after it."""
    service = service_of(browser)
    browser.client.portal.call(service.pairing.pair)
    return sum(r.state == "waiting" for r in stored(service.storage))


def stored(storage: Storage) -> list[Any]:
    with storage.engine.connect() as conn:
        return list(conn.execute(select(REQUESTS).order_by(REQUESTS.c.asked, REQUESTS.c.id)).all())


def set_rating(storage: Storage, name: str, rating: int) -> None:
    """The rating a waiting request was asked at (as if its player had played for it)."""
    with storage.engine.begin() as conn:
        conn.execute(update(REQUESTS).where(REQUESTS.c.name == name, REQUESTS.c.state == "waiting").values(rating=rating))


@pytest.fixture
def five(any_storage: Storage, still_clock: Clock) -> Iterator[dict[str, Any]]:
    with people(any_storage, "Ann", "Bob", "Cy", "Dot", "Fay", now=still_clock) as browsers:
        yield dict(zip(("Ann", "Bob", "Cy", "Dot", "Fay"), browsers))


# ------------------------------------------------------------------ pairing
def test_two_accounts_asking_for_the_same_game_are_paired_into_it(five: dict[str, Any]) -> None:
    ann, bob = five["Ann"], five["Bob"]
    asked = ask(ann)
    assert asked.status_code == 201, asked.text
    mine = asked.json()
    assert mine["state"] == "waiting" and mine["rating"] == 1500 and mine["window"] == 100 and mine["name"] == "Ann"
    assert mine["offer_bot"] is False and mine["game"] is None
    assert ask(bob).status_code == 201
    seen = look(ann, wait=25)  # answered as soon as a look at the queue pairs them
    assert seen["state"] == "paired", seen
    theirs = look(bob)
    assert theirs["state"] == "paired" and theirs["game"] == seen["game"] and {seen["seat"], theirs["seat"]} == {0, 1}
    game = ann.get(f"/api/games/{seen['game']}").json()
    assert game["status"] == "playing" and game["rated"] is True and game["clock"]["seconds"] == 120 and game["variant"] == "classic"
    assert sorted(s["name"] for s in game["seats"]) == ["Ann", "Bob"]
    assert game["you"] == seen["seat"]  # her account's seat, on any device
    assert [r.state for r in stored(ann.client.app.state.service.storage)] == ["paired", "paired"]


def test_requests_for_different_games_are_not_paired(five: dict[str, Any]) -> None:
    ann, bob, cy = five["Ann"], five["Bob"], five["Cy"]
    ask(ann)
    ask(bob, rated=False)
    ask(cy, clock=86400)
    assert pair_now(ann) == 3
    assert [look(b)["state"] for b in (ann, bob, cy)] == ["waiting"] * 3


def test_the_window_widens_with_time_until_ratings_apart_meet(five: dict[str, Any], any_storage: Storage, still_clock: Clock) -> None:
    ann, bob = five["Ann"], five["Bob"]
    ask(ann)
    set_rating(any_storage, "Ann", 1750)
    ask(bob)
    assert pair_now(ann) == 2  # 250 apart, 100 either side accepted
    assert look(bob)["window"] == 100
    still_clock.advance(30)
    assert look(ann)["window"] == look(bob)["window"] == 250
    assert pair_now(ann) == 0
    assert look(ann)["state"] == look(bob)["state"] == "paired"


def test_a_blocked_account_is_never_paired_with_the_one_that_blocks_it(five: dict[str, Any], still_clock: Clock) -> None:
    ann, bob, cy = five["Ann"], five["Bob"], five["Cy"]
    assert post(ann, "/api/social/blocks", {"name": "Bob"}).status_code == 204
    ask(ann)
    still_clock.advance(1)  # Ann asked first
    ask(bob)
    assert pair_now(ann) == 2
    still_clock.advance(1)
    ask(cy)
    assert pair_now(ann) == 1
    assert look(ann)["state"] == "paired" and look(cy)["game"] == look(ann)["game"]
    assert look(bob)["state"] == "waiting"


def test_three_players_are_seated_at_one_table(five: dict[str, Any]) -> None:
    browsers = [five[n] for n in ("Ann", "Bob", "Cy")]
    for browser in browsers[:2]:
        ask(browser, players=3)
    assert pair_now(browsers[0]) == 2  # two of three: they wait for a third
    ask(browsers[2], players=3)
    seen = look(browsers[2], wait=25)
    assert seen["state"] == "paired"
    assert {look(b)["game"] for b in browsers} == {seen["game"]}
    assert len(browsers[0].get(f"/api/games/{seen['game']}").json()["seats"]) == 3


# ------------------------------------------------------------------ guests
def test_guests_are_paired_with_guests_and_each_holds_its_seat_by_its_cookie(any_storage: Storage, still_clock: Clock) -> None:
    with TestClient(create_app(any_storage, bot_delay=0, now=still_clock, **NO_LIMITS)) as client:
        first, second = Browser(client), Browser(client)
        assert ask(first, rated=False, name="Sam").status_code == 201
        assert ask(second, rated=False, name="Sam").status_code == 201
        seen = [look(first, wait=25), look(second, wait=25)]
        assert [s["state"] for s in seen] == ["paired", "paired"] and seen[0]["game"] == seen[1]["game"]
        game_id = seen[0]["game"]
        game = first.get(f"/api/games/{game_id}").json()
        assert sorted(s["name"] for s in game["seats"]) == ["Sam", "Sam 2"]  # two guests of one name, told apart
        assert game["rated"] is False and game["you"] == seen[0]["seat"]
        assert second.get(f"/api/games/{game_id}").json()["you"] == seen[1]["seat"]
        mover = {seen[0]["seat"]: first, seen[1]["seat"]: second}[game["state"]["player"]]
        acted = mover.post(f"/api/games/{game_id}/actions", json={"version": game["version"], "action": pick(game["state"], 0)})
        assert acted.status_code == 200, acted.text


def test_a_guest_waiting_alone_is_offered_a_bot_and_plays_it(any_storage: Storage, still_clock: Clock) -> None:
    with TestClient(create_app(any_storage, bot_delay=0, now=still_clock, pairing_bot_after=45, **NO_LIMITS)) as client:
        guest = Browser(client)
        asked = ask(guest, rated=False, name="Sam", players=3)
        assert asked.status_code == 201 and asked.json()["offer_bot"] is False and asked.json()["bot_after"] == 45
        still_clock.advance(44)
        assert look(guest)["offer_bot"] is False
        still_clock.advance(1)
        assert look(guest)["offer_bot"] is True
        made = post(guest, "/api/pairing/bot", {})
        assert made.status_code == 201, made.text
        game_id = made.json()["game"]
        game = guest.get(f"/api/games/{game_id}").json()
        assert game["you"] == 0 and game["rated"] is False and game["clock"]["seconds"] == 120 and game["status"] == "playing"
        assert [s["kind"] for s in game["seats"]] == ["person", "bot", "bot"] and game["seats"][0]["name"] == "Sam"
        assert look(guest)["state"] == "cancelled"
        again = post(guest, "/api/pairing/bot", {})
        assert again.status_code == 409 and again.json()["error"] == "not_waiting"


def test_a_request_nobody_looks_at_expires_and_pairs_nobody_with_it(five: dict[str, Any], still_clock: Clock) -> None:
    ann, bob = five["Ann"], five["Bob"]
    ask(ann)
    still_clock.advance(61)  # her page closed: no look for longer than a request lasts unseen
    ask(bob)
    assert pair_now(bob) == 1
    assert look(ann)["state"] == "expired" and look(bob)["state"] == "waiting"
    assert ask(ann).status_code == 201  # she may ask again


def test_cancelling_a_request_and_asking_again(five: dict[str, Any]) -> None:
    ann = five["Ann"]
    ask(ann)
    gone = ann.delete("/api/pairing", headers={"X-CSRF-Token": ann.cookies.get("cantstop_csrf")})
    assert gone.status_code == 200 and gone.json()["state"] == "cancelled"
    again = ann.delete("/api/pairing", headers={"X-CSRF-Token": ann.cookies.get("cantstop_csrf")})
    assert again.status_code == 409 and again.json()["error"] == "not_waiting"
    assert ask(ann).status_code == 201


# ------------------------------------------------------------------ hostile requests
@pytest.mark.parametrize(("fields", "field"), [
    ({"variant": "chess"}, "variant"), ({"variant": "solitaire"}, "variant"), ({"variant": "classic+to_win=1"}, "variant"),
    ({"variant": "classic-long", "players": 4}, "players"), ({"players": 1}, "players"), ({"players": 5}, "players"),
    ({"players": "2"}, "players"), ({"clock": 0}, "clock"), ({"clock": 7}, "clock"), ({"clock": "fast"}, "clock"),
    ({"rated": "yes"}, "rated"), ({"unknown": 1}, "unknown"), ({"name": "Someone else"}, "name"),
])
def test_a_request_that_cannot_be_is_refused_naming_the_field_and_nothing_is_stored(
    five: dict[str, Any], any_storage: Storage, fields: dict[str, Any], field: str,
) -> None:
    refused = ask(five["Ann"], **fields)
    assert refused.status_code == 422, refused.text
    assert f"{field}:" in refused.json()["message"], refused.json()
    assert stored(any_storage) == []


def test_hostile_guests_are_refused_and_nothing_is_stored(five: dict[str, Any], any_storage: Storage) -> None:
    guest = Browser(five["Ann"].client)
    rated = ask(guest, name="Sam")
    assert rated.status_code == 403 and rated.json()["error"] == "rated_needs_account" and rated.json()["message"].startswith("rated:")
    nameless = ask(guest, rated=False)
    assert nameless.status_code == 422 and nameless.json()["message"].startswith("name:")
    posing = ask(guest, rated=False, name="Ann")  # an account's name
    assert posing.status_code == 409 and posing.json()["error"] == "name_taken"
    foreign = guest.post("/api/pairing", json={**FRIENDLY, "name": "Sam"}, headers={"Origin": "https://elsewhere.example"})
    assert foreign.status_code == 403 and foreign.json()["error"] == "csrf"
    assert stored(any_storage) == []
    assert guest.get("/api/pairing").status_code == 404


def test_asking_twice_is_refused_and_stores_nothing_more(five: dict[str, Any], any_storage: Storage) -> None:
    ann = five["Ann"]
    ask(ann)
    twice = ask(ann, rated=False)
    assert twice.status_code == 409 and twice.json()["error"] == "asking_already"
    guest = Browser(ann.client)
    ask(guest, rated=False, name="Sam")
    again = ask(guest, rated=False, name="Sam")
    assert again.status_code == 409 and again.json()["error"] == "asking_already"
    assert len(stored(any_storage)) == 2


def test_nobody_cancels_another_players_request(five: dict[str, Any], any_storage: Storage) -> None:
    ann, bob = five["Ann"], five["Bob"]
    ask(ann)
    before = stored(any_storage)
    theirs = bob.delete("/api/pairing", headers={"X-CSRF-Token": bob.cookies.get("cantstop_csrf")})
    assert theirs.status_code == 404 and theirs.json()["error"] == "no_request"
    stranger = Browser(ann.client)
    assert stranger.delete("/api/pairing", headers={"Cookie": "cantstop_pairing=a-guess-at-a-secret"}).status_code == 404
    assert stored(any_storage) == before


def test_no_csrf_token_no_change(five: dict[str, Any], any_storage: Storage) -> None:
    ann = five["Ann"]
    bare = ann.post("/api/pairing", json=RATED)
    assert bare.status_code == 403 and bare.json()["error"] == "csrf"
    assert stored(any_storage) == []
    ask(ann)
    kept = ann.delete("/api/pairing")
    assert kept.status_code == 403 and kept.json()["error"] == "csrf"
    assert look(ann)["state"] == "waiting"


def test_a_suspended_account_cannot_ask(five: dict[str, Any], any_storage: Storage) -> None:
    code, _ = admin(any_storage, "suspend", "Fay", "--reason", "threw games on purpose")
    assert code == 0
    refused = ask(five["Fay"])
    assert refused.status_code == 403 and refused.json()["error"] == "suspended"
    assert stored(any_storage) == []


def test_an_account_suspended_while_waiting_is_not_paired(five: dict[str, Any], any_storage: Storage) -> None:
    ask(five["Fay"])
    assert admin(any_storage, "suspend", "Fay", "--reason", "threw games on purpose")[0] == 0
    ask(five["Dot"])
    assert pair_now(five["Dot"]) == 1
    assert look(five["Fay"])["state"] == "cancelled" and look(five["Dot"])["state"] == "waiting"


# ------------------------------------------------------------------ several processes
def test_two_services_pairing_one_queue_at_once_pair_each_request_once(any_storage: Storage, still_clock: Clock) -> None:
    """Two processes on one database look at the same queue at the same moment, many times:
    every request is paired once, into a game of two seats that are its two requests'."""
    apps = [create_app(any_storage, now=still_clock, bot_delay=0, **NO_LIMITS) for _ in range(2)]
    with TestClient(apps[0]) as first, TestClient(apps[1]) as second:
        services: list[GameService] = [app.state.service for app in apps]
        store = services[0].pairing.store
        at = stamp(still_clock())
        for wave in range(4):
            # Stored straight into the queue (no process is woken by them), then both look at once.
            for i in range(12):
                store.ask(new_token(), None, f"Guest {wave}.{i}", "classic", 2, 120, False, 1500 + 5 * i, at)  # all within 100 points: any two may meet
            done: list[int] = []
            threads = [threading.Thread(target=lambda c=c, s=s, done=done: done.append(c.portal.call(s.pairing.pair)))
                       for c, s in zip((first, second), services)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(60)
            assert len(done) == 2
        first.portal.call(services[0].pairing.pair)  # a request one look passed over (the other claiming it) is paired at the next
        rows = stored(any_storage)
        assert [r.state for r in rows] == ["paired"] * 48
        with any_storage.engine.connect() as conn:
            games = conn.execute(select(GAMES.c.id)).scalars().all()
            seats = conn.execute(select(SEATS.c.game_id, SEATS.c.seat, SEATS.c.token_hash)).all()
        assert len(games) == 24
        by_game: dict[str, set[str]] = {}
        for r in rows:
            by_game.setdefault(r.game_id, set()).add(r.id)
        assert sorted(len(v) for v in by_game.values()) == [2] * 24  # nobody twice, nobody alone, nobody with themself
        assert {(s.game_id, s.seat, s.token_hash) for s in seats} == {(r.game_id, r.seat, r.token_hash) for r in rows}
        assert services[0].pairing.paired + services[1].pairing.paired == 24


@pytest.mark.postgres
def test_a_look_waiting_on_one_process_is_woken_by_a_pairing_on_the_other() -> None:
    """Ann's page asks the second process about her request and waits; the first process pairs
    her (the second never looks at the queue again): the database's notice reaches the second,
    which wakes her look with the news."""
    with pg_schema(postgres_url()) as url, storages(url, 2) as stores, \
            TestClient(create_app(stores[0], bot_delay=0, **NO_LIMITS)) as first, \
            TestClient(create_app(stores[1], bot_delay=0, pairing_every=3600, **NO_LIMITS)) as second:
        hearing(second)  # the first's notice must find the second listening
        pairing = second.app.state.service.pairing
        woken: list[str] = []
        tell = pairing._tell

        def told(request_ids: Any) -> None:
            woken.extend(r for r in request_ids if r in pairing._news)  # a look was waiting on it here
            tell(request_ids)

        pairing._tell = told
        looked: list[int] = []
        look_once = pairing.pair

        async def counted() -> int:
            left = await look_once()
            looked.append(left)
            return left

        pairing.pair = counted
        ann = Browser(first)
        mine = ask(ann, rated=False, name="Ann").json()
        ann_there = Browser(second)
        ann_there.cookies = ann.cookies
        seen: list[dict[str, Any]] = []
        waiting = threading.Thread(target=lambda: seen.append(look(ann_there, wait=25)))
        waiting.start()
        for _ in range(2000):  # bounded: until her look waits there, and the second's one look at the queue is done
            if mine["id"] in pairing._news and looked:
                break
            threading.Event().wait(0.01)
        assert mine["id"] in pairing._news and looked == [1]
        assert ask(Browser(first), rated=False, name="Bob").status_code == 201  # the first pairs them at once
        waiting.join(60)
        assert seen and seen[0]["state"] == "paired"
        assert woken == [mine["id"]]


def test_an_accounts_second_request_is_refused_by_its_key_when_two_asks_race(five: dict[str, Any], any_storage: Storage) -> None:
    """Past the service's look for a waiting request (two asks at once): the queue's key on
    the account while it waits refuses the second, and stores nothing."""
    store = service_of(five["Ann"]).pairing.store
    assert ask(five["Ann"]).status_code == 201
    account = stored(any_storage)[0].account_id
    at = stamp(0)
    with pytest.raises(Conflict) as refused:
        store.ask(new_token(), account, "Ann", "classic", 2, 120, False, 1500, at)
    assert refused.value.code == "asking_already"
    assert len(stored(any_storage)) == 1


def test_a_game_paired_by_a_process_that_stopped_before_starting_it_starts_at_a_look(any_storage: Storage, still_clock: Clock) -> None:
    """A process claimed a table and stopped before starting its game: the first look at one of
    its requests starts it, and the guest's look gets its seat."""
    with TestClient(create_app(any_storage, bot_delay=0, now=still_clock, **NO_LIMITS)) as client:
        store = service_of(Browser(client)).pairing.store
        tokens = [new_token(), new_token()]
        for token, name in zip(tokens, ("Sam", "Kim")):
            store.ask(token, None, name, "classic", 2, 120, False, 1500, stamp(still_clock()))
        table = store.waiting(10)
        game_id = store.claim(table, ["Sam", "Kim"], {"Event": "Quick pairing"}, stamp(still_clock()))
        assert game_id is not None
        assert store.claim(table, ["Sam", "Kim"], {}, stamp(still_clock())) is None  # claimed already: nothing stored
        with any_storage.engine.connect() as conn:
            assert conn.execute(select(GAMES.c.id, GAMES.c.status)).all() == [(game_id, "waiting")]
        guest = Browser(client)
        seen = guest.get("/api/pairing", headers={"Cookie": f"cantstop_pairing={tokens[0]}"}).json()
        assert seen["state"] == "paired" and seen["game"] == game_id
        game = guest.get(f"/api/games/{game_id}", headers={"Cookie": f"cantstop_{game_id}={tokens[0]}"}).json()
        assert game["status"] == "playing" and game["you"] == seen["seat"]


def test_a_claim_waits_for_a_look_marking_a_request_seen_and_pairs_it(any_storage: Storage, still_clock: Clock) -> None:
    """A holder's look updates its request's row (`saw`) in a transaction of its own; a claim
    meeting that lock took the table for claimed by another process (counted lost, paired a
    look later: a CI run's metrics showed one lost claim on one process). It waits instead."""
    store = PairingStore(any_storage)
    for name in ("Sam", "Kim"):
        store.ask(new_token(), None, name, "classic", 2, 120, False, 1500, stamp(still_clock()))
    table = store.waiting(10)
    claimed: list[str | None] = []
    with any_storage.engine.begin() as conn:
        conn.execute(update(REQUESTS).where(REQUESTS.c.id == table[1].id).values(seen=stamp(still_clock())))  # the look, under way
        claiming = threading.Thread(target=lambda: claimed.append(store.claim(table, ["Sam", "Kim"], {}, stamp(still_clock()))))
        claiming.start()
        claiming.join(0.5)
        assert claiming.is_alive()  # waiting for the look's row, not giving up on it
    claiming.join(10)
    assert claimed and claimed[0] is not None
    with any_storage.engine.connect() as conn:
        assert conn.execute(select(REQUESTS.c.state, REQUESTS.c.game_id)).all() == [("paired", claimed[0])] * 2


def test_a_cancel_waits_for_a_look_marking_the_request_seen_and_cancels_it(any_storage: Storage, still_clock: Clock) -> None:
    """Skipping the locked row, the cancel ended nothing and its holder read "your request is no
    longer waiting: it waiting"."""
    store = PairingStore(any_storage)
    request_id = store.ask(new_token(), None, "Sam", "classic", 2, 120, False, 1500, stamp(still_clock()))
    ended: list[list[str]] = []
    with any_storage.engine.begin() as conn:
        conn.execute(update(REQUESTS).where(REQUESTS.c.id == request_id).values(seen=stamp(still_clock())))
        cancelling = threading.Thread(target=lambda: ended.append(store.end([request_id], RequestState.CANCELLED, stamp(still_clock()))))
        cancelling.start()
        cancelling.join(0.5)
        assert cancelling.is_alive()
    cancelling.join(10)
    assert ended == [[request_id]]


def test_the_metrics_count_the_games_paired_here(any_storage: Storage, still_clock: Clock) -> None:
    from test_ops_health import TOKEN, samples

    with TestClient(create_app(any_storage, bot_delay=0, now=still_clock, metrics_token=TOKEN, **NO_LIMITS)) as client:
        assert samples(client)["cantstop_pairing_tables_total"] == 0
        first, second = Browser(client), Browser(client)
        ask(first, rated=False, name="Sam")
        ask(second, rated=False, name="Kim")
        assert look(second, wait=25)["state"] == "paired"
        found = samples(client)
        assert found["cantstop_pairing_tables_total"] == 1 and found["cantstop_pairing_claims_lost_total"] == 0
