"""Buying the leaderboard with fresh accounts (issue 35): five new accounts losing on purpose to
a sixth made it first of an honest field. Now their wins leave it provisional, and off the
leaderboard, while a player who met five bots is on it. And migration 0011, which sorted the
ratings kept so far by number of players and found the trusted opponents they had met."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from account_helpers import people, post, rated_game
from sqlalchemy import text

from cantstop.web.db.engine import migrate
from cantstop.web.db.storage import Storage
from cantstop.web.players import scale

BOTS = ("random", "cautious", "rule28", "ga", "expert")  # five distinct trusted opponents


def lose(loser: Any, game_id: str) -> None:
    resigned = post(loser, f"/api/games/{game_id}/resign", {})
    assert resigned.status_code == 200, resigned.text


def test_five_fresh_accounts_feeding_a_sixth_leave_it_off_the_leaderboard(storage: Storage) -> None:
    names = ("Farmer", "Feed A", "Feed B", "Feed C", "Feed D", "Feed E", "Hal")
    with people(storage, *names) as (farmer, *rest):
        feeders, hal = rest[:5], rest[5]
        for _ in range(2):  # ten rated games: each feeder twice (a pair's second game in a month counts half)
            for feeder in feeders:
                lose(feeder, rated_game(farmer, [feeder]))
        for bot in BOTS:  # an honest newcomer who plays five bots, twice each, and loses every game
            for _ in range(2):
                made = post(hal, "/api/games", {"variant": "classic", "seats": ["open", f"bot:{bot}"], "rated": True, "take": [{"seat": 0}]})
                assert made.status_code == 201, made.text
                lose(hal, made.json()["id"])

        mine = farmer.get("/api/players/Farmer").json()["rating"]
        assert (mine["games"], mine["wins"], mine["opponents"], mine["provisional"]) == (10, 10, 0, True)
        honest = hal.get("/api/players/Hal").json()["rating"]
        assert (honest["games"], honest["wins"], honest["opponents"], honest["provisional"]) == (10, 0, 5, False)
        assert mine["rating"] > 1500 > honest["rating"]  # the farm's rating is high, and counts for nothing yet
        board = farmer.get("/api/players", params={"players": 2}).json()
        assert [r["name"] for r in board] == ["Hal"]  # the only rating the leaderboard can trust
        listed = farmer.get("/api/players", params={"players": 2, "provisional": True}).json()
        assert listed[0]["name"] == "Farmer" and {r["name"] for r in listed} == set(names)
        for feeder in feeders:  # nobody ever trusted the feeders either
            rating = feeder.get(f"/api/players/{feeder_name(feeder)}").json()["rating"]
            assert rating["provisional"] and rating["opponents"] == 0


def feeder_name(browser: Any) -> str:
    return str(browser.get("/api/account").json()["account"]["name"])


OLD = datetime(2026, 10, 1, 12, 0)


def at_0010(url: str) -> Storage:
    """A database as rated play left it before 0011: Ann's and Bob's entries and a bot's, with
    two-player games between Ann and the bot, and one three-player game of all three."""
    storage = Storage(url)
    migrate(storage.engine, url, "0010")
    with storage.engine.begin() as conn:
        for number, name in ((1, "Ann"), (2, "Bob")):
            conn.execute(text("INSERT INTO accounts (id, name, name_hash, lookalike_hash, user_handle, created) VALUES (:i, :n, :h, :l, :u, :t)"),
                         {"i": number, "n": name, "h": f"h{number}", "l": f"l{number}", "u": f"u{number}", "t": OLD})
        rows = [(1, "person", 1, None, 30.0, 12), (2, "person", 2, None, 24.0, 1), (3, "bot", None, "bot:rule28", 26.0, 12)]
        for rating_id, kind, account, name, mu, games in rows:
            conn.execute(text("INSERT INTO ratings (id, kind, account_id, name, mu, sigma, games, wins) VALUES (:i, :k, :a, :n, :m, 3, :g, 0)"),
                         {"i": rating_id, "k": kind, "a": account, "n": name, "m": mu, "g": games})
        point = 0
        for number in range(12):  # Ann against the bot, the games numbered g0..g11, then g12 with three players
            add_game(conn, f"g{number}", [(1, None), (None, "rule28")])
            for seat, rating_id in ((0, 1), (1, 3)):
                point += 1
                add_point(conn, point, f"g{number}", seat, rating_id, 0.0 if number == 11 else 1.0)
        add_game(conn, "g12", [(1, None), (2, None), (None, "rule28")])
        for seat, rating_id in ((0, 1), (1, 2), (2, 3)):
            point += 1
            add_point(conn, point, "g12", seat, rating_id, 1.0)
    return storage


def add_game(conn: Any, game_id: str, seats: list[tuple[int | None, str | None]]) -> None:
    conn.execute(text("INSERT INTO games (id, variant, first, tags, status, winner, version, created, updated, clock, rated)"
                      " VALUES (:g, 'classic', 0, '{}', 'over', 0, 1, :t, :t, 0, :r)"), {"g": game_id, "t": OLD, "r": True})
    for seat, (account, bot) in enumerate(seats):
        conn.execute(text("INSERT INTO seats (game_id, seat, kind, bot, name, account_id) VALUES (:g, :s, :k, :b, :n, :a)"),
                     {"g": game_id, "s": seat, "k": "bot" if bot else "person", "b": bot, "n": f"bot:{bot}" if bot else f"P{account}", "a": account})


def add_point(conn: Any, point: int, game_id: str, seat: int, rating_id: int, weight: float) -> None:
    conn.execute(text("INSERT INTO rating_history (id, name, game_id, mu, sigma, created, rating_id, seat, weight, before_mu, before_sigma)"
                      " VALUES (:i, 'x', :g, 25, 3, :t, :r, :s, :w, 25, 3)"),
                 {"i": point, "g": game_id, "t": OLD, "r": rating_id, "s": seat, "w": weight})


def test_migration_0011_sorts_the_ratings_by_players_and_finds_their_trusted_opponents(any_url: str) -> None:
    storage = at_0010(any_url)
    try:
        storage.migrate()
        with storage.engine.connect() as conn:
            entries = conn.execute(text("SELECT id, players, opponents FROM ratings ORDER BY id")).all()
            met = conn.execute(text("SELECT rating_id, opponent_id FROM rating_opponents ORDER BY rating_id, opponent_id")).all()
            flags = dict(conn.execute(text("SELECT game_id, provisional FROM rating_history WHERE rating_id = 1")).all())
        # Ann and the bot played 13 games, 12 of them with two players: 2; Bob's one game had three players.
        assert [tuple(e) for e in entries] == [(1, 2, 1), (2, 3, 1), (3, 2, 0)]
        # The bot is trusted from the start; Ann, after ten counted games (g11 counted nothing), had met one
        # trusted opponent only: still provisional, and so nobody's trusted opponent, not even Bob's.
        assert [tuple(m) for m in met] == [(1, 3), (2, 3)]
        assert all(flags[f"g{n}"] for n in range(13)) and scale.TRUSTED_OPPONENTS > 1
        with storage.engine.begin() as conn:  # the new keys: one entry a holder for each number of players
            conn.execute(text("INSERT INTO ratings (id, kind, account_id, players, mu, sigma, games, wins, opponents)"
                              " VALUES (10, 'person', 1, 4, 25, 8, 0, 0, 0)"))
    finally:
        storage.close()
