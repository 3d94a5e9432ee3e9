"""The refusals of signing in that nothing drove before: a passkey whose answer does not
verify (signature, origin, sign count), a challenge past its five minutes, the throttle on
confirming the current password, and two sign-ins racing for a throttle's first row on
PostgreSQL. Time is the server's clock, moved by the test; nothing sleeps."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import pytest
from account_helpers import PASSWORD, Browser, csrf, sign_up
from authenticator import Authenticator
from fastapi.testclient import TestClient
from sqlalchemy import event
from web_helpers import NO_LIMITS, Clock, pg_schema, postgres_url

from cantstop.web.app import create_app
from cantstop.web.db.storage import Storage
from cantstop.web.identity.accounts import digest
from cantstop.web.identity.passkeys import CHALLENGE_LASTS
from cantstop.web.identity.rows import FailureRow
from cantstop.web.identity.throttle import Throttle

START = 1_800_000_000.0  # the server's clock, seconds since the epoch, when a test begins


@contextmanager
def server(storage: Storage, clock: Clock, **knobs: Any) -> Iterator[TestClient]:
    with TestClient(create_app(storage, now=clock, bot_delay=0, **{**NO_LIMITS, **knobs})) as client:
        yield client


def with_passkey(client: TestClient) -> tuple[Browser, Authenticator]:
    """Ann, signed up with a passkey made by a software authenticator, then signed out."""
    ann, key = Browser(client), Authenticator()
    sign_up(ann, "Ann")  # type: ignore[arg-type]
    options = ann.post("/api/account/passkeys/options", headers=csrf(ann)).json()  # type: ignore[arg-type]
    added = ann.post("/api/account/passkeys", json={"handle": options["handle"], "credential": key.register(options["options"])},
                     headers=csrf(ann))  # type: ignore[arg-type]
    assert added.status_code == 201, added.text
    assert ann.post("/api/account/sign-out", headers=csrf(ann)).status_code == 204  # type: ignore[arg-type]
    return ann, key


def passkey_sign_in(who: Browser, key: Authenticator, **spoil: Any) -> Any:
    start = who.post("/api/account/passkey-sign-in/options").json()
    return who.post("/api/account/passkey-sign-in", json={"handle": start["handle"], "credential": key.sign_in(start["options"], **spoil)})


# ------------------------------------------------------------------ passkeys that do not verify
def test_a_registered_passkey_signs_in_and_its_sign_count_moves_on(any_storage: Storage) -> None:
    with server(any_storage, Clock(START)) as client:
        ann, key = with_passkey(client)
        signed = passkey_sign_in(ann, key)
        assert signed.status_code == 200 and signed.json()["account"]["name"] == "Ann", signed.text
        assert ann.get("/api/account").json()["account"]["name"] == "Ann"


@pytest.mark.parametrize(("spoil", "says"), [
    ({"forge": True}, "signature"),
    ({"origin": "https://evil.example"}, "origin"),
    ({"count": 1}, "sign count"),  # no more than the count stored at registration: a cloned key, or a replay
])
def test_a_passkey_answer_that_does_not_verify_signs_in_nobody(any_storage: Storage, spoil: dict[str, Any], says: str) -> None:
    with server(any_storage, Clock(START)) as client:
        ann, key = with_passkey(client)
        refused = passkey_sign_in(ann, key, **spoil)
        assert refused.status_code == 400 and refused.json()["error"] == "passkey_refused", refused.text
        assert says in refused.json()["message"].lower()
        assert "cantstop_session" not in refused.headers.get("set-cookie", "")
        assert ann.get("/api/account").json()["account"] is None


def test_failed_passkey_answers_count_against_the_address(any_storage: Storage) -> None:
    """A passkey's account is known only once its answer checks out: failures count per
    address, 20 free, and past them the next try waits."""
    clock = Clock(START)
    with server(any_storage, clock) as client:
        ann, key = with_passkey(client)
        for _ in range(21):
            assert passkey_sign_in(ann, key, forge=True).status_code == 400
        throttled = passkey_sign_in(ann, key)
        assert throttled.status_code == 429 and throttled.headers["retry-after"] == "1"
        clock.advance(1)
        assert passkey_sign_in(ann, key).status_code == 200


# ------------------------------------------------------------------------- expired challenges
def test_a_challenge_past_its_time_is_refused_for_a_new_passkey_and_a_sign_in(any_storage: Storage) -> None:
    clock = Clock(START)
    late = CHALLENGE_LASTS.total_seconds() + 1
    with server(any_storage, clock) as client:
        ann, key = with_passkey(client)
        start = ann.post("/api/account/passkey-sign-in/options").json()
        clock.advance(late)
        refused = ann.post("/api/account/passkey-sign-in", json={"handle": start["handle"], "credential": key.sign_in(start["options"])})
        assert refused.status_code == 401 and "expired" in refused.json()["message"]
        assert passkey_sign_in(ann, key).status_code == 200  # a fresh one, in time, signs in
        other = Authenticator(credential_id=b"another device's key")
        options = ann.post("/api/account/passkeys/options", headers=csrf(ann)).json()  # type: ignore[arg-type]
        clock.advance(late)
        answer = {"handle": options["handle"], "credential": other.register(options["options"])}
        stale = ann.post("/api/account/passkeys", json=answer, headers=csrf(ann))  # type: ignore[arg-type]
        assert stale.status_code == 400 and "used or expired" in stale.json()["message"]
        assert len(ann.get("/api/account").json()["passkeys"]) == 1


# ------------------------------------------------------------------- the sign-in throttle's clock
def test_failed_sign_ins_wait_twice_as_long_each_time(any_storage: Storage) -> None:
    """Past the name's five free failures, each failure doubles the wait (here 2 s, then 4 s),
    counted on the server's clock: exact, whatever the machine's load."""
    clock = Clock(START)
    with server(any_storage, clock, sign_in_delay=2.0) as client:
        sign_up(TestClient(client.app), "Ann")
        guesser = Browser(client)
        wrong = {"name": "Ann", "password": "not the password at all"}
        for _ in range(5):
            assert guesser.post("/api/account/sign-in", json=wrong).status_code == 401
        waits = []
        for _ in range(2):
            assert guesser.post("/api/account/sign-in", json=wrong).status_code == 401
            refused = guesser.post("/api/account/sign-in", json={"name": "Ann", "password": PASSWORD})
            assert refused.status_code == 429 and refused.json()["error"] == "sign_in_throttled"
            assert refused.headers["retry-after"] == str(refused.json()["retry_after"])
            waits.append(refused.json()["retry_after"])
            clock.advance(waits[-1] - 0.5)
            assert guesser.post("/api/account/sign-in", json=wrong).status_code == 429  # not yet
            clock.advance(0.5)
        assert waits == [2, 4]
        assert guesser.post("/api/account/sign-in", json={"name": "Ann", "password": PASSWORD}).status_code == 200


def test_confirming_the_current_password_is_throttled_per_account_not_per_name(any_storage: Storage) -> None:
    """Wrong current passwords (changing the password, deleting the account) count against
    the account: five free, then the next waits; strangers guessing at the name meanwhile
    cannot stop its owner, and the owner's guesses do not lock the name's sign-in."""
    clock = Clock(START)
    with server(any_storage, clock) as client:
        ann = Browser(client)
        sign_up(ann, "Ann")  # type: ignore[arg-type]
        change = {"current": "not the password at all", "new": "a brand new passphrase"}
        for _ in range(6):
            wrong = ann.post("/api/account/password", json=change, headers=csrf(ann))  # type: ignore[arg-type]
            assert wrong.status_code == 401 and wrong.json()["error"] == "bad_credentials"
        refused = ann.post("/api/account/password", json={**change, "current": PASSWORD}, headers=csrf(ann))  # type: ignore[arg-type]
        assert refused.status_code == 429 and refused.headers["retry-after"] == "1"
        deleting = ann.post("/api/account/delete", json={"password": PASSWORD}, headers=csrf(ann))  # type: ignore[arg-type]
        assert deleting.status_code == 429  # the same count guards deleting
        assert Browser(client).post("/api/account/sign-in", json={"name": "Ann", "password": PASSWORD}).status_code == 200
        clock.advance(1)
        changed = ann.post("/api/account/password", json={**change, "current": PASSWORD}, headers=csrf(ann))  # type: ignore[arg-type]
        assert changed.status_code == 200, changed.text


# ------------------------------------------------------- two sign-ins racing on PostgreSQL
@pytest.mark.postgres
def test_two_sign_ins_making_a_keys_first_row_at_once_both_count() -> None:
    """Two tries at a name nobody has tried: both look for its row and find none, both insert
    it, and the second insert fails on the key; that try is made again and counts too.
    (SQLite takes one writer at a time, so there two tries never both find no row.)"""
    with pg_schema(postgres_url()) as url:
        storage = Storage(url)
        storage.migrate()
        try:
            race(storage)
        finally:
            storage.close()


def race(any_storage: Storage) -> None:
    throttle = Throttle(any_storage, 1.0)
    both_looked = threading.Barrier(2, timeout=30)
    looked: set[int] = set()

    @event.listens_for(any_storage.engine, "after_cursor_execute")
    def wait_for_the_other(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        me = threading.get_ident()
        if "sign_in_failures" in statement and "FOR UPDATE" in statement and me not in looked:
            looked.add(me)
            both_looked.wait()  # neither inserts before both have looked

    try:
        with ThreadPoolExecutor(2) as pool:
            waits = list(pool.map(lambda _: throttle.attempt({"name someone": 5}), range(2)))
    finally:
        event.remove(any_storage.engine, "after_cursor_execute", wait_for_the_other)
    assert waits == [0.0, 0.0] and len(looked) == 2
    with any_storage.session() as s:
        row = s.get(FailureRow, digest("name someone"))
        assert row is not None and row.failures == 2


def test_a_passkey_answer_sent_again_signs_in_nobody(any_storage: Storage) -> None:
    """A challenge serves once: the very answer that signed in, sent again (a replay), is refused."""
    with server(any_storage, Clock(START)) as client:
        ann, key = with_passkey(client)
        start = ann.post("/api/account/passkey-sign-in/options").json()
        answer = {"handle": start["handle"], "credential": key.sign_in(start["options"])}
        assert ann.post("/api/account/passkey-sign-in", json=answer).status_code == 200
        replayed = ann.post("/api/account/passkey-sign-in", json=answer)
        assert replayed.status_code == 401 and replayed.json()["error"] == "bad_credentials"


def test_a_forged_forwarded_address_does_not_escape_the_throttle(any_storage: Storage) -> None:
    """X-Forwarded-For counts only from a trusted proxy: a client that makes one up for each
    guess is still counted by its own address."""
    with server(any_storage, Clock(START)) as client:
        guesser = Browser(client)
        for i in range(21):
            forged = {"X-Forwarded-For": f"198.51.100.{i}"}
            assert guesser.post("/api/account/sign-in", json={"name": f"Someone {i // 4}", "password": "a wrong guess"},
                                headers=forged).status_code == 401
        refused = guesser.post("/api/account/sign-in", json={"name": "Nobody yet", "password": "a wrong guess"},
                               headers={"X-Forwarded-For": "203.0.113.77"})
        assert refused.status_code == 429
