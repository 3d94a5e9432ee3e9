"""Storage on SQLite and PostgreSQL (CANTSTOP_TEST_PG, or a throwaway server): the same behaviour on both."""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import inspect, select, text
from sqlalchemy.exc import OperationalError
from web_helpers import WAIT, new_game, pg_schema, postgres_url, settled, wait_for

from cantstop.core.state import ROLL, STOP
from cantstop.table import Move, StaleMoveError
from cantstop.web.app import create_app
from cantstop.web.db.moves import decode_move, encode_move
from cantstop.web.db.notify import CHANNEL, NOTICE_GAMES, libpq_url, news_of
from cantstop.web.db.recorder import Recorder
from cantstop.web.db.rows import EventRow, SeatRow
from cantstop.web.db.storage import Storage
from cantstop.web.db.values import Append, Rating, RatingKind


def test_migrations_create_the_schema_and_are_idempotent(any_storage: Storage) -> None:
    any_storage.migrate()  # a second start changes nothing
    tables = set(inspect(any_storage.engine).get_table_names())
    assert {"games", "seats", "events", "ratings", "seat_links", "alembic_version"} <= tables and "players" not in tables


def test_seats_hold_hashed_tokens(any_storage: Storage) -> None:
    game_id = any_storage.create_game("classic", [("open", None), ("bot", "random")])
    claimed = any_storage.claim_seat(game_id, 0, "Ann")
    assert claimed is not None
    token, seated = claimed
    assert any_storage.claim_seat(game_id, 0, "Eve") is None  # taken
    assert any_storage.claim_seat(game_id, 1, "Eve") is None  # a bot's
    assert any_storage.seat_of(game_id, token) == 0
    assert any_storage.seat_of(game_id, token + "x") is None
    with any_storage.session() as s:
        stored = s.scalars(select(SeatRow.token_hash)).all()
    assert token not in stored and any(stored)
    game = any_storage.game(game_id)
    assert game is not None and [s.name for s in game.seats] == ["Ann", "bot:random"]
    assert seated == game  # the claim hands back the game as it now stands


def test_a_version_is_stored_once(any_storage: Storage) -> None:
    game_id = any_storage.create_game("classic", [("bot", "random"), ("bot", "random")])
    started = any_storage.start(game_id, 1, {"RollOff": "A:3 B:9"})
    assert started is not None and started == any_storage.game(game_id) and started.first == 1 and started.status == "playing"
    assert any_storage.start(game_id, 0, {}) is None  # started already
    any_storage.append(game_id, 1, Move.rolled((1, 2, 3, 4)))
    with pytest.raises(StaleMoveError):
        any_storage.append(game_id, 1, Move.rolled((6, 6, 6, 6)))
    any_storage.append(game_id, 2, Move.of((3, 7)))
    any_storage.append(game_id, 3, Move.of(STOP))
    assert any_storage.events(game_id) == [Move.rolled((1, 2, 3, 4)), Move.of((3, 7)), Move.of(STOP)]
    assert any_storage.events(game_id, 2) == [Move.of(STOP)]
    game = any_storage.game(game_id)
    assert game is not None and game.version == 3 and game.first == 1 and game.status == "playing"


def test_a_group_commit_stores_each_game_and_refuses_only_the_stale_one(any_storage: Storage) -> None:
    """One batch holds several games' moves (two of one game, one that ends a game); on
    PostgreSQL it is one statement, and every server process is told each game's new version."""
    one, two, three = (any_storage.create_game("classic", [("bot", "random"), ("bot", "random")]) for _ in range(3))
    for game_id in (one, two, three):
        any_storage.start(game_id, 0, {})
    any_storage.append(two, 1, Move.rolled((6, 6, 6, 6)))  # another process was first in game two
    listener = psycopg.connect(libpq_url(any_storage.url), autocommit=True) if any_storage.shared else None
    if listener is not None:
        listener.execute(f"LISTEN {CHANNEL}")
    clean = [Append(one, 1, (Move.rolled((1, 2, 3, 4)),), to_move=0), Append(three, 1, (Move.rolled((2, 2, 3, 3)),), to_move=0),
             Append(one, 2, (Move.of((3, 7)),), to_move=0)]
    assert any_storage.append_many(clean) == [True, True, True]
    stale = [Append(three, 2, (Move.of((4, 6)),), to_move=0), Append(two, 1, (Move.rolled((1, 1, 1, 1)),), to_move=0),
             Append(three, 3, (Move.of(STOP),), winner=0, to_move=None)]
    assert any_storage.append_many(stale) == [True, False, True]
    games = {g: any_storage.game(g) for g in (one, two, three)}
    assert [(m.version, m.status, m.winner, m.to_move) for m in games.values() if m is not None] == [
        (2, "playing", None, 0), (1, "playing", None, None), (3, "over", 0, None)]
    assert any_storage.events(two) == [Move.rolled((6, 6, 6, 6))]
    assert any_storage.events(three) == [Move.rolled((2, 2, 3, 3)), Move.of((4, 6)), Move.of(STOP)]
    if listener is not None:
        told = [news_of(p) for p in notices_before_a_last_one(any_storage, listener, {one, two, three})]
        # the clean batch tells each game's last version once, in one notice (in no set order);
        # the stale one's Appends, stored one by one after the refusal, each theirs
        assert sorted(told[0]) == sorted([(one, "2"), (three, "1")]) and told[1:] == [[(three, "2")], [(three, "3")]]


@pytest.mark.postgres
def test_a_group_commit_of_many_games_names_each_once_in_notices_that_fit(pg_storage: Storage) -> None:
    """A notice holds at most 8,000 bytes: a batch moving more games than one notice names
    sends several, and every game is named once with its new version."""
    games = [pg_storage.create_game("classic", [("bot", "random"), ("bot", "random")]) for _ in range(2 * NOTICE_GAMES + 1)]
    for game_id in games:
        pg_storage.start(game_id, 0, {})
    listener = psycopg.connect(libpq_url(pg_storage.url), autocommit=True)
    listener.execute(f"LISTEN {CHANNEL}")
    assert pg_storage.append_many([Append(game_id, 1, (Move.rolled((1, 2, 3, 4)),), to_move=0) for game_id in games]) == [True] * len(games)
    told = [news_of(p) for p in notices_before_a_last_one(pg_storage, listener, set(games))]
    assert len(told) == 3 and all(len(news) <= NOTICE_GAMES for news in told)
    assert sorted(pair for news in told for pair in news) == sorted((game_id, "1") for game_id in games)


def test_a_notice_is_read_as_each_games_news() -> None:
    assert news_of("abc 3 d-_9 12") == [("abc", "3"), ("d-_9", "12")]
    assert news_of("abc -1") == [("abc", "-1")]
    assert news_of('abc {"type": "chat", "text": "a b 3"}') == [("abc", '{"type": "chat", "text": "a b 3"}')]
    assert news_of("~blocks 12") == [("~blocks", "12")]  # a topic's news, about no game
    with pytest.raises(ValueError, match="in pairs"):
        news_of("abc 3 def")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(reasons=st.lists(st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=60), min_size=1, max_size=3), seat=st.integers(0, 1))
def test_a_group_commit_stores_every_reason_as_it_was_written(any_storage: Storage, reasons: list[str], seat: int) -> None:
    """A fallback's or a resignation's reason is free text (quotes, backslashes, any script):
    the group commit hands it to PostgreSQL inside JSON, and it comes back unchanged."""
    game_id = any_storage.create_game("classic", [("bot", "random"), ("bot", "random")])
    any_storage.start(game_id, 0, {})
    moves = tuple(Move.fallback(seat, why) if i % 2 else Move.resign(seat, why) for i, why in enumerate(reasons))
    other = any_storage.create_game("classic", [("bot", "random"), ("bot", "random")])
    any_storage.start(other, 0, {})
    batch = [Append(game_id, 1, moves, to_move=1 - seat), Append(other, 1, (Move.rolled((1, 2, 3, 4)),), winner=None, to_move=0)]
    assert any_storage.append_many(batch) == [True, True]
    assert any_storage.events(game_id) == [decode_move(*encode_move(move)) for move in moves]
    stored = any_storage.game(game_id)
    assert stored is not None and stored.version == len(moves) and stored.to_move == 1 - seat


def notices_before_a_last_one(storage: Storage, listener: psycopg.Connection[Any], games: set[str]) -> list[str]:
    """The notices about `games` that `listener` got before one the test sends last: PostgreSQL
    delivers them in the order their transactions committed, so each one committed before it
    has come (however slowly), and none after it is counted. Other tests' games share the
    channel: their notices are left out."""
    last = f"last {uuid.uuid4().hex}"
    with storage.engine.begin() as conn:
        conn.execute(text("SELECT pg_notify(:channel, :payload)"), {"channel": CHANNEL, "payload": last})
    told: list[str] = []
    for notice in listener.notifies(timeout=WAIT):
        if notice.payload == last:
            listener.close()
            return told
        if notice.payload.split()[0] in games:
            told.append(notice.payload)
    raise AssertionError(f"the last notice never came; before it: {told}")


@pytest.fixture
def pg_storage() -> Iterator[Storage]:
    with pg_schema(postgres_url()) as url:
        store = Storage(url)
        store.migrate()
        yield store
        store.close()


@pytest.mark.postgres
def test_a_group_commit_undone_to_break_a_deadlock_is_made_again(pg_storage: Storage) -> None:
    """PostgreSQL undoes one transaction of a deadlock (two server processes' commits, or a
    commit and the sweep, lock games' rows in no common order): the commit is tried again,
    and its actions are stored once, not refused as 'database unavailable'. The first try
    here fails as a deadlock's victim does (a trigger raises SQLSTATE 40P01 once)."""
    game_id = pg_storage.create_game("classic", [("bot", "random"), ("bot", "random")])
    pg_storage.start(game_id, 0, {})
    with pg_storage.engine.begin() as conn:
        conn.execute(text("CREATE SEQUENCE tries"))
        conn.execute(text("""CREATE FUNCTION deadlock_once() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
            IF nextval('tries') = 1 THEN RAISE EXCEPTION 'deadlock detected (made by the test)' USING ERRCODE = '40P01'; END IF;
            RETURN NULL; END $$"""))
        conn.execute(text("CREATE TRIGGER deadlock_once BEFORE INSERT ON events FOR EACH STATEMENT EXECUTE FUNCTION deadlock_once()"))
    assert pg_storage.append_many([Append(game_id, 1, (Move.rolled((1, 2, 3, 4)),), to_move=0)]) == [True]
    assert pg_storage.events(game_id) == [Move.rolled((1, 2, 3, 4))]
    with pg_storage.engine.connect() as conn:
        assert conn.execute(text("SELECT last_value FROM tries")).scalar() == 2  # undone once, made the second time


def test_the_hot_reads_hand_out_what_sqlalchemys_execution_reads(any_storage: Storage) -> None:
    """On PostgreSQL a game, its seats, moves and chat are read on psycopg's cursors rather
    than through SQLAlchemy's execution (`db.driver`): the same values, timestamps, JSON,
    booleans and empty fields included."""
    game_id = any_storage.create_game("classic", [("open", None), ("bot", "random")], clock=60, rated=True)
    claimed = any_storage.claim_seat(game_id, 0, "Ann")
    assert claimed is not None
    any_storage.start(game_id, 1, {"RollOff": "A:3 B:9", "Note": "é \"quoted\""})
    any_storage.append(game_id, 1, Move.rolled((1, 2, 3, 4)), to_move=1)
    any_storage.seen_now([game_id], datetime(2026, 11, 27, 21, 0, 0, 123456))
    with any_storage.engine.connect() as conn:
        through_sqlalchemy = any_storage._read(conn, game_id)
    game = any_storage.game(game_id)
    assert game is not None and game == through_sqlalchemy and game.seen == datetime(2026, 11, 27, 21, 0, 0, 123456)
    assert game.tags["Note"] == 'é "quoted"' and game.rated is True and game.winner is None and game.to_move == 1
    assert any_storage.game("no-such-game") is None
    assert any_storage.seat_of(game_id, claimed[0]) == 0 and any_storage.seat_of("no-such-game", claimed[0]) is None
    assert any_storage.events(game_id, 0) == [Move.rolled((1, 2, 3, 4))] and any_storage.events(game_id, 1) == []
    assert any_storage.chat(game_id, 10) == ([], False)


@pytest.mark.postgres
def test_a_read_on_a_connection_lost_fails_as_sqlalchemys_and_the_next_gets_a_new_one(pg_storage: Storage) -> None:
    """The database server ended a pooled connection (a restart, an idle timeout): the read
    on it fails with SQLAlchemy's OperationalError, as storage's callers expect, and the
    connection is not handed out again."""
    game_id = pg_storage.create_game("classic", [("bot", "random"), ("bot", "random")])
    assert pg_storage.driver is not None
    with pg_storage.driver.reading() as read:
        backend = read(text("SELECT pg_backend_pid()"), {})[0][0]
    with pg_storage.engine.connect() as conn:
        assert conn.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": backend}).scalar()
    with pytest.raises(OperationalError):
        pg_storage.game(game_id)
    game = pg_storage.game(game_id)
    assert game is not None and game.id == game_id
    with pg_storage.driver.reading() as read:
        assert read(text("SELECT pg_backend_pid()"), {})[0][0] != backend


@pytest.mark.postgres
def test_the_sweep_passes_over_a_game_whose_row_a_commit_holds(pg_storage: Storage) -> None:
    """Writing down which games players have open takes no row another transaction holds
    (it waited for it, and with a group commit holding rows in another order, deadlocked):
    that game's move sets its `updated`, which keeps it from idling as `seen` would."""
    busy, idle = (pg_storage.create_game("classic", [("bot", "random"), ("bot", "random")]) for _ in range(2))
    at = datetime(2026, 11, 26, 12, 0)
    with pg_storage.engine.begin() as holder:
        holder.execute(text("SELECT id FROM games WHERE id = :id FOR UPDATE"), {"id": busy})
        done = threading.Event()
        sweep = threading.Thread(target=lambda: (pg_storage.seen_now(sorted([busy, idle]), at), done.set()))
        sweep.start()
        assert done.wait(10), "the sweep waited for the held row"
        sweep.join()
    seen = {g: pg_storage.game(g) for g in (busy, idle)}
    assert {g: m.seen for g, m in seen.items() if m is not None} == {busy: None, idle: at}


def test_a_move_is_stored_while_every_database_thread_is_busy_with_reads(any_storage: Storage) -> None:
    """A wave of games being set up (accounts read, games loaded, hooks looked up) fills
    the database threads; the group commit has a thread of its own, so the moves made
    meanwhile are stored at once rather than queued behind every read."""
    game_id = any_storage.create_game("classic", [("bot", "random"), ("bot", "random")])
    any_storage.start(game_id, 0, {})

    async def store_while_busy() -> bool:
        recorder, reads_go_on = Recorder(any_storage), threading.Event()
        busy = [asyncio.ensure_future(recorder.db(reads_go_on.wait, 10)) for _ in range(any_storage.threads * 2)]
        try:
            await asyncio.wait_for(recorder.append(Append(game_id, 1, (Move.rolled((1, 2, 3, 4)),), to_move=0)), 5)
            return not any(read.done() for read in busy)
        finally:
            reads_go_on.set()
            await asyncio.gather(*busy)
            await recorder.close()

    assert asyncio.run(store_while_busy())
    assert any_storage.events(game_id) == [Move.rolled((1, 2, 3, 4))]


def test_on_sqlite_a_commit_waits_for_another_write_under_way_and_is_stored(storage: Storage) -> None:
    """SQLite has one writer at a time: the group commit (on its own thread) meeting a write
    under way on the other (a game being created, a seat taken) waits for it and goes on,
    rather than failing as 'database is locked'."""
    game_id = storage.create_game("classic", [("bot", "random"), ("bot", "random")])
    storage.start(game_id, 0, {})
    writing, done = threading.Event(), threading.Event()

    def long_write() -> None:
        with storage.engine.begin() as conn:
            conn.execute(text("UPDATE games SET rematch = NULL WHERE id = :id"), {"id": game_id})
            writing.set()
            done.wait(0.3)  # the write lock held a while

    async def commit_meanwhile() -> None:
        recorder = Recorder(storage)
        try:
            held = asyncio.ensure_future(recorder.db(long_write))
            await asyncio.to_thread(writing.wait, 5)
            await recorder.append(Append(game_id, 1, (Move.rolled((1, 2, 3, 4)),), to_move=0))
            await held
        finally:
            await recorder.close()

    asyncio.run(commit_meanwhile())
    assert storage.events(game_id) == [Move.rolled((1, 2, 3, 4))]


def test_sqlite_commits_leave_checkpoints_to_the_recorders_own_thread(tmp_path: Path) -> None:
    """A checkpoint flushes the disk twice: inside a commit it held up every action of the
    batch. Commits no longer checkpoint; the recorder does, beside the writer."""
    url = f"sqlite:///{tmp_path / 'wal.sqlite3'}"
    storage = Storage(url)
    storage.migrate()
    game_id = storage.create_game("classic", [("bot", "random"), ("bot", "random")])
    storage.start(game_id, 0, {})
    with storage.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == 0
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"

    async def play() -> int:
        recorder = Recorder(storage, checkpoint_every=0)
        moves = [Move.rolled((1, 2, 3, 4)), Move.of((3, 7))] * 20
        for seq, move in enumerate(moves, 1):
            await recorder.append(Append(game_id, seq, (move,)))
        await settled(lambda: recorder.checkpoints > 0, "a checkpoint")  # it runs beside the writer, soon after a commit
        await recorder.close()
        return recorder.checkpoints

    assert asyncio.run(play()) >= 1
    storage.close()
    again = Storage(url)
    assert len(again.events(game_id)) == 40
    again.close()


def test_of_two_taking_the_last_seats_at_once_one_sees_the_game_full(any_storage: Storage) -> None:
    """Each claim hands back the game as it stands; the one who starts the game is whoever
    sees every seat taken. Taken at the same moment (two server processes), one of them must
    see the other's seat, or the game would wait for nobody."""

    def take(game_id: str, seat: int, barrier: threading.Barrier, seen: list[bool | None]) -> None:
        barrier.wait()
        claimed = any_storage.claim_seat(game_id, seat, f"P{seat}")
        seen.append(None if claimed is None else all(s.kind == "person" for s in claimed[1].seats))

    for _ in range(10):
        game_id = any_storage.create_game("classic", [("open", None), ("open", None)])
        barrier = threading.Barrier(2)
        seen: list[bool | None] = []
        takers = [threading.Thread(target=take, args=(game_id, seat, barrier, seen)) for seat in (0, 1)]
        for t in takers:
            t.start()
        for t in takers:
            t.join()
        assert None not in seen and len(seen) == 2 and any(seen)


def test_racing_writers_store_exactly_one_action_per_version(any_storage: Storage) -> None:
    game_id = any_storage.create_game("classic", [("bot", "random"), ("bot", "random")])
    any_storage.start(game_id, 0, {})
    outcomes: list[str] = []
    barrier = threading.Barrier(6)

    def write(face: int) -> None:
        barrier.wait()
        try:
            any_storage.append(game_id, 1, Move.rolled((face, 1, 1, 1)))
            outcomes.append("stored")
        except StaleMoveError:
            outcomes.append("stale")

    threads = [threading.Thread(target=write, args=(f,)) for f in range(1, 7)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["stale"] * 5 + ["stored"]
    with any_storage.session() as s:
        assert len(s.scalars(select(EventRow).where(EventRow.game_id == game_id)).all()) == 1


def test_ratings_and_leaderboards(any_storage: Storage) -> None:
    from cantstop.web.identity.accounts import Accounts
    from cantstop.web.players import standings
    from cantstop.web.players.standings import Result

    ann, bob = (Accounts(any_storage).create(name, None).id for name in ("Ann", "Bob"))
    game_id = any_storage.create_game("classic", [("open", None), ("open", None), ("bot", "random")])
    start = Rating(RatingKind.PERSON, "", 25, 8.3, 0, 0, players=3)
    results = [
        Result(0, (RatingKind.PERSON, ann), Rating(RatingKind.PERSON, "", 30, 2, 3, 2), start, 1.0, "Ann"),
        Result(1, (RatingKind.PERSON, bob), Rating(RatingKind.PERSON, "", 28, 8, 1, 0), start, 0.5, "Bob"),
        Result(2, (RatingKind.BOT, "bot:random"), Rating(RatingKind.BOT, "", 20, 3, 1, 0), start, 1.0, "bot:random"),
    ]
    with any_storage.session() as s:
        standings.save(s, game_id, results)
    assert [r.name for r in standings.board(any_storage, RatingKind.PERSON, 3, provisional=True)] == ["Ann", "Bob"]
    assert [r.name for r in standings.board(any_storage, RatingKind.BOT, 3)] == ["bot:random"]
    found = standings.ratings(any_storage, [(RatingKind.PERSON, bob), (RatingKind.PERSON, 99)], 3)
    assert list(found) == [(RatingKind.PERSON, bob)] and (found[(RatingKind.PERSON, bob)].mu, found[(RatingKind.PERSON, bob)].name) == (28, "Bob")
    assert standings.ratings(any_storage, [(RatingKind.PERSON, bob)], 2) == {}  # three-player games rate apart
    changes = standings.changes(any_storage, game_id)
    assert changes[1].weight == 0.5 and (changes[0].before, changes[0].after) == (1500, 1647)  # 1500 + 29.48 x (30 - 25)


def test_a_whole_bot_game_through_the_app(any_storage: Storage) -> None:
    with TestClient(create_app(any_storage, bot_delay=0)) as client:
        game_id = new_game(client, ["bot:random", "bot:random"])
        final = wait_for(client, game_id, lambda g: g["status"] == "over")
    assert len(any_storage.events(game_id)) == final["version"]
    from cantstop.web.players import standings

    assert standings.board(any_storage, RatingKind.BOT, 3) == []  # a friendly game: nothing is rated


@settings(max_examples=100, deadline=None)
@given(
    st.one_of(
        st.tuples(*[st.integers(1, 9)] * 4).map(Move.rolled),
        st.lists(st.integers(2, 20), min_size=1, max_size=3).map(lambda cs: Move.of(tuple(sorted(cs)))),
        st.sampled_from([Move.of(ROLL), Move.of(STOP)]),
        st.builds(Move.fallback, st.integers(0, 3), st.text(max_size=60)),
        st.builds(Move.resign, st.integers(0, 3), st.text(max_size=60)),
    )
)
def test_moves_round_trip_through_their_stored_form(move: Move) -> None:
    back = decode_move(*encode_move(move))
    assert back == move
    if not move.out_of_band:
        assert type(back.event) is type(move.event)


def test_the_migrations_build_exactly_the_models_schema(any_storage: Storage) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from cantstop.web.db.rows import Base

    with any_storage.engine.connect() as conn:
        differences = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert differences == []


def test_the_upgrade_says_whose_move_it_is_in_the_games_under_way(any_url: str) -> None:
    """A game in play from before its rows said whose move it was (three seats: Ann played a
    turn, then Bob resigned: Cy is to move) shows as Cy's turn at once after the upgrade,
    not only after its next move; a game waiting for players is left alone."""
    from sqlalchemy import text

    from cantstop.core.dice import SeededDice
    from cantstop.table import Table
    from cantstop.web.db.engine import migrate
    from cantstop.web.db.rows import now
    from cantstop.web.db.tokens import hash_token

    table = Table.new("classic", ["Ann", "Bob", "Cy"], SeededDice(3), first=0)
    table.play(Move.of(ROLL))
    table.play(Move.of(table.state.options[0]))
    table.play(Move.of(STOP))
    table.play(Move.resign(1, "resigned"))
    assert table.seat == 2
    storage = Storage(any_url)
    migrate(storage.engine, any_url, "0007")
    with storage.engine.begin() as conn:
        for game_id, status, first in (("under_way", "playing", 0), ("waiting", "waiting", None)):
            conn.execute(text("INSERT INTO games (id, variant, first, tags, status, version, created, updated, clock, rated)"
                              " VALUES (:id, 'classic', :first, '{}', :status, :version, :t, :t, 0, false)"),
                         {"id": game_id, "first": first, "status": status, "version": len(table.moves) if first is not None else 0, "t": now()})
            for seat, name in enumerate(("Ann", "Bob", "Cy")):
                conn.execute(text("INSERT INTO seats (game_id, seat, kind, name, token_hash) VALUES (:g, :s, 'person', :n, :h)"),
                             {"g": game_id, "s": seat, "n": name, "h": hash_token(f"{game_id}-{name}")})
        for seq, move in enumerate(table.moves, 1):
            kind, data = encode_move(move)
            conn.execute(text("INSERT INTO events (game_id, seq, kind, data, created) VALUES ('under_way', :q, :k, :d, :t)"),
                         {"q": seq, "k": kind, "d": data, "t": now()})
    storage.migrate()
    assert [(g.id, g.to_move) for g in (storage.game("under_way"), storage.game("waiting")) if g] == [("under_way", 2), ("waiting", None)]
    with TestClient(create_app(storage, bot_delay=0)) as client:
        for name, turn in (("Cy", True), ("Ann", False)):
            mine = client.post("/api/my-games", json={"tokens": [{"game": "under_way", "token": f"under_way-{name}"}]}).json()
            assert [(g["id"], g["your_turn"]) for g in mine["games"]] == [("under_way", turn)]
    storage.close()


def test_a_game_id_never_starts_with_a_dash(monkeypatch: pytest.MonkeyPatch) -> None:
    """An id such as '-nX…' was read as an option by `cantstop analyse ID --db URL` (it
    failed a test once in 64 runs): new ids are drawn again until they do not start so."""
    from cantstop.web.db import tokens

    drawn = iter(["-nabcdefghij", "--abcdefghij", "nabcdefghij-"])
    monkeypatch.setattr(tokens.secrets, "token_urlsafe", lambda n: next(drawn))
    assert tokens.new_game_id() == "nabcdefghij-"
