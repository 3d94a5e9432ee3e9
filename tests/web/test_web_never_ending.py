"""A server upgraded from before games that could never end were refused: what it stored of
them (three players to 5 columns) is closed by the migration, and what finished stays readable."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import text

from cantstop.bots.base import get_bot
from cantstop.core.dice import SeededDice
from cantstop.core.record import Record
from cantstop.core.variant import preset
from cantstop.table import Table
from cantstop.table.players import BotPlayer
from cantstop.web.app import create_app
from cantstop.web.db.engine import migrate
from cantstop.web.db.moves import encode_move
from cantstop.web.db.rows import now
from cantstop.web.db.storage import Storage
from cantstop.web.db.tokens import hash_token

TO_FIVE = "classic+to_win=5"


def played(players: int, turns: int | None) -> Table:
    """A game of `players` rule28 bots to 5 columns, stopped after `turns` turns (None: to its end)."""
    table = Table(Record(preset(TO_FIVE), ["Ann", "Bob", "Cy"][:players]), SeededDice(players), [BotPlayer(get_bot("rule28").play)] * players)
    table.run(until=None if turns is None else lambda t: t.state.turn >= turns)
    return table


def stored(conn: Any, game_id: str, table: Table | None, players: int, status: str) -> None:
    moves = table.moves if table is not None else []
    winner = table.winner if table is not None and table.over else None
    conn.execute(text("INSERT INTO games (id, variant, first, tags, status, winner, version, created, updated, clock, rated, to_move)"
                      " VALUES (:id, :v, :first, '{}', :status, :winner, :version, :t, :t, 0, false, :to_move)"),
                 {"id": game_id, "v": TO_FIVE, "first": 0 if table is not None else None, "status": status, "winner": winner,
                  "version": len(moves), "t": now(), "to_move": table.seat if table is not None and not table.over else None})
    for seat, name in enumerate(["Ann", "Bob", "Cy"][:players]):
        conn.execute(text("INSERT INTO seats (game_id, seat, kind, name, token_hash) VALUES (:g, :s, 'person', :n, :h)"),
                     {"g": game_id, "s": seat, "n": name, "h": hash_token(f"{game_id}-{name}")})
    for seq, move in enumerate(moves, 1):
        kind, data = encode_move(move)
        conn.execute(text("INSERT INTO events (game_id, seq, kind, data, created) VALUES (:g, :q, :k, :d, :t)"),
                     {"g": game_id, "q": seq, "k": kind, "d": data, "t": now()})


def test_the_upgrade_closes_what_could_never_end_and_keeps_what_finished(any_url: str) -> None:
    storage = Storage(any_url)
    migrate(storage.engine, any_url, "0016")
    finished, on = played(3, None), played(3, 9)
    assert finished.over and not on.over
    with storage.engine.begin() as conn:
        stored(conn, "three_on", on, 3, "playing")
        stored(conn, "three_waiting", None, 3, "waiting")
        stored(conn, "two_on", played(2, 9), 2, "playing")
        stored(conn, "three_over", finished, 3, "over")
        conn.execute(text("INSERT INTO accounts (name, name_hash, lookalike_hash, user_handle, created)"
                          " VALUES ('Ann', 'n', 'l', 'u', :t)"), {"t": now()})
        account = conn.execute(text("SELECT id FROM accounts")).scalar_one()
        for request_id, players in (("r3", 3), ("r2", 2)):
            conn.execute(text("INSERT INTO pairing_requests (id, token_hash, name, variant, players, clock, rated, rating, asked, seen, state)"
                              " VALUES (:id, :h, 'Ann', :v, :p, 0, true, 1500, :t, :t, 'waiting')"),
                         {"id": request_id, "h": f"hash-{request_id}", "v": TO_FIVE, "p": players, "t": now()})
        for tournament_id, seats in (("t3", 3), ("t2", 2)):
            conn.execute(text("INSERT INTO tournaments (id, name, variant, seats, clock, rated, rounds, capacity, starts, status, round, creator_id, created)"
                              " VALUES (:id, 'Cup', :v, :s, 0, true, 3, 16, :starts, 'open', 0, :a, :t)"),
                         {"id": tournament_id, "v": TO_FIVE, "s": seats, "starts": now() + timedelta(days=1), "a": account, "t": now()})
    storage.migrate()
    with storage.engine.connect() as conn:
        games = dict(conn.execute(text("SELECT id, status FROM games")).all())
        requests = dict(conn.execute(text("SELECT id, state FROM pairing_requests")).all())
        tournaments = dict(conn.execute(text("SELECT id, status FROM tournaments")).all())
        ends = conn.execute(text("SELECT game_id, seq FROM events WHERE kind = 'end' ORDER BY game_id")).all()
    assert games == {"three_on": "abandoned", "three_waiting": "abandoned", "two_on": "playing", "three_over": "over"}
    assert requests == {"r3": "cancelled", "r2": "waiting"} and tournaments == {"t3": "cancelled", "t2": "open"}
    assert [tuple(row) for row in ends] == [("three_on", len(on.moves) + 1), ("three_waiting", 1)]
    with TestClient(create_app(storage, bot_delay=0)) as client:
        closed = client.get("/api/games/three_on").json()
        assert closed["status"] == "abandoned" and "could never end" in closed["ended"]
        # No move is taken in it any more, and the finished game of three reads back, winner and all.
        refused = client.post("/api/games/three_on/actions", json={"action": "roll", "version": closed["version"]},
                              headers={"authorization": "Bearer three_on-Cy"})
        assert refused.status_code == 409 and refused.json()["error"] == "game_over", refused.text
        over = client.get("/api/games/three_over").json()
        assert over["status"] == "over" and over["version"] == len(finished.moves)
        assert client.get("/api/games/three_over/record").status_code == 200
    storage.close()
