"""`cantstop admin`: sessions listed per account, an account renamed or removed, on the server's database."""

from __future__ import annotations

from account_helpers import PASSWORD, csrf, sign_in, sign_up
from click.testing import CliRunner
from fastapi.testclient import TestClient
from web_helpers import Clock

from cantstop.cli import main
from cantstop.web.db.storage import Storage


def admin(storage: Storage, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["admin", *args, "--db", storage.url], catch_exceptions=False)
    return result.exit_code, result.output


def test_sessions_are_listed_per_account_newest_use_first(client: TestClient, storage: Storage) -> None:
    sign_up(client, "Ann")
    sign_up(TestClient(client.app), "Bob")
    sign_in(TestClient(client.app), "Ann")
    code, out = admin(storage, "sessions")
    assert code == 0 and sorted(line.split("\t")[0] for line in out.splitlines() if "\t" in line) == ["Ann", "Ann", "Bob"]
    code, out = admin(storage, "sessions", "ann")
    assert code == 0 and [line.split("\t")[0] for line in out.splitlines() if "\t" in line] == ["Ann", "Ann"]
    assert "from testclient" in out and "2 sessions" in out


def test_rename_checks_the_new_name_as_a_sign_up_would(client: TestClient, storage: Storage) -> None:
    sign_up(client, "Ann")
    sign_up(TestClient(client.app), "Mallory")
    code, out = admin(storage, "rename", "Ann", "Маllоry")
    assert code == 1 and "looks like the name of an account" in out
    code, out = admin(storage, "rename", "Ann", "\u3164")
    assert code == 1 and "U+3164" in out
    code, out = admin(storage, "rename", "Nobody", "Zed")
    assert code == 1 and "no account is called 'Nobody'" in out
    code, out = admin(storage, "rename", "Ann", "Annabel")
    assert code == 0 and "'Ann' is now 'Annabel'" in out
    assert client.get("/api/account").json()["account"]["name"] == "Annabel"  # the session carries on
    assert sign_in(TestClient(client.app), "Annabel", PASSWORD).status_code == 200
    assert sign_in(TestClient(client.app), "Ann", PASSWORD).status_code == 401


def test_remove_ends_the_account_and_keeps_its_name_taken(client: TestClient, storage: Storage) -> None:
    sign_up(client, "Ann")
    code, out = admin(storage, "remove", "Ann", "--yes")
    assert code == 0 and "removed: 'Ann'" in out
    assert client.get("/api/account").json()["account"] is None
    assert sign_in(client, "Ann").status_code == 401
    assert client.post("/api/account/sign-up", json={"name": "Ann", "password": PASSWORD}).status_code == 409
    assert admin(storage, "remove", "Ann", "--yes")[0] == 1


def test_remove_resigns_the_accounts_seats_in_games_under_way(client: TestClient, storage: Storage) -> None:
    """As an owner's deletion does: the command plays the resignation the server then reads."""
    sign_up(client, "Ann")
    created = client.post("/api/games", json={"seats": ["open", "bot:random"], "take": [{"seat": 0}]}, headers=csrf(client))
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    assert client.get(f"/api/games/{game_id}").json()["status"] == "playing"
    assert admin(storage, "remove", "Ann", "--yes")[0] == 0
    game = client.get(f"/api/games/{game_id}").json()
    assert game["status"] == "over" and game["seats"][0]["name"] == "deleted player #1"
    assert any(entry["text"].startswith("deleted player #1 resign") for entry in game["log"]), game["log"]


def test_rekey_keeps_old_accounts_under_todays_lookalike_key(client: TestClient, storage: Storage) -> None:
    """An account made before a dot above an i was left out of the key keeps the key it had;
    rekeying makes its look-alike taken, and lists two old accounts that now look alike."""
    from sqlalchemy import update

    from cantstop.web.identity.accounts import digest
    from cantstop.web.identity.rows import AccountRow

    def made_before(name: str) -> None:  # its key as the rules made it then: the dot kept
        sign_up(TestClient(client.app), name)
        with storage.session() as s:
            s.execute(update(AccountRow).where(AccountRow.name == name).values(lookalike_hash=digest(f"old {name}")))

    made_before("Ali\u0307ce")
    made_before("Bori\u0307s")
    assert TestClient(client.app).post("/api/account/sign-up", json={"name": "Boris", "password": PASSWORD}).status_code == 201
    code, out = admin(storage, "rekey")
    assert code == 1 and "left as it was (rename one of them): Bori\u0307s" in out and "1 account rekeyed" in out
    assert TestClient(client.app).post("/api/account/sign-up", json={"name": "Alice", "password": PASSWORD}).status_code == 409
    assert admin(storage, "rekey")[0] == 1  # the clash stays until one is renamed


def test_expired_sessions_are_swept_out_at_the_next_sign_in(storage: Storage, still_clock: Clock) -> None:
    from cantstop.web.app import create_app

    app = create_app(storage, bot_delay=0, session_idle=60, now=still_clock)
    with TestClient(app) as ann, TestClient(app) as bob:
        sign_up(ann, "Ann")
        still_clock.advance(61)  # Ann's session has outlived its minute
        sign_up(bob, "Bob")
    code, out = admin(storage, "sessions")
    assert code == 0 and [line.split("\t")[0] for line in out.splitlines() if "\t" in line] == ["Bob"]
