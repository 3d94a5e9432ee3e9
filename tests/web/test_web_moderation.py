"""Moderation with `cantstop admin`: reports listed and dealt with; an account silenced (no chat),
suspended (no play) or closed (no sign-in), each with a reason the account is shown, each
decision logged; a silence or suspension lifted."""

from __future__ import annotations

from typing import Any

from account_helpers import PASSWORD, people, post, rated_game, sign_in
from click.testing import CliRunner
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from web_helpers import until

from cantstop.cli import main
from cantstop.web.db.rows import GameRow
from cantstop.web.db.storage import Storage


def admin(storage: Storage, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["admin", *args, "--db", storage.url], catch_exceptions=False)
    return result.exit_code, result.output


def games_stored(storage: Storage) -> int:
    with storage.session() as s:
        return int(s.scalar(select(func.count()).select_from(GameRow)) or 0)


def chat(browser: Any, game_id: str, words: str) -> dict[str, Any]:
    """What the server answers a chat line from `browser` (its echo, or an error frame)."""
    with browser.websocket_connect(f"/ws/games/{game_id}") as ws:
        until(ws, "hello")
        ws.send_json({"type": "chat", "text": words})
        for _ in range(20):
            frame: dict[str, Any] = ws.receive_json()
            if frame["type"] in ("chat", "error"):
                return frame
    raise AssertionError("no answer")


def test_a_silenced_account_writes_nothing_sees_why_and_is_heard_again_once_lifted(storage: Storage) -> None:
    with people(storage, "Ann", "Mallory") as (ann, mallory):
        game_id = rated_game(mallory, [ann])
        code, out = admin(storage, "silence", "mallory", "--reason", "insults in the chat", "--days", "7")
        assert code == 0 and out.startswith("Mallory: this account is silenced (no chat) until ") and out.rstrip().endswith(
            "by the moderators: insults in the chat")
        refused = chat(mallory, game_id, "you cannot stop me")
        assert refused["error"] == "silenced" and refused["message"].endswith("insults in the chat")
        standing = mallory.get("/api/account").json()["standing"]
        assert standing["silenced"]["reason"] == "insults in the chat" and standing["silenced"]["until"] and standing["suspended"] is None
        assert chat(ann, game_id, "hello")["text"] == "hello"  # nobody else is silenced
        with mallory.websocket_connect(f"/ws/games/{game_id}") as ws:  # still a player: moves are not chat
            assert until(ws, "hello")["you"] == 0
        assert admin(storage, "lift", "Mallory", "silence", "--reason", "apologised")[0] == 0
        assert chat(mallory, game_id, "sorry")["text"] == "sorry"
        code, out = admin(storage, "lift", "Mallory", "silence", "--reason", "again")
        assert code == 1 and "has no silence in force" in out
        code, out = admin(storage, "moderation", "Mallory")
        lines = [line.split("\t") for line in out.splitlines() if "\t" in line]
        assert [(f[1], f[2].split(" ")[0], f[3]) for f in lines] == [("Mallory", "lift", "apologised"), ("Mallory", "silence", "insults in the chat")]


def test_a_suspended_account_resigns_its_games_and_starts_none(storage: Storage) -> None:
    with people(storage, "Ann", "Mallory") as (ann, mallory):
        playing = rated_game(mallory, [ann])
        waiting = post(mallory, "/api/games", {"seats": ["open", "open"], "take": [{"seat": 0}]}).json()["id"]
        code, out = admin(storage, "suspend", "Mallory", "--reason", "threw games on purpose")
        assert code == 0 and "suspended (no play) by the moderators: threw games on purpose" in out
        assert ann.get(f"/api/games/{playing}").json()["state"]["winner"] == 1  # resigned: Ann wins
        assert ann.get(f"/api/games/{waiting}").json()["seats"][0]["kind"] == "open"  # its seat open again
        games = games_stored(storage)
        for refused in (
            post(mallory, "/api/games", {"seats": ["open", "bot:random"], "take": [{"seat": 0}]}),
            post(mallory, f"/api/games/{waiting}/join", {"seat": 0}),
            post(mallory, f"/api/games/{playing}/rematch", {}),  # the game resigned, played again
        ):
            assert refused.status_code == 403 and refused.json()["error"] == "suspended"
            assert refused.json()["message"].endswith("threw games on purpose")
        assert games_stored(storage) == games  # nothing made
        assert mallory.get("/api/account").json()["standing"]["suspended"]["until"] is None  # until lifted
        admin(storage, "lift", "Mallory", "suspension", "--reason", "served")
        assert post(mallory, f"/api/games/{waiting}/join", {"seat": 0}).status_code == 200


def test_a_closed_account_is_signed_out_and_told_why_only_with_its_password(any_storage: Storage) -> None:
    with people(any_storage, "Ann", "Mallory") as (ann, mallory):
        game_id = rated_game(mallory, [ann])
        code, out = admin(any_storage, "close", "Mallory", "--reason", "cheating, reported three times", "--yes")
        assert code == 0 and "this account was closed by the moderators: cheating, reported three times" in out
        assert mallory.get("/api/account").json()["account"] is None  # its sessions ended
        assert ann.get(f"/api/games/{game_id}").json()["state"]["winner"] == 1
        fresh = TestClient(ann.client.app)
        wrong = sign_in(fresh, "Mallory", "not the password at all")
        assert wrong.status_code == 401 and wrong.json()["error"] == "bad_credentials"  # nothing told without the password
        told = sign_in(fresh, "Mallory", PASSWORD)
        assert told.status_code == 403 and told.json()["error"] == "closed" and told.json()["message"].endswith("reported three times")
        assert fresh.get("/api/account").json()["account"] is None
        gone = post(ann, "/api/social/follows", {"name": "Mallory"})
        assert gone.status_code == 404 and gone.json()["error"] == "no_account"
        taken = ann.client.post("/api/account/sign-up", json={"name": "Mallory", "password": PASSWORD})
        assert taken.status_code == 409  # its name stays taken
        code, out = admin(any_storage, "close", "Mallory", "--reason", "again", "--yes")
        assert code == 1 and "no open account" in out
        code, out = admin(any_storage, "lift", "Mallory", "suspension", "--reason", "x")
        assert code == 1


def test_every_decision_needs_a_reason(storage: Storage) -> None:
    with people(storage, "Mallory") as _:
        code, out = admin(storage, "silence", "Mallory")
        assert code == 2 and "--reason" in out
        code, out = admin(storage, "suspend", "Mallory", "--reason", "   ")
        assert code == 1 and "reason: a decision gives its reason to the account, in 1..500 characters, not 0" in out
        code, out = admin(storage, "silence", "Nobody", "--reason", "x")
        assert code == 1 and "no account is called 'Nobody'" in out
        assert admin(storage, "moderation")[1].strip().endswith("0 decisions")


def test_reports_are_listed_and_dealt_with(any_storage: Storage) -> None:
    with people(any_storage, "Ann", "Mallory") as (ann, mallory):
        game_id = rated_game(mallory, [ann])
        line = chat(mallory, game_id, "rude words")
        post(ann, "/api/social/reports", {"message": line["id"], "reason": "rude"})
        post(ann, "/api/social/reports", {"player": "Mallory", "reason": "rude all the time"})
        code, out = admin(any_storage, "reports")
        lines = [line for line in out.splitlines() if "\t" in line]
        assert code == 0 and len(lines) == 2 and "2 reports" in out
        assert lines[0].startswith("#1\t") and f"Ann reports Mallory\tsaid in game {game_id}: 'rude words'\tbecause: rude" in lines[0]
        assert lines[1].endswith("Ann reports Mallory\tbecause: rude all the time")
        assert admin(any_storage, "resolve", "1", "--note", "silenced a week")[0] == 0
        code, out = admin(any_storage, "reports")
        assert [line.split("\t")[0] for line in out.splitlines() if "\t" in line] == ["#2"]
        code, out = admin(any_storage, "reports", "--all")
        assert "dealt with" in out and "silenced a week" in out
        code, out = admin(any_storage, "resolve", "9", "--note", "x")
        assert code == 1 and "there is no report 9" in out
