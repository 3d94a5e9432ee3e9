"""The move clock: a person who runs out of time is played for by the table's failure
policy, recorded as a timeout; the deadline survives a restart; one process acts on it."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_helpers import NO_LIMITS, wait_for

from cantstop.core.state import ROLL, STOP, Phase
from cantstop.table import Kind, Move
from cantstop.web.app import create_app
from cantstop.web.db.rows import GameRow
from cantstop.web.db.storage import Storage
from cantstop.web.db.tokens import new_token
from cantstop.web.db.values import Taker
from cantstop.web.games.clock import RAN_OUT
from cantstop.web.service import GameService

TINY = 0.005  # a 30 s clock lasts 0.15 s in these tests


def hot_seat_game(client: TestClient, clock: int) -> tuple[str, dict[str, Any]]:
    body = {"seats": ["open", "open"], "clock": clock, "take": [{"seat": 0, "name": "Ann"}, {"seat": 1, "name": "Bob"}]}
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    game_id = response.json()["id"]
    return game_id, client.get(f"/api/games/{game_id}").json()


def test_a_person_out_of_time_is_played_for_and_the_record_says_timeout(storage: Storage) -> None:
    with TestClient(create_app(storage, bot_delay=0, clock_scale=TINY, **NO_LIMITS)) as client:
        game_id, game = hot_seat_game(client, 30)
        first = game["state"]["player"]
        assert game["clock"]["seconds"] == 30 and game["clock"]["deadline"] is not None
        timed = wait_for(client, game_id, lambda g: g["version"] >= 2)
    moves = storage.events(game_id)
    # The seat to move had to roll: the table's policy rolls for it, and says why.
    assert moves[0] == Move.fallback(first, f"timeout: {RAN_OUT}")
    assert moves[1].kind is Kind.ROLL and len(moves[1].dice) == 4
    # One log line says both: the clock ran out, and the roll the table made for the seat.
    line = next(e for e in timed["log"] if e.get("fell_back") == "timeout")
    assert line["seat"] == first and line["kind"] == "roll" and line["text"].startswith(RAN_OUT.capitalize())
    assert line["dice"] == list(moves[1].dice) and "rolls" in line["text"]


def test_without_a_clock_nobody_is_hurried(storage: Storage) -> None:
    with TestClient(create_app(storage, bot_delay=0, clock_scale=TINY, **NO_LIMITS)) as client:
        game_id, game = hot_seat_game(client, 0)
        assert game["clock"] == {"seconds": 0, "deadline": None}
        assert client.get(f"/api/games/{game_id}").json()["version"] == 0
    assert storage.events(game_id) == []


def test_only_the_offered_clocks_can_be_chosen(client: TestClient) -> None:
    for clock in (5, -30, "30", True, 3600):
        response = client.post("/api/games", json={"seats": ["open", "open"], "clock": clock})
        assert response.status_code == 422 and response.json()["error"] and "clock" in response.text


def test_the_deadline_is_kept_across_a_restart(storage: Storage) -> None:
    """The deadline counts from the last stored move, not from when a server read the game."""
    with TestClient(create_app(storage, bot_delay=0, **NO_LIMITS)) as client:
        game_id, _ = hot_seat_game(client, 30)  # a real 30 s clock: nothing runs out meanwhile
    with storage.session() as s:  # the server was down for a minute after the game started
        row = s.get(GameRow, game_id)
        assert row is not None
        row.updated -= timedelta(seconds=60)
    with TestClient(create_app(storage, bot_delay=0, **NO_LIMITS)) as client:
        after = wait_for(client, game_id, lambda g: g["version"] >= 2)
    assert after["log"][1].get("fell_back") == "timeout"
    assert storage.events(game_id)[0].kind is Kind.FALLBACK


def test_with_two_processes_one_timeout_is_stored_per_move(storage: Storage) -> None:
    async def run() -> list[Move]:
        # Nobody forfeits here (forfeit_after=0): the clock plays for both seats move after move.
        here, there = (GameService(storage, bot_delay=0, clock_scale=TINY, forfeit_after=0) for _ in range(2))
        people = {0: Taker("Ann", new_token()), 1: Taker("Bob", new_token())}
        game_id = await here.lobby.create("classic", ["open", "open"], people, clock=30)
        mine, theirs = await here.games.live(game_id), await there.games.live(game_id)
        for _ in range(2000):
            if mine.version >= 6:
                break
            await asyncio.sleep(0.005)
        await here.close()
        await there.clock.close()
        async with theirs.lock:
            await there.games.refresh(theirs)
        await there.close()
        assert mine.table is not None and theirs.table is not None
        assert mine.version >= 6 and theirs.table.moves[: mine.version] == mine.table.moves
        return storage.events(game_id)

    moves = asyncio.run(run())
    # Each timeout is a fallback followed by the move played for it: never two for one move.
    for i, move in enumerate(moves):
        if move.kind is Kind.FALLBACK:
            assert not moves[i + 1].out_of_band, moves


@pytest.mark.parametrize("clock", [30, 120])
def test_a_rematch_keeps_the_clock(storage: Storage, clock: int) -> None:
    async def run() -> int:
        service = GameService(storage, bot_delay=0)
        game_id = await service.lobby.create("solitaire", ["open"], {0: Taker("Ann", new_token())}, clock=clock)
        game = await service.games.live(game_id)
        while game.table is not None and not game.table.over:  # Ann moves once a roll, then stops
            phase = game.table.state.phase
            move = Move.of(ROLL) if phase is Phase.ROLL else Move.of(STOP) if phase is Phase.DECIDE else Move.of(game.table.state.options[0])
            await service.games.act(game_id, 0, game.version, move)
        new_id, _ = await service.lobby.rematch(game_id, {0})
        meta = await service.recorder.db(storage.game, new_id)
        await service.close()
        return int(meta.clock)

    assert asyncio.run(run()) == clock


def test_the_first_moves_clock_counts_from_the_start_not_from_the_wait(storage: Storage) -> None:
    """A game that waited long for its players gives the first move its whole clock."""
    async def run() -> tuple[float, float | None]:
        service = GameService(storage, bot_delay=0)
        game_id = await service.lobby.create("classic", ["open", "open"], {0: Taker("Ann", new_token())}, clock=30)
        game = await service.games.live(game_id)
        game.moved_at -= 3600  # an hour spent waiting for Bob
        joined = time.time()
        await service.lobby.join(game_id, 1, "Bob")
        deadline = game.deadline()
        await service.close()
        return joined, deadline

    joined, deadline = asyncio.run(run())
    assert deadline is not None and deadline >= joined + 30
