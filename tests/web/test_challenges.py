"""Challenges through the API: one account challenges another; accepted, the game is made with
both seats taken in the order asked for and started; declined, withdrawn or left for a day, it
is gone; the webhooks told. Every refusal as a hostile client meets it, with the table
unchanged; two accepts at once make one game, on SQLite and PostgreSQL. Time is the tests'
clock."""

from __future__ import annotations

import json
import re
import threading
import time
from typing import Any

import httpx
import pytest
from account_helpers import PASSWORD, Browser, csrf, people, post, sign_in, sign_up
from fastapi.testclient import TestClient
from sqlalchemy import func, select, update
from test_webhooks import Receiver, receiver  # noqa: F401  (a fixture)
from web_helpers import NO_LIMITS, Clock

from cantstop.web.app import create_app
from cantstop.web.challenges.rows import GameChallengeRow
from cantstop.web.challenges.store import KEPT, LASTS
from cantstop.web.db.rows import GameRow
from cantstop.web.db.storage import Storage
from cantstop.web.identity.accounts import Accounts
from cantstop.web.identity.moderation import Kind, Moderation
from cantstop.web.identity.rows import AccountRow
from cantstop.web.service import GameService
from cantstop.web.webhooks import verify


def service_of(browser: Any) -> GameService:
    service: GameService = browser.client.app.state.service
    return service


def rows(storage: Storage) -> list[tuple[str, int, int, str, str | None]]:
    """The challenges table as it stands: (id, challenger, challenged, state, game)."""
    with storage.session() as s:
        return [(r.id, r.challenger_id, r.challenged_id, r.state, r.game_id)
                for r in s.scalars(select(GameChallengeRow).order_by(GameChallengeRow.created, GameChallengeRow.id))]


def games(storage: Storage) -> int:
    with storage.session() as s:
        return int(s.scalar(select(func.count()).select_from(GameRow)) or 0)


def challenge(browser: Any, to: str, **fields: Any) -> Any:
    return post(browser, "/api/challenges", {"to": to, "rules": "classic", "clock": 86400, **fields})


def answer(browser: Any, challenge_id: str, verb: str) -> Any:
    return post(browser, f"/api/challenges/{challenge_id}/{verb}", {})


def mine(browser: Any) -> dict[str, Any]:
    response = browser.get("/api/challenges")
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


def account_id(storage: Storage, name: str) -> int:
    return Accounts(storage).named(name).id


# ------------------------------------------------------------------ the flow
@pytest.mark.parametrize(("seats", "ann_seat"), [("first", 0), ("second", 1)])
def test_an_accepted_challenge_starts_one_game_with_the_seats_in_the_order_asked(any_storage: Storage, seats: str, ann_seat: int) -> None:
    with people(any_storage, "Ann", "Bob") as (ann, bob):
        made = challenge(ann, "bob", rated=True, seats=seats)  # a name as typed
        assert made.status_code == 201, made.text
        sent = made.json()
        assert (sent["from"]["name"], sent["to"]["name"], sent["rules"], sent["clock"], sent["rated"], sent["seats"], sent["state"]) == (
            "Ann", "Bob", "classic", 86400, True, seats, "open")
        assert sent["to"]["url"] == "/player/Bob" and sent["clock_text"] == "1 day a move" and sent["game"] is None
        received = mine(bob)
        assert [c["id"] for c in received["received"]] == [sent["id"]] and received["sent"] == []
        assert received["most"] == 10 and received["lasts"] == 86400
        assert [c["id"] for c in mine(ann)["sent"]] == [sent["id"]] and mine(ann)["received"] == []

        accepted = answer(bob, sent["id"], "accept")
        assert accepted.status_code == 200, accepted.text
        game_id = accepted.json()["game"]
        assert accepted.json()["state"] == "accepted" and accepted.json()["url"] == f"/game/{game_id}"
        game = bob.get(f"/api/games/{game_id}").json()
        names = ["Ann", "Bob"] if ann_seat == 0 else ["Bob", "Ann"]
        assert [s["name"] for s in game["seats"]] == names
        stored = any_storage.game(game_id)
        assert game["status"] == "playing" and game["rated"] is True and stored is not None and stored.clock == 86400
        for who in (ann, bob):  # the game is each one's, on any device: in their games, their seat by account
            assert [g["id"] for g in post(who, "/api/my-games", {"tokens": []}).json()["games"]] == [game_id]
        assert mine(bob)["received"] == []
        (shown,) = mine(ann)["sent"]
        assert (shown["state"], shown["game"], shown["url"]) == ("accepted", game_id, f"/game/{game_id}")
        assert rows(any_storage) == [(sent["id"], account_id(any_storage, "Ann"), account_id(any_storage, "Bob"), "accepted", game_id)]
        again = answer(bob, sent["id"], "accept")  # the second click of a double click
        assert again.status_code == 409 and again.json()["error"] == "answered" and again.json()["message"].startswith("challenge:")
        assert games(any_storage) == 1


def test_a_random_seat_order_is_drawn_when_the_challenge_is_accepted(storage: Storage) -> None:
    with people(storage, "Ann", "Bob") as (ann, bob):
        draws = iter([1, 0])
        service_of(ann).challenges.draw = lambda: next(draws)
        for first, second in ((ann, bob), (bob, ann)):
            made = challenge(first, "Ann" if first is bob else "Bob")  # seats: random, by default
            assert made.json()["seats"] == "random"
            game_id = answer(second, made.json()["id"], "accept").json()["game"]
            seated = [s["name"] for s in second.get(f"/api/games/{game_id}").json()["seats"]]
            assert seated == ["Bob", "Ann"]  # Ann's, drawn 1: her seat is B; then Bob's, drawn 0: his is A


def test_a_declined_or_withdrawn_challenge_is_gone_and_the_challenger_is_told_of_a_decline(any_storage: Storage) -> None:
    with people(any_storage, "Ann", "Bob") as (ann, bob):
        first = challenge(ann, "Bob").json()["id"]
        declined = answer(bob, first, "decline")
        assert declined.status_code == 200 and declined.json()["state"] == "declined"
        assert mine(bob)["received"] == [] and [(c["id"], c["state"]) for c in mine(ann)["sent"]] == [(first, "declined")]
        second = challenge(ann, "Bob").json()["id"]  # the pair may try again once the first is answered
        assert answer(ann, second, "withdraw").json()["state"] == "withdrawn"
        assert mine(bob)["received"] == [] and [c["id"] for c in mine(ann)["sent"]] == [first]  # a withdrawn one is not shown
        for challenge_id, state in ((first, "declined"), (second, "withdrawn")):
            late = answer(bob, challenge_id, "accept")
            assert late.status_code == 409 and late.json()["error"] == "answered"
            assert late.json()["message"] == f"challenge: it was {state} already"
        assert games(any_storage) == 0 and [r[3] for r in rows(any_storage)] == ["declined", "withdrawn"]


def test_a_challenge_expires_after_a_day_and_the_sweep_stores_it_so_then_deletes_it(any_storage: Storage, clock: Clock) -> None:
    with people(any_storage, "Ann", "Bob", now=clock, sweep_every=3600) as (ann, bob):  # the test's sweeps only
        made = challenge(ann, "Bob").json()
        clock.advance(LASTS.total_seconds() - 60)
        assert [c["id"] for c in mine(bob)["received"]] == [made["id"]]
        clock.advance(61)
        assert mine(bob)["received"] == []  # gone at once for the account challenged, stored so or not
        assert [c["state"] for c in mine(ann)["sent"]] == ["expired"]
        late = answer(bob, made["id"], "accept")
        assert late.status_code == 409 and late.json()["error"] == "expired" and "a challenge lasts 1 day" in late.json()["message"]
        assert answer(ann, made["id"], "withdraw").json()["error"] == "expired"
        assert [r[3] for r in rows(any_storage)] == ["open"]  # nothing stored by the refusals
        service = service_of(ann)
        assert ann.client.portal.call(service.challenges.sweep) == 1
        assert [r[3] for r in rows(any_storage)] == ["expired"]
        assert challenge(ann, "Bob").status_code == 201  # the pair is free again
        clock.advance(KEPT.total_seconds())
        ann.client.portal.call(service.challenges.sweep)
        assert [r[3] for r in rows(any_storage)] == ["expired"]  # the first is deleted; the second has just expired
        assert sign_in(ann, "Ann").status_code == 200  # a month on, her session has ended
        assert mine(ann)["sent"] == []  # an expiry is shown for a day


def test_the_sweep_starts_an_accepted_challenges_game_its_process_never_started(any_storage: Storage) -> None:
    """A process stopped between storing the acceptance (with its game) and starting the game:
    the next sweep, in any process, starts it."""
    with people(any_storage, "Ann", "Bob") as (ann, _):
        service = service_of(ann)
        made = challenge(ann, "Bob", seats="second").json()
        found = service.challenges.store.challenge(made["id"])
        assert found is not None
        game_id = service.challenges.store.accept(found, 1, service.challenges.clock())  # stored, as accept does; never started
        assert game_id is not None
        waiting = any_storage.game(game_id)
        assert waiting is not None and waiting.status.value == "waiting"
        assert ann.client.portal.call(service.challenges.sweep) == 1
        started = ann.get(f"/api/games/{game_id}").json()
        assert started["status"] == "playing" and [s["name"] for s in started["seats"]] == ["Bob", "Ann"]
        assert ann.client.portal.call(service.challenges.sweep) == 0  # once


# ------------------------------------------------------------------ refusals
REFUSED = [
    ({"to": "Ann"}, 422, "bad_name", "to: Ann is you"),
    ({"to": "ANN"}, 422, "bad_name", "to: Ann is you"),
    ({"to": "Nobody"}, 404, "no_account", "to: no account is called 'Nobody'"),
    ({"to": "bad\x00name"}, 404, "no_account", "to: no account is called"),
    ({"to": "x" * 41}, 422, "bad_request", "to:"),
    ({"to": ""}, 422, "bad_request", "to:"),
    ({"to": "Bob", "rules": "chess"}, 422, "bad_rules", "rules:"),
    ({"to": "Bob", "rules": "solitaire"}, 422, "bad_rules", "a challenge is a game of two"),
    ({"to": "Bob", "rules": "classic+to_win=1", "rated": True}, 422, "not_rated_variant", "rated: "),
    ({"to": "Bob", "clock": 7}, 422, "bad_request", "clock:"),
    ({"to": "Bob", "clock": "a day"}, 422, "bad_request", "clock:"),
    ({"to": "Bob", "seats": "third"}, 422, "bad_request", "seats:"),
    ({"to": "Bob", "rated": "maybe"}, 422, "bad_request", "rated:"),
    ({"to": "Bob", "colour": "red"}, 422, "bad_request", "colour:"),
    ({}, 422, "bad_request", "to:"),
]


@pytest.mark.parametrize(("body", "status", "error", "says"), REFUSED)
def test_a_challenge_that_cannot_be_is_refused_naming_the_field_and_nothing_is_stored(
    storage: Storage, body: dict[str, Any], status: int, error: str, says: str,
) -> None:
    with people(storage, "Ann", "Bob") as (ann, _):
        refused = post(ann, "/api/challenges", {"rules": "classic", **body})
        assert (refused.status_code, refused.json()["error"]) == (status, error), refused.text
        assert says in refused.json()["message"]
    assert rows(storage) == []


def test_every_refusal_is_the_same_on_either_database(any_storage: Storage) -> None:
    with people(any_storage, "Ann", "Bob") as (ann, _):
        for body, status, error, says in REFUSED:
            refused = post(ann, "/api/challenges", {"rules": "classic", **body})
            assert (refused.status_code, refused.json()["error"]) == (status, error), (body, refused.text)
            assert says in refused.json()["message"]
    assert rows(any_storage) == []


def test_a_guest_or_a_forged_request_challenges_nobody(any_storage: Storage) -> None:
    with people(any_storage, "Ann", "Bob") as (ann, bob):
        guest = TestClient(ann.client.app)
        assert guest.post("/api/challenges", json={"to": "Bob"}).json()["error"] == "not_signed_in"
        assert guest.get("/api/challenges").status_code == 401
        forged = ann.post("/api/challenges", json={"to": "Bob"})  # the session cookie without its CSRF token
        assert forged.status_code == 403 and forged.json()["error"] == "csrf"
        other_site = ann.post("/api/challenges", json={"to": "Bob"}, headers={**csrf(ann), "origin": "https://evil.example"})
        assert other_site.status_code == 403 and other_site.json()["error"] == "csrf"
        assert rows(any_storage) == []
        made = challenge(ann, "Bob").json()["id"]
        unsigned = bob.post(f"/api/challenges/{made}/accept")
        assert unsigned.status_code == 403 and unsigned.json()["error"] == "csrf"
        assert rows(any_storage)[0][3] == "open" and games(any_storage) == 0


def test_only_the_account_challenged_answers_and_only_the_challenger_withdraws(any_storage: Storage) -> None:
    with people(any_storage, "Ann", "Bob", "Cy") as (ann, bob, cy):
        made = challenge(ann, "Bob").json()["id"]
        before = rows(any_storage)
        for who, verb, status, error in (
            (cy, "accept", 404, "no_challenge"), (cy, "decline", 404, "no_challenge"), (cy, "withdraw", 404, "no_challenge"),
            (ann, "accept", 403, "own_challenge"), (ann, "decline", 403, "not_yours"), (bob, "withdraw", 403, "not_yours"),
        ):
            refused = answer(who, made, verb)
            assert (refused.status_code, refused.json()["error"]) == (status, error), (verb, refused.text)
            assert refused.json()["message"].startswith("challenge:")
        assert cy.get("/api/challenges").json()["received"] == []  # another's challenge is not even seen
        for forged in ("nope", made[:-1], made + "x", "%00"):
            refused = answer(bob, forged, "accept")
            assert (refused.status_code, refused.json()["error"]) == (404, "no_challenge")
        too_long = answer(bob, "x" * 33, "accept")
        assert too_long.status_code == 422 and "challenge_id" in too_long.json()["message"]
        assert rows(any_storage) == before and games(any_storage) == 0


def test_a_deleted_or_closed_account_cannot_be_challenged_and_its_challenges_go(any_storage: Storage) -> None:
    with people(any_storage, "Ann", "Bob", "Cy") as (ann, bob, cy):
        to_bob = challenge(ann, "Bob").json()["id"]
        challenge(bob, "Cy")
        challenge(cy, "Ann")
        assert post(bob, "/api/account/delete", {"password": PASSWORD}).status_code == 204
        assert [(r[1], r[2]) for r in rows(any_storage)] == [(account_id(any_storage, "Cy"), account_id(any_storage, "Ann"))]
        gone = challenge(ann, "Bob")
        assert gone.status_code == 404 and gone.json()["error"] == "no_account" and gone.json()["message"].startswith("to:")
        assert answer(ann, to_bob, "withdraw").json()["error"] == "no_challenge"
        assert mine(ann)["sent"] == [] and len(rows(any_storage)) == 1
        # A closed account is no one to challenge either, and its open challenge is gone from view.
        assert [c["from"]["name"] for c in mine(ann)["received"]] == ["Cy"]
        Moderation(any_storage).decide(account_id(any_storage, "Cy"), Kind.CLOSE, "spam")
        closed = challenge(ann, "Cy")
        assert (closed.status_code, closed.json()["error"]) == (404, "no_account")
        assert mine(ann)["received"] == [] and len(rows(any_storage)) == 1


def test_a_block_either_way_refuses_a_challenge_and_closes_the_one_open(any_storage: Storage) -> None:
    with people(any_storage, "Ann", "Bob", "Cy") as (ann, bob, cy):
        open_one = challenge(ann, "Cy").json()["id"]
        assert post(bob, "/api/social/blocks", {"name": "Ann"}).status_code == 204
        for who, other in ((ann, "Bob"), (bob, "Ann")):
            refused = challenge(who, other)
            assert (refused.status_code, refused.json()["error"]) == (403, "blocked")
            assert refused.json()["message"] == f"to: you cannot challenge {other} (one of you blocks the other)"
        assert [r[0] for r in rows(any_storage)] == [open_one]
        assert post(cy, "/api/social/blocks", {"name": "Ann"}).status_code == 204  # made to the blocker: declined
        assert mine(cy)["received"] == [] and [c["state"] for c in mine(ann)["sent"]] == ["declined"]
        assert answer(cy, open_one, "accept").json()["error"] == "answered"
        mine_to_bob = challenge(cy, "Bob").json()["id"]
        assert post(cy, "/api/social/blocks", {"name": "Bob"}).status_code == 204  # made by the blocker: withdrawn
        assert [r[3] for r in rows(any_storage) if r[0] == mine_to_bob] == ["withdrawn"] and mine(bob)["received"] == []
        assert games(any_storage) == 0


def test_an_account_has_at_most_so_many_open_challenges_and_a_pair_one(any_storage: Storage) -> None:
    with people(any_storage, "Ann", "Bob", "Cy", "Dot", challenges_open=2) as (ann, bob, cy, _):
        assert challenge(ann, "Bob").status_code == challenge(ann, "Cy").status_code == 201
        over = challenge(ann, "Dot")
        assert (over.status_code, over.json()["error"]) == (409, "too_many")
        assert over.json()["message"].startswith("to: you have 2 open challenges, the most an account may have")
        both = challenge(bob, "Ann")  # the other way round: still the one pair
        assert (both.status_code, both.json()["error"]) == (409, "challenged_already")
        assert both.json()["message"] == "to: there is an open challenge between you and Ann already: answer it or withdraw it first"
        assert len(rows(any_storage)) == 2
        answer(cy, mine(cy)["received"][0]["id"], "decline")  # one answered: room for another
        assert challenge(ann, "Dot").status_code == 201


def test_a_suspension_closes_the_accounts_open_challenges_and_it_neither_challenges_nor_is_challenged(any_storage: Storage) -> None:
    with people(any_storage, "Ann", "Bob", "Cy") as (ann, bob, cy):
        to_bob = challenge(ann, "Bob").json()["id"]
        from_bob = challenge(bob, "Cy").json()["id"]
        between_others = challenge(ann, "Cy").json()["id"]
        Moderation(any_storage).decide(account_id(any_storage, "Bob"), Kind.SUSPEND, "threw games on purpose")
        states = {r[0]: r[3] for r in rows(any_storage)}
        assert states == {to_bob: "declined", from_bob: "withdrawn", between_others: "open"}
        assert [c["id"] for c in mine(cy)["received"]] == [between_others]  # nothing left waiting on Bob
        assert {c["id"]: c["state"] for c in mine(ann)["sent"]} == {to_bob: "declined", between_others: "open"}
        refused = answer(bob, to_bob, "accept")
        assert (refused.status_code, refused.json()["error"], refused.json()["message"]) == (409, "answered", "challenge: it was declined already")
        refused = challenge(bob, "Ann")
        assert (refused.status_code, refused.json()["error"]) == (403, "suspended") and "threw games on purpose" in refused.json()["message"]
        refused = challenge(cy, "Bob")
        assert (refused.status_code, refused.json()["error"], refused.json()["message"]) == (403, "cannot_play", "to: Bob may not play games now")
        assert games(any_storage) == 0


def test_a_challenge_met_by_a_suspension_as_it_is_accepted_is_refused_either_way(any_storage: Storage) -> None:
    """A suspension another process writes while a challenge is answered: the answer reads the
    account's standing and refuses, whichever side was suspended."""
    with people(any_storage, "Ann", "Bob", "Cy") as (ann, bob, cy):
        to_bob = challenge(ann, "Bob").json()["id"]
        from_bob = challenge(bob, "Cy").json()["id"]
        with any_storage.session() as s:  # the account's columns only, as the decision's first write
            s.execute(update(AccountRow).where(AccountRow.id == account_id(any_storage, "Bob"))
                      .values(suspended_why="threw games on purpose", suspended_until=None))
        refused = answer(bob, to_bob, "accept")
        assert (refused.status_code, refused.json()["error"]) == (403, "suspended")
        refused = answer(cy, from_bob, "accept")
        assert (refused.status_code, refused.json()["error"]) == (403, "cannot_play")
        assert [r[3] for r in rows(any_storage)] == ["open", "open"] and games(any_storage) == 0


# ------------------------------------------------------------------ webhooks
def test_the_challenged_and_the_challengers_webhooks_hear_of_it_signed(storage: Storage, receiver: Receiver) -> None:  # noqa: F811
    with people(storage, "Ann", "Bob", webhook_private=True) as (ann, bob):
        secrets = {}
        for who, path in ((ann, "/ann"), (bob, "/bob")):
            hook = who.put("/api/account/webhook", json={"url": receiver.url(path)}, headers=csrf(who))
            secrets[path] = hook.json()["secret"]
        service = service_of(ann)

        def delivered() -> None:  # each delivery in turn, so that they arrive in order
            ann.client.portal.call(service.turns.drain)

        declined = challenge(ann, "Bob").json()
        delivered()
        answer(bob, declined["id"], "decline")
        delivered()
        made = challenge(ann, "Bob", rated=True, seats="second").json()
        delivered()
        game_id = answer(bob, made["id"], "accept").json()["game"]
        delivered()
        seen = [(path, json.loads(body)) for path, _, body in receiver.seen]
        for path, headers, body in receiver.seen:
            assert verify(secrets[path], headers, body, now=time.time())
        challenges = [(path, e["event"], e.get("from"), e.get("by"), e.get("answer"), e.get("game")) for path, e in seen if e["event"] != "your_turn"]
        assert challenges == [
            ("/bob", "challenge", "Ann", None, None, None),
            ("/ann", "challenge_answered", None, "Bob", "declined", None),
            ("/bob", "challenge", "Ann", None, None, None),
            ("/ann", "challenge_answered", None, "Bob", "accepted", game_id),
        ]
        told = next(e for _, e in seen if e.get("challenge") == made["id"])
        assert (told["rules"], told["clock"], told["rated"], told["seats"], told["expires"]) == ("classic", 86400, True, "second", made["expires"])
        assert told["url"] == "/"  # no public origin set: a path
        accepted = next(e for _, e in seen if e.get("answer") == "accepted")
        assert accepted["url"] == f"/game/{game_id}"
        assert any(e["event"] == "your_turn" and e["game"] == game_id for _, e in seen)  # and the game's first turn, as any game's
        # Every payload writes its time one way (the turn's once wrote +00:00 beside the challenges' Z).
        assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", e["sent"]) for _, e in seen), [e["sent"] for _, e in seen]


# ------------------------------------------------------------------ races
def test_two_accepts_at_once_in_two_processes_make_one_game(any_storage: Storage) -> None:
    """A double click reaching two server processes on one database: both accept the same
    challenge at the same moment; the conditional update lets one make the game, the other
    is refused and stores nothing."""
    apps = [create_app(any_storage, bot_delay=0, **NO_LIMITS) for _ in range(2)]
    with TestClient(apps[0]) as first, TestClient(apps[1]) as second:
        ann, bob = Browser(first), Browser(first)
        sign_up(ann, "Ann")  # type: ignore[arg-type]
        sign_up(bob, "Bob")  # type: ignore[arg-type]
        for _ in range(3):  # three challenges, three races
            made = challenge(ann, "Bob").json()["id"]
            for client in (first, second):  # Bob's session on both processes
                client.cookies = httpx.Cookies(bob.cookies)
            start = threading.Barrier(2)
            answers: list[Any] = []

            def accept(client: TestClient, challenge_id: str = made, barrier: threading.Barrier = start,
                       into: list[Any] = answers) -> None:
                barrier.wait(30)
                into.append(client.post(f"/api/challenges/{challenge_id}/accept", headers=csrf(bob)))

            threads = [threading.Thread(target=accept, args=(c,)) for c in (first, second)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(60)
            assert sorted(a.status_code for a in answers) == [200, 409], [a.text for a in answers]
            assert next(a for a in answers if a.status_code == 409).json()["error"] == "answered"
            game_id = next(a for a in answers if a.status_code == 200).json()["game"]
            assert [r[4] for r in rows(any_storage) if r[0] == made] == [game_id]
        assert games(any_storage) == 3
        assert [r[3] for r in rows(any_storage)] == ["accepted"] * 3
