"""Games that always end: resigning at any moment, forfeits after timeouts in a row,
turn-based clocks, and games left alone ending as abandoned, unrated; after a restart too,
and once only with several processes on one database. Time is moved on by a controllable
clock, never slept through."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from datetime import UTC, timedelta
from typing import Any

import pytest
from account_helpers import people, post, rated_game
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from test_ops_health import TOKEN, samples
from web_helpers import NO_LIMITS, auth, join, new_game, until, wait_for

from cantstop.core.record import read_record
from cantstop.core.state import ROLL, STOP, Phase
from cantstop.table import Kind, Move, StaleMoveError
from cantstop.web.app import create_app
from cantstop.web.db import storage as storage_module
from cantstop.web.db.rows import EventRow
from cantstop.web.db.storage import Storage
from cantstop.web.db.tokens import new_token
from cantstop.web.db.values import GameStatus, RatingKind, SeatKind
from cantstop.web.games.clock import DAY, RAN_OUT
from cantstop.web.games.live import LiveGame
from cantstop.web.games.sweeper import stamp
from cantstop.web.players import standings
from cantstop.web.service import GameService

WEEK = 7 * DAY


class Clock:
    """The server's clock, moved on by the tests."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def __call__(self) -> float:
        return time.time() + self.ahead

    def advance(self, seconds: float) -> None:
        self.ahead += seconds


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The clock of the servers of a test, the times they store included."""
    server_clock = Clock()
    monkeypatch.setattr(storage_module, "now", lambda: stamp(server_clock()))
    return server_clock


@pytest.fixture
def app_client(storage: Storage, clock: Clock) -> Iterator[TestClient]:
    with TestClient(create_app(storage, now=clock, bot_delay=0, **NO_LIMITS)) as client:
        yield client


def hot_seat(client: TestClient, names: list[str], variant: str = "classic", clock: int = 0) -> tuple[str, list[str]]:
    """A game whose seats are all taken at creation (people at one screen): it starts at once."""
    body = {"variant": variant, "seats": ["open"] * len(names), "clock": clock,
            "take": [{"seat": i, "name": n} for i, n in enumerate(names)]}
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    created = response.json()
    return created["id"], [t["token"] for t in sorted(created["taken"], key=lambda t: t["seat"])]


def sweep(client: TestClient) -> int:
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    return int(client.portal.call(service.sweeper.sweep))  # type: ignore[union-attr]


def resign(client: TestClient, game_id: str, token: str | None) -> Any:
    return client.post(f"/api/games/{game_id}/resign", headers=auth(token) if token else {})


# ------------------------------------------------------------------ resigning
def test_resigning_a_two_player_game_makes_the_other_win_and_ranks_the_resigner_last(app_client: TestClient) -> None:
    client = app_client
    game_id, tokens = hot_seat(client, ["Ann", "Bob"])
    to_move = client.get(f"/api/games/{game_id}").json()["state"]["player"]
    waiting = 1 - to_move  # a seat may resign while it is not its turn
    response = resign(client, game_id, tokens[waiting])
    assert response.status_code == 200, response.text
    game = response.json()
    assert game["status"] == "over" and game["state"]["winner"] == to_move
    log = client.get(f"/api/games/{game_id}").json()["log"]
    names = ["Ann", "Bob"]
    assert log[-1]["kind"] == "resign" and log[-1]["text"] == f"{names[waiting]} resigns; {names[to_move]} wins."
    record = client.get(f"/api/games/{game_id}/record").text
    assert f"resign:{'AB'[waiting]}" in record and f'[Result "{"AB"[to_move]}"]' in record
    assert read_record(record).final().winner == to_move
    assert client.get("/api/players").json() == []  # people at one screen play friendly games: nobody is rated
    # Over is over: nobody resigns twice.
    again = resign(client, game_id, tokens[to_move])
    assert again.status_code == 409 and again.json()["error"] == "game_over" and "the game is over" in again.json()["message"]


def test_in_a_three_player_game_the_seat_leaves_and_play_goes_on(app_client: TestClient) -> None:
    client = app_client
    game_id, tokens = hot_seat(client, ["Ann", "Bob", "Cy"])
    with client.websocket_connect(f"/ws/games/{game_id}", headers=auth(tokens[0])) as ws:
        hello = until(ws, "hello")
        first = hello["game"]["state"]["player"]
        ws.send_json({"type": "action", "version": 0, "action": "roll"})  # as whoever is first, by that seat's token
        ws.send_json({"type": "resign", "token": tokens[1]})  # Bob resigns from the screen that holds his seat
        replies = [until(ws, "ok") if first == 0 else None, until(ws, "ok")]
        assert replies[-1] == {"type": "ok", "resigned": 1}
    game = client.get(f"/api/games/{game_id}").json()
    assert game["status"] == "playing" and game["state"]["out"] == [1]
    assert game["state"]["player"] != 1 and game["state"]["pieces"][1] == {}
    assert any(e["kind"] == "resign" and e["text"] == "Bob resigns." for e in game["log"])
    # Play goes on between Ann and Cy, Bob's seat passed over, until Cy resigns too: Ann wins.
    seen = set()
    for _ in range(6):
        game = client.get(f"/api/games/{game_id}").json()
        state = game["state"]
        seen.add(state["player"])
        action = "roll" if state["phase"] == "roll" else state["legal"][0] if state["phase"] == "choose" else "stop"
        acted = client.post(f"/api/games/{game_id}/actions", json={"version": game["version"], "action": action},
                            headers=auth(tokens[state["player"]]))
        assert acted.status_code == 200, acted.text
    assert 1 not in seen
    left = resign(client, game_id, tokens[1])
    assert left.status_code == 409 and left.json()["error"] == "already_left" and "seat B has left" in left.json()["message"]
    assert resign(client, game_id, tokens[2]).json()["state"]["winner"] == 0


def test_in_a_rated_game_the_seats_that_resign_rank_last(storage: Storage) -> None:
    """Three accounts: Bob resigns first, then Cy: Ann wins, and Bob and Cy share the last
    place: Cy gains nothing by having stayed longer."""
    with people(storage, "Ann", "Bob", "Cy") as (ann, bob, cy):
        game_id = rated_game(ann, [bob, cy])
        for who in (bob, cy):
            left = post(who, f"/api/games/{game_id}/resign", {})
            assert left.status_code == 200, left.text
        assert left.json()["state"]["winner"] == 0
        board = {p["name"]: p for p in ann.get("/api/players", params={"players": 3, "provisional": True}).json()}
        assert board["Ann"]["rating"] > board["Cy"]["rating"] and board["Cy"]["rating"] == pytest.approx(board["Bob"]["rating"])
        summary = ann.get(f"/api/games/{game_id}/summary").json()
        assert [s["place"] for s in summary["seats"]] == [1, 3, 3]
        changes = standings.changes(storage, game_id)
        assert changes[1].change == pytest.approx(changes[2].change) and changes[1].change < 0
        assert (board["Ann"]["wins"], board["Bob"]["wins"], board["Cy"]["wins"]) == (1, 0, 0)
        two = rated_game(bob, [cy])
        to_move = bob.get(f"/api/games/{two}").json()["state"]["player"]
        waiting = (bob, cy)[1 - to_move]  # a seat may resign while it is not its turn
        assert post(waiting, f"/api/games/{two}/resign", {}).json()["state"]["winner"] == to_move
        assert bob.get(f"/api/games/{two}/summary").status_code == 200  # the rating follows the last move: the summary waits for it
        changes = {seat: c.change for seat, c in standings.changes(storage, two).items()}
        assert changes[to_move] > 0 > changes[1 - to_move]


def test_only_a_player_of_the_game_can_resign(app_client: TestClient) -> None:
    client = app_client
    game_id, tokens = hot_seat(client, ["Ann", "Bob"])
    nobody = resign(client, game_id, None)
    assert nobody.status_code == 403 and nobody.json()["error"] == "not_seated"
    stranger = resign(client, game_id, new_token())
    assert stranger.status_code == 403 and stranger.json()["error"] == "bad_token"
    other_id, other_tokens = hot_seat(client, ["Cy", "Dee"])
    assert resign(client, game_id, other_tokens[0]).json()["error"] == "bad_token"  # a seat of another game
    assert resign(client, "no-such-game", tokens[0]).status_code == 404
    with client.websocket_connect(f"/ws/games/{game_id}") as watcher:
        until(watcher, "hello")
        watcher.send_json({"type": "resign"})
        refused = until(watcher, "error")
        assert refused["error"] == "not_seated" and refused["about"] == "action"
        watcher.send_json({"type": "resign", "seat": 0})
        assert "seat" in until(watcher, "error")["message"]  # no such field: a seat is chosen by its token only
    assert client.get(f"/api/games/{game_id}").json()["status"] == "playing"
    assert client.get(f"/api/games/{other_id}").json()["status"] == "playing"


def test_leaving_before_the_start_opens_the_seat_again(app_client: TestClient) -> None:
    client = app_client
    game_id = new_game(client, ["open", "open", "bot:random"])
    ann = join(client, game_id, 0, "Ann")
    response = resign(client, game_id, ann)
    assert response.status_code == 200 and response.json()["status"] == "waiting"
    assert response.json()["seats"][0]["kind"] == "open" and response.json()["seats"][0]["name"] is None
    assert resign(client, game_id, ann).json()["error"] == "bad_token"  # the token holds nothing now
    join(client, game_id, 0, "Eve")
    join(client, game_id, 1, "Bob")
    assert client.get(f"/api/games/{game_id}").json()["status"] == "playing"


def test_leaving_before_the_start_clears_the_browsers_cookie_for_the_seat(
    app_client: TestClient,
) -> None:
    """A seat joined online is held by the browser's cookie: the answer that opens the seat
    again clears it (the cookie would hold nothing). A cookie holding a seat stays when a seat
    held by a token leaves, and when its own seat resigns in play."""
    client = app_client
    cookie = lambda game: client.cookies.get(f"cantstop_{game}")  # noqa: E731
    game_id = new_game(client, ["open", "open", "bot:random"])
    client.post(f"/api/games/{game_id}/join", json={"seat": 0, "name": "Ann"})
    assert cookie(game_id)
    left = resign(client, game_id, None)  # by its cookie, as the page does
    assert left.status_code == 200 and left.json()["seats"][0]["kind"] == "open"
    dropped = left.headers["set-cookie"]
    assert dropped.startswith(f"cantstop_{game_id}=") and all(
        part in dropped.lower() for part in ("max-age=0", "httponly", "samesite=strict")
    )
    assert cookie(game_id) is None and client.get(f"/api/games/{game_id}").json()["you"] is None
    client.post(
        f"/api/games/{game_id}/join", json={"seat": 0, "name": "Ann"}
    )  # online again, and someone at this screen
    cy = client.post(
        f"/api/games/{game_id}/join", json={"seat": 1, "name": "Cy", "screen": True}
    ).json()["token"]
    assert (
        "set-cookie" not in resign(client, game_id, cy).headers
        and client.get(f"/api/games/{game_id}").json()["you"] == 0
    )
    client.post(
        f"/api/games/{game_id}/join", json={"seat": 1, "name": "Cy", "screen": True}
    )  # the game starts
    assert (
        "set-cookie" not in resign(client, game_id, None).headers
        and client.get(f"/api/games/{game_id}").json()["you"] == 0
    )


def test_a_solitaire_player_who_gives_up_ends_the_game_abandoned_and_unrated(app_client: TestClient) -> None:
    client = app_client
    game_id, tokens = hot_seat(client, ["Ann"], variant="solitaire")
    client.post(f"/api/games/{game_id}/actions", json={"version": 0, "action": "roll"}, headers=auth(tokens[0]))
    game = resign(client, game_id, tokens[0]).json()
    assert game["status"] == "abandoned" and game["ended"] == "Ann gave up in turn 1."
    after = client.get(f"/api/games/{game_id}").json()
    assert after["log"][-1] == {"kind": "end", "seat": None, "version": 1, "text": "Ann gave up in turn 1."}
    refused = client.post(f"/api/games/{game_id}/actions", json={"version": 1, "action": after["state"]["legal"][0]},
                          headers=auth(tokens[0]))
    assert refused.status_code == 409 and refused.json()["error"] == "game_over" and "Ann gave up" in refused.json()["message"]
    assert [g["id"] for g in client.get("/api/games").json()] == []
    assert [g["id"] for g in client.get("/api/games?finished=true").json()] == [game_id]
    record = client.get(f"/api/games/{game_id}/record").text
    assert '[Ended "Ann gave up in turn 1."]' in record and '[Result "*"]' in record
    assert client.get("/api/players").json() == []


# ------------------------------------------------------------------ clocks
@pytest.mark.parametrize("seconds", [12 * 3600, DAY, 3 * DAY])
def test_turn_based_clocks_give_each_move_hours_or_days(app_client: TestClient, clock: Clock, seconds: int) -> None:
    client = app_client
    before = clock() * 1000
    game_id, _ = hot_seat(client, ["Ann", "Bob"], clock=seconds)
    game = client.get(f"/api/games/{game_id}").json()
    assert game["clock"]["seconds"] == seconds
    assert before + seconds * 1000 - 1000 <= game["clock"]["deadline"] <= clock() * 1000 + seconds * 1000
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    assert not service.clock.counting(service.games.held[game_id])  # nothing counts down in memory for days


def test_a_clock_not_offered_is_refused_naming_the_ones_that_are(app_client: TestClient) -> None:
    response = app_client.post("/api/games", json={"seats": ["open", "open"], "clock": 3600})
    assert response.status_code == 422
    assert "turn-based (12 hours, 1 day, 3 days)" in response.json()["message"]


def moves_of(storage: Storage, game_id: str) -> list[Move]:
    return storage.events(game_id)


def server(storage: Storage, clock: Clock, **options: Any) -> GameService:
    """A server process on `storage` whose clock is `clock`; no standby (one process acts at once)."""
    return GameService(storage, bot_delay=0, bot_standby=0.0, now=clock, **options)


async def counted_down(game: LiveGame) -> None:
    """Wait for the game's countdown to act (its task may end cancelled: it restarts the clock for the next move)."""
    assert game.clock_task is not None
    await asyncio.wait([game.clock_task])


async def out_of_time(service: GameService, clock: Clock, game: LiveGame) -> None:
    """Let the move now due run out: the clock moves on past the deadline and the countdown acts."""
    deadline = game.deadline()
    assert deadline is not None
    clock.advance(deadline - clock() + 1)
    version = game.version
    service.clock.wake(game)
    await counted_down(game)
    assert game.version > version


async def own_move(service: GameService, game: LiveGame) -> None:
    """The person to move moves by themselves: roll, first choice, or stop."""
    state = game.state
    assert state is not None
    move = Move.of(ROLL) if state.phase is Phase.ROLL else Move.of(STOP) if state.phase is Phase.DECIDE else Move.of(state.options[0])
    await service.games.act(game.meta.id, state.seat, game.version, move)


async def two_people(service: GameService, clock_seconds: int = 30) -> LiveGame:
    game_id = await service.lobby.create("classic", ["open", "open"], {0: ("Ann", new_token()), 1: ("Bob", new_token())}, clock=clock_seconds)
    return await service.games.live(game_id)


def test_the_third_timeout_in_a_row_forfeits_the_seat(storage: Storage, clock: Clock) -> None:
    """One seat is away, the other plays: the clock plays for the absent one twice, then it forfeits."""
    async def run() -> tuple[LiveGame, int]:
        service = server(storage, clock)
        game = await two_people(service)
        absent = game.state.seat if game.state else -1
        for _ in range(200):
            if game.finished or game.state is None:
                break
            if game.state.seat == absent:
                await out_of_time(service, clock, game)
            else:
                await own_move(service, game)
        await service.close()
        return game, absent

    game, absent = asyncio.run(run())
    assert game.finished and game.state is not None and game.state.winner == 1 - absent
    moves = moves_of(storage, game.meta.id)
    assert moves[-1] == Move.resign(absent, f"timeout: {RAN_OUT} 3 times in a row")
    assert [m.seat for m in moves if m.kind is Kind.FALLBACK] == [absent, absent]  # played for it twice first
    assert game.log[-1]["text"] == f"{['Ann', 'Bob'][absent]} forfeits (timeout: {RAN_OUT} 3 times in a row); {['Ann', 'Bob'][1 - absent]} wins."
    assert storage.game(game.meta.id).status is GameStatus.OVER  # type: ignore[union-attr]
    assert standings.board(storage, RatingKind.PERSON, 2, provisional=True) == []  # friendly: the forfeit rates nobody


def test_a_solitaire_player_out_of_time_three_times_in_a_row_ends_the_game_unfinished(storage: Storage, clock: Clock) -> None:
    async def run() -> LiveGame:
        service = server(storage, clock)
        game = await service.games.live(await service.lobby.create("solitaire", ["open"], {0: ("Ann", new_token())}, clock=120))
        for _ in range(2):
            await out_of_time(service, clock, game)
        deadline = game.deadline()
        assert deadline is not None
        clock.advance(deadline - clock() + 1)  # the third: no move is made for it, the game ends
        service.clock.wake(game)
        await counted_down(game)
        await service.close()
        return game

    game = asyncio.run(run())
    assert game.ended and game.meta.ended == "Ann ran out of time 3 times in a row: the game ends unfinished."
    assert [m.kind for m in moves_of(storage, game.meta.id)] == [Kind.FALLBACK, Kind.ROLL, Kind.FALLBACK, Kind.CHOICE]


def test_a_move_of_ones_own_starts_the_count_again(storage: Storage, clock: Clock) -> None:
    async def run() -> list[Move]:
        service = server(storage, clock, forfeit_after=2)
        game = await two_people(service)
        seat = game.state.seat if game.state else -1
        await out_of_time(service, clock, game)  # rolled for the seat: one timeout
        assert game.strikes[seat] == 1
        if game.state is not None and game.state.seat == seat:  # no bust: the seat chooses by itself
            await own_move(service, game)
            assert game.strikes[seat] == 0
            await out_of_time(service, clock, game)  # one timeout again, not two: no forfeit
            assert not game.finished and game.strikes[seat] == 1
        await service.close()
        return moves_of(storage, game.meta.id)

    assert not any(m.kind is Kind.RESIGN for m in asyncio.run(run()))


def test_timeouts_in_a_row_are_counted_across_a_restart(storage: Storage, clock: Clock) -> None:
    async def first_server() -> tuple[str, dict[int, int]]:
        service = server(storage, clock)
        game = await two_people(service)
        await out_of_time(service, clock, game)
        await out_of_time(service, clock, game)
        await service.close()
        return game.meta.id, dict(game.strikes)

    async def second_server(game_id: str) -> tuple[dict[int, int], LiveGame]:
        service = server(storage, clock)
        game = await service.games.live(game_id)
        strikes = dict(game.strikes)
        while not game.finished:
            await out_of_time(service, clock, game)
        await service.close()
        return strikes, game

    game_id, before = asyncio.run(first_server())
    after, game = asyncio.run(second_server(game_id))
    assert after == before and sum(before.values()) == 2  # counted again from the stored moves
    assert game.finished and moves_of(storage, game_id)[-1].kind is Kind.RESIGN


def test_after_a_restart_the_sweeper_finds_a_turn_based_deadline(storage: Storage, clock: Clock) -> None:
    async def created() -> str:
        service = server(storage, clock)
        game = await two_people(service, DAY)
        assert not service.clock.counting(game)
        await service.close()
        return game.meta.id

    async def restarted(game_id: str) -> list[Move]:
        service = server(storage, clock)
        assert await service.sweeper.sweep() == 0 and game_id not in service.games.held  # not due: not even loaded
        clock.advance(DAY - 60)  # due within the horizon: the countdown starts, for the last minute
        assert await service.sweeper.sweep() == 1 and service.clock.counting(service.games.held[game_id])
        clock.advance(61)
        game = service.games.held[game_id]
        service.clock.wake(game)
        await counted_down(game)
        await service.close()
        return moves_of(storage, game_id)

    moves = asyncio.run(restarted(asyncio.run(created())))
    assert moves[0].kind is Kind.FALLBACK and moves[0].reason == f"timeout: {RAN_OUT}" and len(moves) == 2


# ------------------------------------------------------------------ abandonment
def test_a_game_without_a_clock_left_alone_for_a_week_ends_abandoned_and_unrated(app_client: TestClient, clock: Clock) -> None:
    client = app_client
    game_id, tokens = hot_seat(client, ["Ann", "Bob"])
    first = client.get(f"/api/games/{game_id}").json()["state"]["player"]
    client.post(f"/api/games/{game_id}/actions", json={"version": 0, "action": "roll"}, headers=auth(tokens[first]))
    clock.advance(WEEK - 60)
    assert sweep(client) == 0 and client.get(f"/api/games/{game_id}").json()["status"] == "playing"
    clock.advance(120)
    assert sweep(client) == 1
    game = client.get(f"/api/games/{game_id}").json()
    ended = "Abandoned: no player had the game open for 7 days."
    assert game["status"] == "abandoned" and game["ended"] == ended and game["log"][-1]["text"] == ended
    assert game["state"]["winner"] is None and game["clock"]["deadline"] is None
    refused = client.post(f"/api/games/{game_id}/actions", json={"version": 1, "action": game["state"]["legal"][0]},
                          headers=auth(tokens[first]))
    assert refused.status_code == 409 and refused.json()["error"] == "game_over" and "abandoned" in refused.json()["message"].lower()
    assert client.get("/api/games").json() == []
    assert [(g["id"], g["status"]) for g in client.get("/api/finished").json()] == [(game_id, "abandoned")]
    profile = client.get("/api/players/Ann").json()
    assert [g["id"] for g in profile["games"]] == [game_id] and profile["playing"] == [] and profile["rating"] is None
    assert client.get("/api/players").json() == []  # unrated
    assert f'[Ended "{ended}"]' in client.get(f"/api/games/{game_id}/record").text
    assert sweep(client) == 0  # ended once


def test_a_player_with_the_game_open_keeps_it_going(app_client: TestClient, clock: Clock, storage: Storage) -> None:
    client = app_client
    game_id, tokens = hot_seat(client, ["Ann", "Bob"])
    with client.websocket_connect(f"/ws/games/{game_id}", headers=auth(tokens[0])) as ws:
        until(ws, "hello")
        clock.advance(2 * WEEK)
        assert sweep(client) == 0  # Ann has it open here
        seen = storage.game(game_id).seen  # type: ignore[union-attr]
        assert seen is not None and seen.replace(tzinfo=UTC).timestamp() > time.time() + WEEK  # written at the server's time
    sweep(client)  # Ann closed it: the time she did is written down
    clock.advance(WEEK - 60)
    assert sweep(client) == 0 and client.get(f"/api/games/{game_id}").json()["status"] == "playing"
    clock.advance(120)
    assert sweep(client) == 1 and client.get(f"/api/games/{game_id}").json()["status"] == "abandoned"


def test_a_spectator_does_not_keep_a_game_going(app_client: TestClient, clock: Clock) -> None:
    client = app_client
    game_id, _ = hot_seat(client, ["Ann", "Bob"])
    with client.websocket_connect(f"/ws/games/{game_id}") as watcher:
        until(watcher, "hello")
        clock.advance(WEEK + 60)
        assert sweep(client) == 1
        update = until(watcher, "update")
        assert update["game"]["status"] == "abandoned" and update["log"][-1]["kind"] == "end"


def test_an_abandoned_game_can_be_played_again_and_has_no_odds(app_client: TestClient, clock: Clock) -> None:
    client = app_client
    game_id, tokens = hot_seat(client, ["Ann", "Bob"])
    clock.advance(WEEK + 60)
    sweep(client)
    assert client.get(f"/api/games/{game_id}/odds").json()["error"] == "no_odds"
    again = client.post(f"/api/games/{game_id}/rematch", json={"tokens": tokens})
    assert again.status_code == 201, again.text
    assert client.get(again.json()["url"].replace("/game/", "/api/games/")).json()["status"] == "playing"


def test_a_waiting_game_nobody_joins_is_abandoned(app_client: TestClient, clock: Clock) -> None:
    client = app_client
    game_id = new_game(client, ["open", "bot:random"])
    clock.advance(WEEK + 60)
    assert sweep(client) == 1
    assert client.get(f"/api/games/{game_id}").json()["status"] == "abandoned"
    late = client.post(f"/api/games/{game_id}/join", json={"seat": 0, "name": "Ann"})
    assert late.status_code == 409 and late.json()["error"] == "not_waiting" and "abandoned" in late.json()["message"]


def test_a_move_stored_first_wins_over_the_end(any_storage: Storage) -> None:
    storage = any_storage
    open_seat = (SeatKind.OPEN, None)
    game_id = storage.create_game("classic", [open_seat, open_seat], {0: ("Ann", new_token()), 1: ("Bob", new_token())})
    storage.start(game_id, 0, {})
    storage.append(game_id, 1, Move.rolled((1, 2, 3, 4)))
    reason = "Abandoned: a test."
    assert not storage.end_game(game_id, 0, GameStatus.PLAYING, reason)  # made on version 0: a move took version 1
    moved = storage.game(game_id).updated  # type: ignore[union-attr]
    assert moved is not None
    assert not storage.end_game(game_id, 1, GameStatus.PLAYING, reason, idle_before=moved - timedelta(days=1))  # it moved since
    storage.seen_now([game_id], moved + timedelta(days=2))
    assert not storage.end_game(game_id, 1, GameStatus.PLAYING, reason, idle_before=moved + timedelta(days=1))  # open since
    assert storage.end_game(game_id, 1, GameStatus.PLAYING, reason, idle_before=moved + timedelta(days=3))
    assert not storage.end_game(game_id, 1, GameStatus.PLAYING, reason)  # once
    assert storage.game(game_id).status is GameStatus.ABANDONED  # type: ignore[union-attr]
    assert len(storage.events(game_id)) == 1  # the end row is no move
    with pytest.raises(StaleMoveError):
        storage.append(game_id, 2, Move.of(STOP))  # no move after the end: its version is taken


def test_processes_sweeping_one_database_end_a_game_and_time_out_a_move_once(any_storage: Storage, clock: Clock) -> None:
    storage = any_storage

    async def run() -> tuple[int, str, str]:
        here, there = server(storage, clock), server(storage, clock)
        idle = await here.lobby.create("classic", ["open", "open"], {0: ("Ann", new_token()), 1: ("Bob", new_token())})
        timed = (await two_people(here, DAY)).meta.id
        clock.advance(WEEK + 60)
        await asyncio.gather(here.sweeper.sweep(), there.sweeper.sweep())
        # Whichever stored the timeout first, the other may not have found the game due any more.
        await asyncio.wait([t for s in (here, there) if timed in s.games.held and (t := s.games.held[timed].clock_task) is not None])
        abandoned = here.sweeper.abandoned + there.sweeper.abandoned
        for service in (here, there):
            await service.close()
        return abandoned, idle, timed

    abandoned, idle, timed = asyncio.run(run())
    assert abandoned == 1
    with storage.session() as s:
        ends = s.scalar(select(func.count()).where(EventRow.game_id == idle, EventRow.kind == "end"))
    assert ends == 1 and storage.game(idle).status is GameStatus.ABANDONED  # type: ignore[union-attr]
    moves = storage.events(timed)
    assert [m.kind for m in moves] == [Kind.FALLBACK, Kind.ROLL]  # one timeout stored for the move, by one of them


def test_the_metrics_count_forfeits_and_abandoned_games(storage: Storage, clock: Clock) -> None:
    with TestClient(create_app(storage, now=clock, bot_delay=0, clock_scale=0.005, metrics_token=TOKEN, **NO_LIMITS)) as client:
        assert samples(client)["cantstop_seats_forfeited_total"] == 0
        timed, _ = hot_seat(client, ["Ann", "Bob"], clock=30)  # nobody plays: three timeouts in a row, 0.15 s each
        wait_for(client, timed, lambda g: g["status"] == "over")
        hot_seat(client, ["Cy", "Dee"])
        clock.advance(WEEK + 60)
        assert sweep(client) == 1
        found = samples(client)
    assert found["cantstop_seats_forfeited_total"] == 1 and found["cantstop_games_abandoned_total"] == 1
    assert found["cantstop_clock_timeouts_total"] == 3  # two moves played for the seat, then its forfeit


def test_a_game_read_in_whose_bot_is_to_move_moves_on(storage: Storage, clock: Clock) -> None:
    """A process that reads a game in (a visitor, a sweep), not only one that restarts, moves its bot."""
    async def run() -> tuple[int, int]:
        stalled = GameService(storage, bot_delay=1000.0)  # its bots would wait for ever; it stops meanwhile
        game_id = await stalled.lobby.create("classic", ["bot:random", "bot:random"])
        await stalled.close()
        other = server(storage, clock)
        game = await other.games.live(game_id)  # no resume: only read in
        before = game.version
        for _ in range(400):
            if game.version > before:
                break
            await asyncio.sleep(0.01)
        await other.close()
        return before, game.version

    before, after = asyncio.run(run())
    assert after > before


def test_a_rated_game_its_process_left_unrated_is_rated_by_the_sweep_once(storage: Storage, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rating is written after the last move is answered: a process that stops in between
    (here its first rating writes nothing, as if it had died) leaves the game to the sweep,
    which rates it once it has been over for RATE_AFTER seconds, and only once."""
    from cantstop.web.games import live as live_module
    from cantstop.web.games.sweeper import RATE_AFTER

    real, calls = live_module.rate_game, []

    def stops_first_time(*args: Any) -> bool:
        calls.append(args)
        return len(calls) > 1 and real(*args)

    monkeypatch.setattr(live_module, "rate_game", stops_first_time)
    with people(storage, "Ann", "Bob", now=clock, metrics_token=TOKEN) as (ann, bob):
        game_id = rated_game(ann, [bob])
        assert post(bob, f"/api/games/{game_id}/resign", {}).json()["state"]["winner"] == 0
        service: GameService = ann.client.app.state.service
        assert ann.client.portal.call(service.games.ratings_written) is None and len(calls) == 1
        assert standings.changes(storage, game_id) == {}
        assert ann.client.portal.call(service.sweeper.sweep) == 0  # just over: its own process may be rating it still
        clock.advance(RATE_AFTER + 1)
        assert ann.client.portal.call(service.sweeper.sweep) == 1
        assert ann.client.portal.call(service.sweeper.sweep) == 0
        changes = standings.changes(storage, game_id)
        assert set(changes) == {0, 1} and changes[0].change > 0 > changes[1].change
        board = {p["name"]: p for p in ann.get("/api/players", params={"provisional": True}).json()}
        assert (board["Ann"]["games"], board["Ann"]["wins"], board["Bob"]["games"]) == (1, 1, 1)
        assert samples(ann.client)["cantstop_games_rated_late_total"] == 1
