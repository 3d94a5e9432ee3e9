"""The holes a hostile client found in accounts, each tried as it would try it (raw requests,
forged or missing headers, a challenge answered elsewhere, a NUL in a path), on SQLite and
PostgreSQL alike."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from account_helpers import PASSWORD, Browser, csrf, post, sign_up, two_processes
from fastapi.testclient import TestClient
from web_helpers import NO_LIMITS

from cantstop.web.app import create_app
from cantstop.web.db.storage import Storage


@contextmanager
def browsers(storage: Storage, count: int) -> Iterator[list[Browser]]:
    """`count` browsers with their own cookies on one server."""
    with TestClient(create_app(storage, bot_delay=0, **NO_LIMITS)) as client:
        yield [Browser(client) for _ in range(count)]


def joined_game(ann: Browser, bob: Browser) -> tuple[str, dict[str, Any]]:
    """A rated game Ann and Bob joined from their browsers (each now holds a seat cookie too), started."""
    created = post(ann, "/api/games", {"seats": ["open", "open"], "rated": True})  # type: ignore[arg-type]
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    for seat, who in enumerate((ann, bob)):
        assert post(who, f"/api/games/{game_id}/join", {"seat": seat}).status_code == 200  # type: ignore[arg-type]
        assert who.cookies.get(f"cantstop_{game_id}")
    game = ann.get(f"/api/games/{game_id}").json()
    assert game["status"] == "playing"
    return game_id, game


# ------------------------------------------------------------------ the seat cookie and CSRF
def test_an_accounts_seat_cookie_moves_and_resigns_only_with_the_csrf_token(any_storage: Storage) -> None:
    """Both cookies go with any request the browser makes (the seat's and the session's):
    without the session's CSRF token, the seat cookie moves nothing and resigns nothing."""
    with browsers(any_storage, 2) as (ann, bob):
        sign_up(ann, "Ann")  # type: ignore[arg-type]
        sign_up(bob, "Bob")  # type: ignore[arg-type]
        game_id, game = joined_game(ann, bob)
        mover = (ann, bob)[game["state"]["player"]]
        move = {"version": game["version"], "action": "roll"}
        for headers in ({}, {"X-CSRF-Token": "0" * 32}):
            refused = mover.post(f"/api/games/{game_id}/actions", json=move, headers=headers)
            assert refused.status_code == 403 and refused.json()["error"] == "csrf", refused.text
            refused = mover.post(f"/api/games/{game_id}/resign", headers=headers)
            assert refused.status_code == 403 and refused.json()["error"] == "csrf", refused.text
            refused = mover.post(f"/api/games/{game_id}/seat-link", headers=headers)
            assert refused.status_code == 403 and refused.json()["error"] == "csrf", refused.text
        assert mover.get(f"/api/games/{game_id}").json()["version"] == game["version"]  # nothing moved
        assert mover.post(f"/api/games/{game_id}/actions", json=move, headers=csrf(mover)).status_code == 200  # type: ignore[arg-type]


def test_an_accounts_seat_cookie_signed_out_moves_nothing(any_storage: Storage) -> None:
    """Signed out, the account's seat cookie alone has no CSRF token to go with it: it moves
    nothing until its owner signs in again (a bearer token, which no other page can send, still does)."""
    with browsers(any_storage, 2) as (ann, bob):
        sign_up(ann, "Ann")  # type: ignore[arg-type]
        sign_up(bob, "Bob")  # type: ignore[arg-type]
        game_id, game = joined_game(ann, bob)
        mover = (ann, bob)[game["state"]["player"]]
        assert mover.post("/api/account/sign-out", headers=csrf(mover)).status_code == 204  # type: ignore[arg-type]
        refused = mover.post(f"/api/games/{game_id}/actions", json={"version": game["version"], "action": "roll"})
        assert refused.status_code == 403 and refused.json()["error"] == "csrf"


def test_a_guests_seat_cookie_still_moves_from_this_sites_pages(any_storage: Storage) -> None:
    """A guest has no session, so no CSRF token: its seat cookie (SameSite=Strict) moves from
    this site's own pages, and a browser that says it comes from elsewhere is refused."""
    with browsers(any_storage, 1) as (guest,):
        game_id = guest.post("/api/games", json={"seats": ["open", "bot:random"]}).json()["id"]
        assert guest.post(f"/api/games/{game_id}/join", json={"seat": 0, "name": "Gus"}).status_code == 200
        game = guest.get(f"/api/games/{game_id}").json()
        while game["state"]["player"] != 0:
            game = guest.get(f"/api/games/{game_id}").json()
        move = {"version": game["version"], "action": "roll"}
        refused = guest.post(f"/api/games/{game_id}/actions", json=move, headers={"Origin": "https://evil.example"})
        assert refused.status_code == 403 and refused.json()["error"] == "csrf"
        assert guest.post(f"/api/games/{game_id}/actions", json=move, headers={"Origin": "http://testserver"}).status_code == 200


# ------------------------------------------------------------- the passkey sign-in challenge
def test_a_passkey_sign_in_challenge_is_answered_only_by_the_client_that_asked(any_storage: Storage) -> None:
    """The handle alone is not enough: a client other than the one the options went to (no
    cookie of that ceremony, or another one's) finds no challenge, and the asker keeps it."""
    with browsers(any_storage, 2) as (asker, other):
        start = asker.post("/api/account/passkey-sign-in/options")
        assert start.status_code == 200
        cookie = next(c for c in start.headers.get_list("set-cookie") if c.startswith("cantstop_passkey="))
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/api/account" in cookie
        answer = {"id": "AAAA", "rawId": "AAAA", "type": "public-key",
                  "response": {"clientDataJSON": "e30", "authenticatorData": "AA", "signature": "AA", "userHandle": "AA"}}
        other.post("/api/account/passkey-sign-in/options")  # a ceremony of its own: its cookie is not the asker's
        stolen = other.post("/api/account/passkey-sign-in", json={"handle": start.json()["handle"], "credential": answer})
        assert stolen.status_code == 401 and stolen.json()["error"] == "bad_credentials"
        assert "challenge" in stolen.json()["message"]


# ------------------------------------------------------------------------- a NUL in an id
@pytest.mark.parametrize("credential_id", ["A\x00B", "AA%00", "not base64url!", "A" * 1500])
def test_a_passkey_id_that_no_passkey_has_is_a_4xx_on_either_database(any_storage: Storage, credential_id: str) -> None:
    with browsers(any_storage, 1) as (ann,):
        sign_up(ann, "Ann")  # type: ignore[arg-type]
        removed = ann.delete(f"/api/account/passkeys/{credential_id.replace(chr(0), '%00')}", headers=csrf(ann))  # type: ignore[arg-type]
        assert removed.status_code == 400 and removed.json()["error"] == "passkey_refused", removed.text
        ann.cookies.clear()
        start = ann.post("/api/account/passkey-sign-in/options").json()
        answer = {"id": credential_id, "rawId": credential_id, "type": "public-key",
                  "response": {"clientDataJSON": "e30", "authenticatorData": "AA", "signature": "AA", "userHandle": "AA"}}
        signed = ann.post("/api/account/passkey-sign-in", json={"handle": start["handle"], "credential": answer})
        assert 400 <= signed.status_code < 500 and signed.json()["error"] in ("bad_credentials", "passkey_refused"), signed.text


# -------------------------------------------------------------------------- the webhook guard
@pytest.mark.parametrize("host", ["[::127.0.0.1]", "[64:ff9b::7f00:1]", "[2002:7f00:1::]", "[64:ff9b::a9fe:a9fe]"])
def test_a_webhook_at_an_ipv6_form_of_a_private_address_is_not_stored(any_storage: Storage, host: str) -> None:
    with browsers(any_storage, 1) as (ann,):
        sign_up(ann, "Ann")  # type: ignore[arg-type]
        refused = ann.put("/api/account/webhook", json={"url": f"https://{host}/hook"}, headers=csrf(ann))  # type: ignore[arg-type]
        assert refused.status_code == 422 and refused.json()["error"] == "bad_webhook", refused.text
        assert "IPv6 address of the" in refused.json()["message"]
        assert ann.get("/api/account").json()["webhook"] is None



# ---------------------------------------------------------------------- names that look alike
@pytest.mark.parametrize("twin", ["Ali\u0307ce", "ali\u0307ce", "Alı\u0307ce"])
def test_a_dot_above_an_i_does_not_make_another_name(any_storage: Storage, twin: str) -> None:
    """An i shows its dot already: a combining dot above it (or a dotless i given one) reads as
    the name without it, so it is taken."""
    with browsers(any_storage, 2) as (alice, impostor):
        sign_up(alice, "Alice")  # type: ignore[arg-type]
        taken = impostor.post("/api/account/sign-up", json={"name": twin, "password": "seven dice on the table"})
        assert taken.status_code == 409 and taken.json()["error"] == "name_taken", taken.text
        game_id = impostor.post("/api/games", json={"seats": ["open", "bot:random"]}).json()["id"]
        guest = impostor.post(f"/api/games/{game_id}/join", json={"seat": 0, "name": twin})
        assert guest.status_code == 409 and guest.json()["error"] == "name_taken"


# ---------------------------------------------------------------------- chat that shows nothing
@pytest.mark.parametrize("blank", ["\u3164", "\u115f", "\u2800", "\u034f", "\u17b4", "\u3164\u3164\u3164", "\u2800 \u2800", "a\u3164b"])
def test_a_chat_line_holding_a_letter_that_shows_as_nothing_is_refused(any_storage: Storage, blank: str) -> None:
    with browsers(any_storage, 1) as (guest,):
        game_id = guest.post("/api/games", json={"seats": ["open", "bot:random"]}).json()["id"]
        with guest.websocket_connect(f"/ws/games/{game_id}") as ws:
            assert ws.receive_json()["type"] == "hello"
            ws.send_json({"type": "chat", "text": blank})
            refused = ws.receive_json()
            assert refused["type"] == "error" and refused["error"] == "bad_chat", refused
            assert f"U+{ord(blank.strip('ab ')[0]):04X}" in refused["message"]
            ws.send_json({"type": "chat", "text": "\u2764\ufe0f well played"})  # an emoji's presentation selector is no blank
            heard = ws.receive_json()
            assert heard["type"] == "chat" and heard["text"] == "\u2764\ufe0f well played"


# ------------------------------------------------------------------------ a deleted account
def delete_account(who: Browser) -> None:
    assert who.post("/api/account/delete", json={"password": PASSWORD}, headers=csrf(who)).status_code == 204  # type: ignore[arg-type]


def test_a_deleted_accounts_seats_resign_and_their_tokens_hold_nothing(any_storage: Storage) -> None:
    """Deleting an account resigns its seat in a rated game under way (the other player wins,
    rated as a resignation, at once rather than when the clock gives up on it), opens its seat
    in a game still waiting, and its seat tokens move nothing any more."""
    with browsers(any_storage, 3) as (ann, bob, cy):
        for who, name in ((ann, "Ann"), (bob, "Bob"), (cy, "Cy")):
            sign_up(who, name)  # type: ignore[arg-type]
        game_id, _ = joined_game(ann, bob)
        token = bob.cookies.get(f"cantstop_{game_id}")
        waiting = post(cy, "/api/games", {"seats": ["open", "open", "open"], "rated": True}).json()["id"]  # type: ignore[arg-type]
        assert post(bob, f"/api/games/{waiting}/join", {"seat": 1}).status_code == 200  # type: ignore[arg-type]
        delete_account(bob)
        game = ann.get(f"/api/games/{game_id}").json()
        assert game["status"] == "over" and game["state"]["player"] == 0  # Ann won
        summary = ann.get(f"/api/games/{game_id}/summary").json()
        assert summary["winner"] == 0 and summary["seats"][0]["rating"] is not None, summary  # rated, as a resignation
        program = Browser(ann.client)  # a client that holds nothing but the old token
        moved = program.post(f"/api/games/{game_id}/actions", json={"version": game["version"], "action": "roll"},
                             headers={"Authorization": f"Bearer {token}"})
        assert moved.status_code == 403 and moved.json()["error"] == "bad_token"
        assert cy.get(f"/api/games/{waiting}").json()["seats"][1]["kind"] == "open"


def told(browser: Browser, game_id: str) -> str:
    """Everything a client reads of a finished game that names its players: log, replay, record."""
    log = browser.get(f"/api/games/{game_id}").json()["log"]
    replay = browser.get(f"/api/games/{game_id}/replay").json()["frames"]
    record = browser.get(f"/api/games/{game_id}/record").text
    return " ".join([*(e["text"] for e in log), *(e["text"] for f in replay for e in f["log"]), record])


def test_a_deleted_accounts_name_leaves_finished_games_at_once(any_storage: Storage) -> None:
    """The log, replay and record of a finished game held in memory say "deleted player #N"
    as soon as the account is deleted, not after the server restarts."""
    with browsers(any_storage, 2) as (ann, bob):
        sign_up(ann, "Ann")  # type: ignore[arg-type]
        sign_up(bob, "Bob")  # type: ignore[arg-type]
        game_id, _ = joined_game(ann, bob)
        assert bob.post(f"/api/games/{game_id}/resign", headers=csrf(bob)).status_code == 200  # type: ignore[arg-type]
        assert "Bob" in told(ann, game_id)  # the game is held here now, told with Bob's name
        delete_account(bob)
        text = told(ann, game_id)
        assert "Bob" not in text and "deleted player #2" in text


@pytest.mark.postgres
def test_a_deleted_accounts_name_leaves_the_games_another_process_holds() -> None:
    """Another server process holding the finished game hears of the deletion and tells the
    game again under the new name."""
    with two_processes() as (here, there):
        ann, bob, watcher = Browser(here), Browser(here), Browser(there)
        sign_up(ann, "Ann")  # type: ignore[arg-type]
        sign_up(bob, "Bob")  # type: ignore[arg-type]
        game_id, _ = joined_game(ann, bob)
        assert bob.post(f"/api/games/{game_id}/resign", headers=csrf(bob)).status_code == 200  # type: ignore[arg-type]
        assert "Bob" in told(watcher, game_id)  # held by the other process
        delete_account(bob)
        for _ in range(2000):  # until its listener hears the notice (each look is a few requests)
            text = told(watcher, game_id)
            if "Bob" not in text:
                break
        assert "Bob" not in text and "deleted player #2" in text
