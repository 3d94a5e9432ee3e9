"""Accounts as a hostile client tries them: every refusal, and nothing secret ever echoed."""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from account_helpers import PASSWORD, csrf, sign_in, sign_up
from fastapi.testclient import TestClient
from test_web_api import play_out
from web_helpers import NO_LIMITS, Clock, Server, new_game

from cantstop.web.app import create_app
from cantstop.web.db.storage import Storage

WRONG = {"error": "bad_credentials", "message": "the name or the password is wrong"}


def app_client(storage: Storage, **knobs: Any) -> TestClient:
    return TestClient(create_app(storage, bot_delay=0, **{**NO_LIMITS, **knobs}))


@pytest.fixture
def two(storage: Storage) -> Iterator[tuple[TestClient, TestClient]]:
    """Two browsers of one server (each its own cookies)."""
    app = create_app(storage, bot_delay=0, **NO_LIMITS)
    with TestClient(app) as first, TestClient(app) as second:
        yield first, second


def test_sign_up_signs_in_with_an_httponly_lax_cookie_and_a_csrf_token(client: TestClient) -> None:
    response = client.post("/api/account/sign-up", json={"name": "  Ann   Smith ", "password": PASSWORD})
    assert response.status_code == 201
    assert response.json()["account"]["name"] == "Ann Smith"  # normalised as every name is
    cookies = response.headers.get_list("set-cookie")
    session = next(c for c in cookies if c.startswith("cantstop_session="))
    assert "HttpOnly" in session and "SameSite=lax" in session and "Secure" not in session  # plain http here
    token = next(c for c in cookies if c.startswith("cantstop_csrf="))
    assert "HttpOnly" not in token and "SameSite=strict" in token  # the page's script reads this one
    assert token.split(";")[0].split("=")[1] == response.json()["csrf"]
    me = client.get("/api/account").json()
    assert me["account"]["name"] == "Ann Smith" and [s["this"] for s in me["sessions"]] == [True]


def test_a_password_hashed_with_other_parameters_is_rehashed_at_sign_in(client: TestClient, storage: Storage) -> None:
    """When argon2id's parameters change, an account's hash is redone with today's at its
    next sign-in, and the password keeps working."""
    from argon2 import PasswordHasher, Type

    from cantstop.web.identity.accounts import Accounts
    from cantstop.web.identity.passwords import HASHER, needs_rehash

    sign_up(client, "Ann")
    accounts = Accounts(storage)
    found = accounts.find("Ann")
    assert found is not None and found[1] is not None and not needs_rehash(found[1])
    before = PasswordHasher(time_cost=1, memory_cost=47_104, parallelism=1, type=Type.ID).hash(PASSWORD)  # the parameters until 2026-11-27
    accounts.set_password(found[0].id, before)
    client.cookies.clear()
    assert sign_in(client, "Ann", PASSWORD).status_code == 200
    stored = accounts.find("Ann")
    assert stored is not None and stored[1] is not None and stored[1] != before and not needs_rehash(stored[1])
    assert HASHER.verify(stored[1], PASSWORD)
    client.cookies.clear()
    assert sign_in(client, "Ann", PASSWORD).status_code == 200


def test_cookies_are_secure_over_https_and_when_the_setting_says_so(storage: Storage) -> None:
    with app_client(storage, secure_cookies=True) as client:
        response = client.post("/api/account/sign-up", json={"name": "Ann", "password": PASSWORD})
        assert all("Secure" in c for c in response.headers.get_list("set-cookie"))
    with TestClient(create_app(storage, bot_delay=0, **NO_LIMITS), base_url="https://testserver") as client:
        response = client.post("/api/account/sign-in", json={"name": "Ann", "password": PASSWORD})
        assert all("Secure" in c for c in response.headers.get_list("set-cookie"))


def test_an_unknown_name_and_a_wrong_password_get_one_answer(client: TestClient) -> None:
    sign_up(client, "Ann")
    client.cookies.clear()
    wrong, unknown = sign_in(client, "Ann", "not the password at all"), sign_in(client, "Nobody", PASSWORD)
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json() == WRONG
    assert sorted(wrong.headers) == sorted(unknown.headers)
    assert "set-cookie" not in wrong.headers and client.get("/api/account").json()["account"] is None
    assert sign_in(client, "ann").status_code == 200  # names compare case-folded


def test_failed_sign_ins_from_one_address_wait_whatever_name_they_try(storage: Storage) -> None:
    # The server's clock stands still: the wait is exactly the first one (test_web_sign_in_refusals.py moves it on).
    with TestClient(create_app(storage, now=lambda: 1_800_000_000.0, bot_delay=0, **NO_LIMITS)) as client:
        for i in range(21):  # four guesses at each of six names: under each name's free tries
            assert sign_in(client, f"Someone {i // 4}").status_code == 401
        refused = sign_in(client, "A name never tried")
        assert refused.status_code == 429 and refused.headers["retry-after"] == "1"


def test_a_change_needs_the_sessions_csrf_token_and_this_sites_origin(client: TestClient) -> None:
    sign_up(client, "Ann")
    change = {"current": PASSWORD, "new": "a brand new passphrase"}
    for headers in ({}, {"X-CSRF-Token": "0" * 32}, {**csrf(client), "Origin": "https://evil.example"}):
        refused = client.post("/api/account/password", json=change, headers=headers)
        assert refused.status_code == 403 and refused.json()["error"] == "csrf"
        assert client.post("/api/account/sign-out", headers={k: v for k, v in headers.items()}).status_code == 403
    assert sign_in(TestClient(client.app), "Ann").status_code == 200  # the password did not change
    ok = client.post("/api/account/password", json=change, headers={**csrf(client), "Origin": "http://testserver"})
    assert ok.status_code == 200
    # Games a signed-in browser creates are changes its cookie authorises too.
    assert client.post("/api/games", json={"seats": ["open"]}).status_code == 403
    assert client.post("/api/games", json={"seats": ["open"]}, headers=csrf(client)).status_code == 201


def test_signing_in_from_another_site_is_refused(client: TestClient) -> None:
    sign_up(client, "Ann")
    client.cookies.clear()
    refused = client.post("/api/account/sign-in", json={"name": "Ann", "password": PASSWORD}, headers={"Origin": "https://evil.example"})
    assert refused.status_code == 403 and "set-cookie" not in refused.headers


def test_signing_in_again_replaces_the_session(client: TestClient) -> None:
    sign_up(client, "Ann")
    old = client.cookies.get("cantstop_session")
    assert sign_in(client, "Ann").status_code == 200
    assert client.cookies.get("cantstop_session") != old
    with TestClient(client.app, cookies={"cantstop_session": old or ""}) as stale:
        assert stale.get("/api/account").json()["account"] is None


@pytest.mark.parametrize("knob", ["session_idle", "session_longest"])
def test_an_expired_session_signs_in_nobody(storage: Storage, still_clock: Clock, knob: str) -> None:
    with app_client(storage, now=still_clock) as client:
        sign_up(client, "Ann")
        assert client.get("/api/account").json()["account"]["name"] == "Ann"
    still_clock.advance(61)
    # The same database served with shorter sessions: this one has outlived them.
    with app_client(storage, now=still_clock, **{knob: 60}) as later:
        later.cookies.update(client.cookies)
        assert later.get("/api/account").json()["account"] is None
        refused = later.post("/api/account/sign-out", headers=csrf(later))
        assert refused.status_code == 401 and refused.json()["error"] == "not_signed_in"


def test_signing_out_everywhere_ends_every_session(two: tuple[TestClient, TestClient]) -> None:
    phone, laptop = two
    sign_up(phone, "Ann")
    assert sign_in(laptop, "Ann").status_code == 200
    assert len(laptop.get("/api/account").json()["sessions"]) == 2
    assert phone.post("/api/account/sign-out-everywhere", headers=csrf(phone)).json() == {"ended": 2}
    for browser in (phone, laptop):
        assert browser.get("/api/account").json()["account"] is None
        assert browser.post("/api/account/sign-out", headers=csrf(browser)).status_code == 401


def test_changing_the_password_signs_out_the_other_sessions(two: tuple[TestClient, TestClient]) -> None:
    phone, laptop = two
    sign_up(phone, "Ann")
    sign_in(laptop, "Ann")
    new = "a brand new passphrase"
    wrong = phone.post("/api/account/password", json={"current": "not my password!", "new": new}, headers=csrf(phone))
    assert wrong.status_code == 401
    assert phone.post("/api/account/password", json={"current": PASSWORD, "new": new}, headers=csrf(phone)).json() == {"ended": 1}
    assert laptop.get("/api/account").json()["account"] is None and phone.get("/api/account").json()["account"] is not None
    assert sign_in(laptop, "Ann").status_code == 401 and sign_in(laptop, "Ann", new).status_code == 200


@pytest.mark.parametrize(("password", "why"), [
    ("short", "12 to 128"), ("x" * 129, "12 to 128"), ("Password1234", "most common"),
    ("abababababab", "different characters"), ("I am Annabel, hello", "account's name"),
])
def test_a_weak_password_is_refused_without_echoing_it(client: TestClient, password: str, why: str) -> None:
    refused = client.post("/api/account/sign-up", json={"name": "Annabel", "password": password})
    assert refused.status_code == 422 and refused.json()["error"] == "weak_password"
    assert why in refused.json()["message"] and password not in refused.text
    assert client.get("/api/account").json()["account"] is None


def test_passwords_are_in_no_log_and_no_answer(client: TestClient, caplog: pytest.LogCaptureFixture, storage: Storage) -> None:
    secret, wrong = "correct horse battery", "an incorrect password"
    caplog.set_level(logging.DEBUG)
    answers = [
        client.post("/api/account/sign-up", json={"name": "Ann", "password": secret}),
        client.post("/api/account/sign-up", json={"name": "Ann", "password": secret}),  # taken
        sign_in(client, "Ann", wrong), sign_in(client, "Ann", secret),
        client.post("/api/account/sign-in", json={"name": "Ann", "password": secret, "extra": 1}),  # refused by the model
        client.post("/api/account/sign-in", json={"name": "Ann", "password": secret * 20}),  # too long
        client.post("/api/account/delete", json={"password": wrong}, headers=csrf(client)),
    ]
    assert [a.status_code for a in answers] == [201, 409, 401, 200, 422, 422, 401]
    for text in (caplog.text, *(a.text for a in answers), *(str(a.headers) for a in answers)):
        assert secret not in text and wrong not in text
    with storage.engine.connect() as conn:  # stored only as an argon2id hash
        stored = conn.exec_driver_sql("SELECT password_hash FROM accounts").scalar_one()
    assert stored.startswith("$argon2id$") and secret not in stored


def test_a_deleted_account_signs_in_no_more_keeps_its_name_taken_and_its_games(client: TestClient) -> None:
    sign_up(client, "Ann")
    created = client.post("/api/games", json={"variant": "classic+to_win=1", "seats": ["open", "bot:random"]}, headers=csrf(client))
    game_id = created.json()["id"]
    joined = client.post(f"/api/games/{game_id}/join", json={"seat": 0, "name": "Ann"}, headers=csrf(client))
    play_out(client, game_id, joined.json()["token"])
    refused = client.post("/api/account/delete", json={"password": "not the password"}, headers=csrf(client))
    assert refused.status_code == 401
    assert client.post("/api/account/delete", json={"password": PASSWORD}, headers=csrf(client)).status_code == 204
    assert client.get("/api/account").json()["account"] is None
    assert sign_in(client, "Ann").json() == WRONG
    taken = client.post("/api/account/sign-up", json={"name": "ANN", "password": PASSWORD})
    assert taken.status_code == 409 and taken.json()["error"] == "name_taken"
    [game] = client.get("/api/finished").json()  # the game stays, its seat anonymised
    assert game["id"] == game_id and game["players"] == ["deleted player #1", "bot:random"]
    impostor = client.post(f"/api/games/{new_game(client, ['open'])}/join", json={"seat": 0, "name": "Deleted Player #1"})
    assert impostor.status_code == 422 and impostor.json()["error"] == "bad_name"


def test_passkey_ceremonies_refuse_what_does_not_verify(client: TestClient) -> None:
    refused = client.post("/api/account/passkeys/options")
    assert refused.status_code == 401 and refused.json()["error"] == "not_signed_in"
    sign_up(client, "Ann")
    options = client.post("/api/account/passkeys/options", headers=csrf(client)).json()
    assert options["options"]["rp"]["id"] == "testserver" and options["options"]["authenticatorSelection"]["residentKey"] == "required"
    forged = {"id": "AAAA", "rawId": "AAAA", "type": "public-key", "response": {"clientDataJSON": "e30", "attestationObject": "oA"}}
    bad = client.post("/api/account/passkeys", json={"handle": options["handle"], "credential": forged}, headers=csrf(client))
    assert bad.status_code == 400 and bad.json()["error"] == "passkey_refused"
    again = client.post("/api/account/passkeys", json={"handle": options["handle"], "credential": forged}, headers=csrf(client))
    assert again.status_code == 400 and "used or expired" in again.json()["message"]  # a challenge serves once
    assert client.get("/api/account").json()["passkeys"] == []
    client.cookies.clear()
    start = client.post("/api/account/passkey-sign-in/options").json()
    assert start["options"]["allowCredentials"] == []  # any passkey of this site may answer
    answer = {"id": "AAAA", "rawId": "AAAA", "type": "public-key",
              "response": {"clientDataJSON": "e30", "authenticatorData": "AA", "signature": "AA", "userHandle": "AA"}}
    unknown = client.post("/api/account/passkey-sign-in", json={"handle": start["handle"], "credential": answer})
    assert unknown.status_code == 401 and unknown.json()["error"] == "bad_credentials" and "set-cookie" not in unknown.headers


def test_an_accounts_whole_life_on_either_database(any_storage: Storage) -> None:
    with app_client(any_storage) as client, app_client(any_storage) as other:
        sign_up(client, "Ann")
        assert other.post("/api/account/sign-up", json={"name": "АNN", "password": PASSWORD}).status_code == 409
        for _ in range(6):  # past the free tries: the failures are counted in the database
            assert sign_in(other, "Ann", "wrong guess again").status_code == 401
        assert sign_in(other, "Ann").status_code == 429
        new = "a brand new passphrase"
        assert client.post("/api/account/password", json={"current": PASSWORD, "new": new}, headers=csrf(client)).status_code == 200
        assert client.post("/api/account/sign-out-everywhere", headers=csrf(client)).json() == {"ended": 1}
        assert sign_in(client, "Ann", new).status_code == 200
        assert client.post("/api/account/delete", json={"password": new}, headers=csrf(client)).status_code == 204
        assert sign_in(client, "Ann", new).json() == WRONG


def test_a_killed_server_keeps_every_acknowledged_account_and_session(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'kill.sqlite3'}"
    with Server(db) as server:
        with httpx.Client(base_url=server.url, timeout=60) as browser:
            assert browser.post("/api/account/sign-up", json={"name": "Ann", "password": PASSWORD}).status_code == 201
            cookie = browser.cookies["cantstop_session"]
        server.kill()  # SIGKILL right after the answer: nothing flushed at shutdown
        server.start()
        with httpx.Client(base_url=server.url, cookies={"cantstop_session": cookie}, timeout=60) as browser:
            assert browser.get("/api/account").json()["account"]["name"] == "Ann"  # the session survived
        with httpx.Client(base_url=server.url, timeout=60) as browser:
            assert browser.post("/api/account/sign-in", json={"name": "Ann", "password": PASSWORD}).status_code == 200


def test_a_burst_of_guesses_at_once_counts_every_one(storage: Storage) -> None:
    client = app_client(storage, sign_in_delay=60.0)
    sign_up(TestClient(client.app), "Ann")
    with client, ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda i: sign_in(client, "Ann", f"guess number {i:04}").status_code, range(24)))
    # Each try is counted before its password is checked: five free, a sixth that sets a
    # wait, and every other one refused unchecked.
    assert sorted(answers) == [401] * 6 + [429] * 18


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a thread's own nice value is Linux's")
def test_passwords_are_hashed_at_a_lower_priority_than_the_games() -> None:
    """argon2id's threads yield the cores to the games' threads: a burst of sign-ins makes
    sign-ins slower while the cores are busy, not the moves."""
    from cantstop.web.identity.passwords import HASHING, HASHING_NICE

    def niceness() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    here = os.getpriority(os.PRIO_PROCESS, 0)
    hashing = HASHING.submit(niceness).result()
    assert hashing == min(19, here + HASHING_NICE) and (hashing > here or here == 19)
    assert niceness() == here  # the thread that asked is as it was


def test_a_session_in_use_stays_alive_and_an_expired_one_is_removed(storage: Storage) -> None:
    """A session's last use is written down (at most once a minute), so the idle limit counts
    from it; a session past a limit signs in nobody and is deleted; a deleted account's
    sessions sign in nobody."""
    from datetime import timedelta

    from sqlalchemy import select, update

    from cantstop.web.db.rows import now
    from cantstop.web.identity.accounts import Accounts
    from cantstop.web.identity.rows import SessionRow
    from cantstop.web.identity.sessions import Sessions

    accounts = Accounts(storage)
    ann = accounts.create("Ann", None)
    day = timedelta(days=1)

    def lasting(idle: timedelta, longest: timedelta = day) -> Sessions:
        return Sessions(storage, idle, longest)

    token = lasting(day).open(ann.id, "203.0.113.9")

    def seen(at: timedelta | None = None) -> Any:
        with storage.session() as s:
            if at is not None:
                s.execute(update(SessionRow).values(seen=now() - at))
            return s.scalar(select(SessionRow.seen))

    seen(timedelta(seconds=90))
    found = lasting(timedelta(seconds=120), day).signed_in(token)
    assert found is not None and found.account.name == "Ann"
    assert now() - seen() < timedelta(seconds=5)  # used now: written down
    assert lasting(timedelta(seconds=30), day).signed_in(token) is not None  # idle counts from that use
    seen(timedelta(seconds=20))
    assert lasting(timedelta(seconds=120), day).signed_in(token) is not None
    assert now() - seen() > timedelta(seconds=15)  # used a moment ago: not written again yet
    assert lasting(timedelta(seconds=10), day).signed_in(token) is None  # idle too long
    assert seen() is None  # and gone
    token = lasting(day).open(ann.id, "203.0.113.9")
    assert lasting(day, timedelta(0)).signed_in(token) is None and seen() is None  # older than the longest
    token = lasting(day).open(ann.id, "203.0.113.9")
    accounts.delete(ann.id)
    assert lasting(day, day).signed_in(token) is None
