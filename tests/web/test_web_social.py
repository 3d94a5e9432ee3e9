"""Friends, blocks and reports: following an account (who of them is online, what they play),
blocking one (its chat lines kept from you in every game, now and after), reporting a chat line
or a player; and every refusal as a hostile client would meet it, with nothing stored."""

from __future__ import annotations

from typing import Any

import pytest
from account_helpers import PASSWORD, Browser, csrf, people, post, sign_in, sign_up, two_processes
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from web_helpers import until

from cantstop.web.db.storage import Storage
from cantstop.web.social.rows import BlockRow, FollowRow, ReportRow


def delete(client: Any, path: str) -> Any:
    return client.delete(path, headers=csrf(client))


def count(storage: Storage, row: Any) -> int:
    with storage.session() as s:
        return int(s.scalar(select(func.count()).select_from(row)) or 0)


def test_following_shows_who_is_online_and_what_they_play(any_storage: Storage) -> None:
    with people(any_storage, "Ann", "Bob", "Cy") as (ann, bob, _):
        for name in ("Bob", "cy"):  # names as typed: compared as accounts' are
            assert post(ann, "/api/social/follows", {"name": name}).status_code == 204
        assert post(ann, "/api/social/follows", {"name": "Bob"}).status_code == 204  # again: nothing changes
        made = post(bob, "/api/games", {"seats": ["open", "bot:random"], "take": [{"seat": 0}], "clock": 86400})
        game_id = made.json()["id"]
        friends = ann.get("/api/social").json()
        assert [(f["name"], f["online"]) for f in friends["following"]] == [("Bob", True), ("Cy", True)]  # both just signed up
        assert [g["id"] for g in friends["following"][0]["playing"]] == [game_id] and friends["following"][1]["playing"] == []
        assert friends["blocked"] == [] and friends["online_within"] == 300
        assert ann.get("/api/social/with/Bob").json() == {"name": "Bob", "you": False, "following": True, "blocking": False}
        assert ann.get("/api/social/with/Ann").json()["you"] is True
        assert bob.get("/api/social").json()["following"] == []  # following is one way
        assert delete(ann, "/api/social/follows/Bob").status_code == 204
        assert [f["name"] for f in ann.get("/api/social").json()["following"]] == ["Cy"]
        assert count(any_storage, FollowRow) == 1


@pytest.mark.parametrize(("name", "status", "error", "says"), [
    ("Ann", 422, "bad_name", "name: Ann is you"),
    ("Nobody", 404, "no_account", "name: no account is called 'Nobody'"),
    ("bad\x00name", 404, "no_account", "name: no account is called"),
    ("x" * 41, 422, "bad_request", "name"),
])
def test_following_a_name_that_is_no_one_else_is_refused_and_nothing_is_stored(storage: Storage, name: str, status: int, error: str, says: str) -> None:
    with people(storage, "Ann") as (ann,):
        for path in ("/api/social/follows", "/api/social/blocks"):
            refused = post(ann, path, {"name": name})
            assert (refused.status_code, refused.json()["error"]) == (status, error) and says in refused.json()["message"]
        assert count(storage, FollowRow) == count(storage, BlockRow) == 0


def test_a_deleted_or_closed_account_cannot_be_followed_and_a_guest_or_a_forged_request_changes_nothing(storage: Storage) -> None:
    with people(storage, "Ann", "Bob", "Cy") as (ann, bob, _):
        assert post(bob, "/api/account/delete", {"password": PASSWORD}).status_code == 204
        gone = post(ann, "/api/social/follows", {"name": "Bob"})
        assert gone.status_code == 404 and gone.json()["error"] == "no_account"
        guest = TestClient(ann.client.app)
        assert guest.post("/api/social/follows", json={"name": "Cy"}).status_code == 401
        assert guest.get("/api/social").status_code == 401
        forged = ann.post("/api/social/follows", json={"name": "Cy"})  # the session cookie without its CSRF token
        assert forged.status_code == 403 and forged.json()["error"] == "csrf"
        other_site = ann.post("/api/social/blocks", json={"name": "Cy"}, headers={**csrf(ann), "origin": "https://evil.example"})
        assert other_site.status_code == 403 and other_site.json()["error"] == "csrf"
        assert count(storage, FollowRow) == count(storage, BlockRow) == 0


def test_blocking_ends_following_both_ways_and_stops_following_again(storage: Storage) -> None:
    with people(storage, "Ann", "Mallory") as (ann, mallory):
        post(ann, "/api/social/follows", {"name": "Mallory"})
        post(mallory, "/api/social/follows", {"name": "Ann"})
        assert post(ann, "/api/social/blocks", {"name": "Mallory"}).status_code == 204
        assert count(storage, FollowRow) == 0
        for who, other in ((mallory, "Ann"), (ann, "Mallory")):  # neither may follow the other now
            refused = post(who, "/api/social/follows", {"name": other})
            assert refused.status_code == 403 and refused.json()["error"] == "blocked"
        assert [b["name"] for b in ann.get("/api/social").json()["blocked"]] == ["Mallory"]
        assert mallory.get("/api/social").json()["blocked"] == []  # the blocked one is not told
        assert ann.get("/api/social/with/Mallory").json()["blocking"] is True
        assert delete(ann, "/api/social/blocks/Mallory").status_code == 204
        assert post(mallory, "/api/social/follows", {"name": "Ann"}).status_code == 204


def test_a_blocked_accounts_chat_is_kept_from_the_account_that_blocks_it(storage: Storage) -> None:
    """Ann blocks Mallory, then watches Mallory's game with Bob: Mallory's lines, said before
    and after, never reach Ann (hello, live, and a block made while she watches); Bob hears all."""
    with people(storage, "Ann", "Mallory", "Bob") as (ann, mallory, bob):
        made = post(mallory, "/api/games", {"seats": ["open", "open"], "take": [{"seat": 0}]})
        game_id = made.json()["id"]
        assert post(bob, f"/api/games/{game_id}/join", {"seat": 1}).status_code == 200
        url = f"/ws/games/{game_id}"
        with mallory.websocket_connect(url) as m_ws:
            until(m_ws, "hello")
            m_ws.send_json({"type": "chat", "text": "before the block"})
            until(m_ws, "chat")
        assert post(ann, "/api/social/blocks", {"name": "Mallory"}).status_code == 204
        with mallory.websocket_connect(url) as m_ws, bob.websocket_connect(url) as b_ws, ann.websocket_connect(url) as a_ws:
            assert [m["text"] for m in until(a_ws, "hello")["chat"]["messages"]] == []
            assert [m["text"] for m in until(b_ws, "hello")["chat"]["messages"]] == ["before the block"]
            until(m_ws, "hello")
            m_ws.send_json({"type": "chat", "text": "you cannot hear me"})
            assert until(b_ws, "chat")["text"] == "you cannot hear me"  # said, and sent to everyone else
            b_ws.send_json({"type": "chat", "text": "but you hear me"})
            assert until(b_ws, "chat")["text"] == "but you hear me"
            assert until(a_ws, "chat")["text"] == "but you hear me"  # Mallory's line never came
            # Ann unblocks while watching: Mallory's next line reaches her at once.
            assert delete(ann, "/api/social/blocks/Mallory").status_code == 204
            m_ws.send_json({"type": "chat", "text": "now you can"})
            assert until(a_ws, "chat")["text"] == "now you can"
            assert post(ann, "/api/social/blocks", {"name": "mallory"}).status_code == 204  # and blocks again
            m_ws.send_json({"type": "chat", "text": "gone again"})
            assert [until(b_ws, "chat")["text"] for _ in range(2)] == ["now you can", "gone again"]
            b_ws.send_json({"type": "chat", "text": "still here"})
            assert until(a_ws, "chat")["text"] == "still here"


def test_a_spectators_line_keeps_its_author_for_blocks_but_is_never_renamed(storage: Storage) -> None:
    """A signed-in spectator's lines are known by its account (so that a block hides them) and
    stay under its spectator label, even once the account is deleted."""
    with people(storage, "Ann", "Mallory") as (ann, mallory):
        game_id = post(ann, "/api/games", {"seats": ["open", "bot:random"], "take": [{"seat": 0}], "clock": 86400}).json()["id"]
        post(ann, "/api/social/blocks", {"name": "Mallory"})
        url = f"/ws/games/{game_id}"
        with ann.websocket_connect(url) as a_ws, mallory.websocket_connect(url) as m_ws:
            until(a_ws, "hello"), until(m_ws, "hello")
            m_ws.send_json({"type": "chat", "text": "from the stands"})
            label = until(m_ws, "chat")["name"]
            a_ws.send_json({"type": "chat", "text": "hello"})
            assert until(a_ws, "chat")["text"] == "hello"
        assert post(mallory, "/api/account/delete", {"password": PASSWORD}).status_code == 204
        with TestClient(ann.client.app).websocket_connect(url) as later:
            lines = until(later, "hello")["chat"]["messages"]
        assert [(m["name"], m["text"]) for m in lines] == [(label, "from the stands"), ("Ann", "hello")]


def test_a_chat_line_or_a_player_is_reported_and_the_moderators_list_it(any_storage: Storage) -> None:
    from cantstop.web.social.reports import Reports

    with people(any_storage, "Ann", "Mallory") as (ann, mallory):
        game_id = post(mallory, "/api/games", {"seats": ["open", "open"], "take": [{"seat": 0}]}).json()["id"]
        with mallory.websocket_connect(f"/ws/games/{game_id}") as ws:
            until(ws, "hello")
            ws.send_json({"type": "chat", "text": "something rude"})
            line = until(ws, "chat")
        made = post(ann, "/api/social/reports", {"message": line["id"], "reason": "  rude   to everyone "})
        assert made.status_code == 201
        again = post(ann, "/api/social/reports", {"message": line["id"], "reason": "still rude"})
        assert again.status_code == 409 and again.json()["error"] == "reported"
        own = post(mallory, "/api/social/reports", {"message": line["id"], "reason": "mine"})
        assert own.status_code == 422 and own.json()["error"] == "own_message"
        player = post(mallory, "/api/social/reports", {"player": "ann", "reason": "reports me"})
        assert player.status_code == 201
        (first, second) = Reports(any_storage).listed()
        assert (first.id, first.reporter, first.name, first.account, first.game_id, first.text, first.reason) == (
            made.json()["id"], "Ann", "Mallory", "Mallory", game_id, "something rude", "rude to everyone")
        assert (second.reporter, second.name, second.message_id, second.text) == ("Mallory", "Ann", None, None)


@pytest.mark.parametrize(("body", "status", "error", "says"), [
    ({"message": 999, "reason": "rude"}, 404, "no_message", "message: there is no chat message 999"),
    ({"player": "Nobody", "reason": "rude"}, 404, "no_account", "player: no account is called 'Nobody'"),
    ({"player": "Ann", "reason": "me"}, 422, "own_account", "player: you cannot report yourself"),
    ({"message": 1, "player": "Bob", "reason": "both"}, 422, "bad_report", "not both or neither"),
    ({"reason": "neither"}, 422, "bad_report", "not both or neither"),
    ({"player": "Bob", "reason": "   "}, 422, "bad_reason", "reason: say what is wrong in 1..500 characters, not 0"),
    ({"player": "Bob", "reason": "x" * 501}, 422, "bad_request", "reason"),
    ({"message": "1", "reason": "a string is no id"}, 422, "bad_request", "message"),
])
def test_a_report_of_nothing_real_is_refused_and_nothing_is_stored(storage: Storage, body: dict[str, Any], status: int, error: str, says: str) -> None:
    with people(storage, "Ann", "Bob") as (ann, _):
        refused = post(ann, "/api/social/reports", body)
        assert (refused.status_code, refused.json()["error"]) == (status, error) and says in refused.json()["message"]
        assert TestClient(ann.client.app).post("/api/social/reports", json={"player": "Bob", "reason": "x"}).status_code == 401
    assert count(storage, ReportRow) == 0


@pytest.mark.postgres
def test_a_block_made_through_one_process_hides_the_chat_in_another() -> None:
    """Two server processes on one PostgreSQL (two apps, each its own listener): Ann watches
    through the second; she blocks Mallory through the first; the second hears of it."""
    with two_processes() as (first, second):
        ann, mallory, ann_there = Browser(first), Browser(first), Browser(second)
        sign_up(ann, "Ann")  # type: ignore[arg-type]
        sign_up(mallory, "Mallory")  # type: ignore[arg-type]
        assert sign_in(ann_there, "Ann").status_code == 200  # type: ignore[arg-type]
        game_id = post(mallory, "/api/games", {"seats": ["open", "bot:random"], "take": [{"seat": 0}], "clock": 86400}).json()["id"]  # type: ignore[arg-type]
        with mallory.websocket_connect(f"/ws/games/{game_id}") as m_ws, ann_there.websocket_connect(f"/ws/games/{game_id}") as a_ws:
            until(m_ws, "hello"), until(a_ws, "hello")
            assert post(ann, "/api/social/blocks", {"name": "Mallory"}).status_code == 204  # type: ignore[arg-type]
            # The block's notice was committed before the line's: the listener takes them in that order.
            m_ws.send_json({"type": "chat", "text": "hidden"})
            assert until(m_ws, "chat")["text"] == "hidden"
            a_ws.send_json({"type": "chat", "text": "marker"})
            assert until(a_ws, "chat")["text"] == "marker"
