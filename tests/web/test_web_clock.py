"""The move clock: a person who runs out of time is played for by the table's failure
policy, recorded as a timeout; the deadline survives a restart; one process acts on it.
Time is the servers' clock, standing still until a test moves it past a deadline."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_helpers import NO_LIMITS, Clock, counted_down, run_out, wait_for

from cantstop.core.state import ROLL, STOP, Phase
from cantstop.table import Kind, Move
from cantstop.web.app import create_app
from cantstop.web.db.storage import Storage
from cantstop.web.db.tokens import new_token
from cantstop.web.db.values import Taker
from cantstop.web.games.clock import DAY, RAN_OUT
from cantstop.web.service import GameService


def hot_seat_game(client: TestClient, clock: int) -> tuple[str, dict[str, Any]]:
    body = {"seats": ["open", "open"], "clock": clock, "take": [{"seat": 0, "name": "Ann"}, {"seat": 1, "name": "Bob"}]}
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    game_id = response.json()["id"]
    return game_id, client.get(f"/api/games/{game_id}").json()


def test_a_person_out_of_time_is_played_for_and_the_record_says_timeout(storage: Storage, still_clock: Clock) -> None:
    clock = still_clock
    with TestClient(create_app(storage, now=clock, bot_delay=0, **NO_LIMITS)) as client:
        game_id, game = hot_seat_game(client, 30)
        first = game["state"]["player"]
        assert game["clock"] == {"seconds": 30, "deadline": round((clock() + 30) * 1000)}  # in ms, from the start
        timed = run_out(client, game_id, clock)
        assert timed["version"] == 2
    moves = storage.events(game_id)
    # The seat to move had to roll: the table's policy rolls for it, and says why.
    assert moves[0] == Move.fallback(first, f"timeout: {RAN_OUT}")
    assert moves[1].kind is Kind.ROLL and len(moves[1].dice) == 4
    # One log line says both: the clock ran out, and the roll the table made for the seat.
    line = next(e for e in timed["log"] if e.get("fell_back") == "timeout")
    assert line["seat"] == first and line["kind"] == "roll" and line["text"].startswith(RAN_OUT.capitalize())
    assert line["dice"] == list(moves[1].dice) and "rolls" in line["text"]


async def a_day_passes(service: GameService, clock: Clock, game_id: str) -> int:
    """Nobody moves for a day: the game's countdown (if it has one) acts, then the sweeper
    looks; returns what the sweep acted on."""
    game = service.games.held[game_id]
    clock.advance(DAY)
    service.clock.wake(game)
    if service.clock.counting(game):
        await counted_down(game)
    return await service.sweeper.sweep()


@pytest.mark.parametrize(("seconds", "moves"), [(0, []), (30, [Kind.FALLBACK, Kind.ROLL])])
def test_without_a_clock_nobody_is_hurried(storage: Storage, still_clock: Clock, seconds: int, moves: list[Kind]) -> None:
    """A day with nobody moving: a game without a clock waits on, one with a clock is played for."""
    with TestClient(create_app(storage, now=still_clock, bot_delay=0, **NO_LIMITS)) as client:
        game_id, game = hot_seat_game(client, seconds)
        service: GameService = client.app.state.service  # type: ignore[attr-defined]
        assert service.clock.counting(service.games.held[game_id]) is bool(seconds)
        if not seconds:
            assert game["clock"] == {"seconds": 0, "deadline": None}
        assert client.portal.call(a_day_passes, service, still_clock, game_id) == 0  # type: ignore[union-attr]
        assert client.get(f"/api/games/{game_id}").json()["version"] == len(moves)
    assert [m.kind for m in storage.events(game_id)] == moves


def test_only_the_offered_clocks_can_be_chosen(client: TestClient) -> None:
    for clock in (5, -30, "30", True, 3600):
        response = client.post("/api/games", json={"seats": ["open", "open"], "clock": clock})
        assert response.status_code == 422 and response.json()["error"] and "clock" in response.text


def test_the_deadline_is_kept_across_a_restart(storage: Storage, still_clock: Clock) -> None:
    """The deadline counts from the last stored move, not from when a server read the game."""
    with TestClient(create_app(storage, now=still_clock, bot_delay=0, **NO_LIMITS)) as client:
        game_id, _ = hot_seat_game(client, 30)
    still_clock.advance(60)  # the server was down for a minute after the game started
    with TestClient(create_app(storage, now=still_clock, bot_delay=0, **NO_LIMITS)) as client:
        after = wait_for(client, game_id, lambda g: g["version"] >= 2)  # read back, the move is overdue
    assert after["log"][1].get("fell_back") == "timeout"
    assert storage.events(game_id)[0].kind is Kind.FALLBACK


def test_with_two_processes_one_timeout_is_stored_per_move(storage: Storage, still_clock: Clock) -> None:
    clock = still_clock

    async def run() -> list[Move]:
        # Nobody forfeits here (forfeit_after=0): the clock plays for both seats move after move.
        here, there = (GameService(storage, bot_delay=0, forfeit_after=0, now=clock) for _ in range(2))
        people = {0: Taker("Ann", new_token()), 1: Taker("Bob", new_token())}
        game_id = await here.lobby.create("classic", ["open", "open"], people, clock=30)
        mine, theirs = await here.games.live(game_id), await there.games.live(game_id)
        for _ in range(3):  # past the deadline and the standby both: both countdowns act at once
            clock.advance(30 + here.clock.standby + 1)
            for service, game in ((here, mine), (there, theirs)):
                service.clock.wake(game)
            await asyncio.gather(counted_down(mine), counted_down(theirs))
        await here.close()
        await there.clock.close()
        async with theirs.lock:
            await there.games.refresh(theirs)
        await there.close()
        assert mine.table is not None and theirs.table is not None
        assert mine.version == 6 and theirs.table.moves == mine.table.moves  # one timeout a round, by either
        return storage.events(game_id)

    moves = asyncio.run(run())
    # Each timeout is a fallback followed by the move played for it: never two for one move.
    for i, move in enumerate(moves):
        if move.kind is Kind.FALLBACK:
            assert not moves[i + 1].out_of_band, moves


@pytest.mark.parametrize("clock", [30, 120])
def test_a_rematch_keeps_the_clock(storage: Storage, still_clock: Clock, clock: int) -> None:
    async def run() -> int:
        service = GameService(storage, bot_delay=0, now=still_clock)  # no move runs out meanwhile
        game_id = await service.lobby.create("solitaire", ["open"], {0: Taker("Ann", new_token())}, clock=clock)
        game = await service.games.live(game_id)
        for _ in range(10_000):  # Ann moves once a roll, then stops
            if game.table is None or game.table.over:
                break
            phase = game.table.state.phase
            move = Move.of(ROLL) if phase is Phase.ROLL else Move.of(STOP) if phase is Phase.DECIDE else Move.of(game.table.state.options[0])
            await service.games.act(game_id, 0, game.version, move)
        assert game.table is not None and game.table.over
        new_id, _ = await service.lobby.rematch(game_id, {0})
        meta = await service.recorder.db(storage.game, new_id)
        await service.close()
        return int(meta.clock)

    assert asyncio.run(run()) == clock


def test_the_first_moves_clock_counts_from_the_start_not_from_the_wait(storage: Storage, still_clock: Clock) -> None:
    """A game that waited long for its players gives the first move its whole clock."""
    async def run() -> tuple[float, float | None]:
        service = GameService(storage, bot_delay=0, now=still_clock)
        game_id = await service.lobby.create("classic", ["open", "open"], {0: Taker("Ann", new_token())}, clock=30)
        game = await service.games.live(game_id)
        still_clock.advance(3600)  # an hour spent waiting for Bob
        joined = still_clock()
        await service.lobby.join(game_id, 1, "Bob")
        deadline = game.deadline()
        await service.close()
        return joined, deadline

    joined, deadline = asyncio.run(run())
    assert deadline == joined + 30
