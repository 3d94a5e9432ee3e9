"""A database from before ratings belonged to accounts (migration 0005, ratings keyed by the
name typed) upgraded in place: its ratings stay, apart, as bots' and unclaimed legacy
entries; no account inherits one by its name; `cantstop admin attach` gives one to its owner."""

from __future__ import annotations

from datetime import datetime

from account_helpers import sign_up
from click.testing import CliRunner
from fastapi.testclient import TestClient
from sqlalchemy import text
from web_helpers import NO_LIMITS

from cantstop.cli import main
from cantstop.web.app import create_app
from cantstop.web.db.engine import migrate
from cantstop.web.db.storage import Storage

OLD = datetime(2026, 1, 5, 12, 0)
PLAYERS = [("Ann", 30.0, 2.0, 10, 7), ("Mallory", 40.0, 1.0, 5, 5), ("bot:rule28", 27.0, 3.0, 20, 11)]


def at_0005(url: str) -> Storage:
    """A database as a server before accounts' ratings left it: two people's name-keyed
    ratings (each with a point of history), a bot's, and a finished game of Ann's."""
    storage = Storage(url)
    migrate(storage.engine, url, "0005")
    with storage.engine.begin() as conn:
        for name, mu, sigma, games, wins in PLAYERS:
            conn.execute(text("INSERT INTO players (name, mu, sigma, games, wins) VALUES (:n, :m, :s, :g, :w)"),
                         {"n": name, "m": mu, "s": sigma, "g": games, "w": wins})
        conn.execute(text("INSERT INTO games (id, variant, first, tags, status, winner, version, created, updated, clock)"
                          " VALUES ('old1', 'classic', 0, '{}', 'over', 0, 0, :t, :t, 0)"), {"t": OLD})
        for seat, name, kind in ((0, "Ann", "person"), (1, "bot:rule28", "bot")):
            conn.execute(text("INSERT INTO seats (game_id, seat, kind, bot, name) VALUES ('old1', :s, :k, :b, :n)"),
                         {"s": seat, "k": kind, "b": "rule28" if kind == "bot" else None, "n": name})
        for name, mu, sigma, *_ in PLAYERS[:2]:
            conn.execute(text("INSERT INTO rating_history (name, game_id, mu, sigma, created) VALUES (:n, 'old1', :m, :s, :t)"),
                         {"n": name, "m": mu, "s": sigma, "t": OLD})
    return storage


def admin(url: str, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["admin", *args, "--db", url], catch_exceptions=False)
    return result.exit_code, result.output


def test_an_upgraded_database_keeps_its_legacy_entries_apart(any_url: str) -> None:
    storage = at_0005(any_url)
    storage.migrate()  # 0006 and on, in place
    with TestClient(create_app(storage, bot_delay=0, **NO_LIMITS)) as client:
        board = {b: client.get("/api/players", params={"board": b}).json() for b in ("people", "bots", "legacy")}
        assert board["people"] == []  # no account has a rating until its owner claims one
        assert [(r["name"], r["games"], r["wins"]) for r in board["legacy"]] == [("Mallory", 5, 5), ("Ann", 10, 7)]
        assert [r["url"] for r in board["legacy"]] == ["/player/Mallory?legacy=1", "/player/Ann?legacy=1"]
        assert [(r["name"], r["rating"]) for r in board["bots"]] == [("bot:rule28", 1559)]  # 1500 + 29.48 x (27 - 25)

        sign_up(client, "Ann")  # the same name: nothing follows it
        page = client.get("/api/players/Ann").json()
        assert page["kind"] == "person" and page["rating"] is None and page["games"] == []
        old = client.get("/api/players/Ann", params={"legacy": True}).json()
        assert old["kind"] == "legacy" and old["rating"]["rating"] == 1647 and old["rating"]["players"] == 2
        assert [p["game"] for p in old["history"]] == ["old1"] and [g["id"] for g in old["games"]] == ["old1"]
        assert [r["name"] for r in client.get("/api/players", params={"board": "people"}).json()] == []

        code, out = admin(any_url, "legacy")
        assert code == 0 and [line.split("\t")[0] for line in out.splitlines() if "\t" in line] == ["Mallory", "Ann"]
        code, out = admin(any_url, "attach", "Ann", "ann")
        assert code == 0 and "the legacy 2-player rating 'Ann' (1647, 10 games) is now 'Ann'" in out
        people = client.get("/api/players", params={"board": "people", "provisional": True}).json()
        assert [(r["name"], r["games"], r["url"]) for r in people] == [("Ann", 10, "/player/Ann")]
        page = client.get("/api/players/Ann").json()
        assert page["rating"]["rating"] == 1647 and [p["game"] for p in page["history"]] == ["old1"]
        assert [r["name"] for r in client.get("/api/players", params={"board": "legacy"}).json()] == ["Mallory"]

        assert admin(any_url, "attach", "Ann", "Ann") == (1, "Error: no unclaimed legacy rating is called 'Ann' (`cantstop admin legacy` lists them)\n")
        code, out = admin(any_url, "attach", "Mallory", "Ann")
        assert code == 1 and "has a 2-player rating of its own from 10 rated games" in out
        assert admin(any_url, "attach", "Mallory", "Nobody")[1] == "Error: no account is called 'Nobody'\n"
    storage.close()


def test_the_upgrade_goes_back_to_name_keyed_ratings(any_url: str) -> None:
    from alembic import command
    from alembic.config import Config

    from cantstop.web.db.engine import MIGRATIONS

    storage = at_0005(any_url)
    storage.migrate()
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with storage.engine.begin() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, "0005")
    with storage.engine.connect() as conn:
        back = conn.execute(text("SELECT name, mu, sigma, games, wins FROM players ORDER BY name")).all()
    assert sorted(tuple(r) for r in back) == sorted(PLAYERS)
    storage.close()
