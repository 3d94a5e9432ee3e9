"""The act path: each move is applied to the state once, and bots hand it actions, not text."""

from __future__ import annotations

import asyncio
import json
import random
import threading
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from web_helpers import settled

import cantstop.web.games.live as games_module
from cantstop.core.dice import SeededDice
from cantstop.core.state import ROLL, Phase
from cantstop.table import Collected, Kind, Move, StaleMoveError, Table
from cantstop.web.db.storage import Storage
from cantstop.web.db.tokens import new_token
from cantstop.web.db.values import Taker
from cantstop.web.service import GameService


def test_one_action_is_applied_once(storage: Storage) -> None:
    async def run() -> None:
        service = GameService(storage, bot_delay=0)
        game_id = await service.lobby.create("classic", ["open", "open"], {0: Taker("Ann", new_token()), 1: Taker("Bob", new_token())})
        game = await service.games.live(game_id)
        assert game.state is not None and game.table is not None
        applied = game.table.sink = Collected()  # the table hands each move it applies to its sink
        await service.games.act(game_id, game.state.seat, 0, Move.of(ROLL))
        assert game.version == 1 and len(applied.moves) == 1 and applied.moves[0].kind is Kind.ROLL and len(applied.moves[0].dice) == 4
        await service.close()

    asyncio.run(run())


def test_bots_never_go_through_the_text_of_an_action(storage: Storage, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_parsing(raw: object) -> object:
        raise AssertionError(f"a bot's action went through text: {raw!r}")

    monkeypatch.setattr(games_module, "parse_action", no_parsing)

    async def run() -> None:
        service = GameService(storage, bot_delay=0)
        game_id = await service.lobby.create("classic+to_win=1", ["bot:random", "bot:rule28"])
        game = await service.games.live(game_id)
        await settled(lambda: game.state is not None and game.state.is_over, "the bots' game ending")
        await service.close()

    asyncio.run(run())


def test_concurrent_loads_of_a_game_make_one_live_game_and_leave_nothing_behind(storage: Storage) -> None:
    async def run() -> None:
        maker, service = GameService(storage, bot_delay=0), GameService(storage, bot_delay=0)
        game_id = await maker.lobby.create("classic", ["open", "open"])
        loads = await asyncio.gather(*(service.games.live(game_id) for _ in range(20)))
        assert all(game is loads[0] for game in loads) and service.games.held == {game_id: loads[0]}
        missing = await asyncio.gather(*(service.games.live("nothing-here") for _ in range(20)), return_exceptions=True)
        assert all(getattr(error, "code", None) == "no_game" for error in missing)
        assert service.games.loads_in_flight == 0
        await maker.close()
        await service.close()

    asyncio.run(run())


def test_the_notice_of_an_own_move_that_overtakes_it_reads_nothing_and_waits_for_nothing(
    storage: Storage, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """PostgreSQL tells every process of a move at commit, this one too, and the notice can
    come while the move's act path still holds the game: the act path plays the move, so the
    notice neither reads the events (it once did) nor waits for the game (the listener hears
    no other notice while it waits)."""
    reads: list[int] = []

    async def run() -> None:
        service = GameService(storage, bot_delay=0)
        game_id = await service.lobby.create("classic", ["open", "open"], {0: Taker("Ann", new_token()), 1: Taker("Bob", new_token())})
        game = await service.games.live(game_id)
        assert game.state is not None
        real_events, real_append = service.storage.events, service.recorder.append
        committed = asyncio.Event()

        async def slow_append(append: Any) -> None:
            await committed.wait()
            await real_append(append)

        monkeypatch.setattr(service.storage, "events", lambda *args: reads.append(args[-1]) or real_events(*args))
        monkeypatch.setattr(service.recorder, "append", slow_append)
        act = asyncio.create_task(service.games.act(game_id, game.state.seat, 0, Move.of(ROLL)))
        while not game.lock.locked():
            await asyncio.sleep(0)
        await asyncio.wait_for(service.games.notified(game_id, 1), 30)  # at once, though the act path holds the game
        assert game.lock.locked() and game.version == 0
        committed.set()
        await act
        assert game.version == 1 and reads == []
        await service.games.notified(game_id, 1)  # and after it
        assert reads == []
        await service.close()

    asyncio.run(run())


def test_a_notice_past_the_version_being_stored_is_read(storage: Storage, monkeypatch: pytest.MonkeyPatch) -> None:
    """A notice of a version beyond the one the act path is storing (another process stored
    more) is no notice of this process's move: it waits for the game and reads what is new."""
    async def run() -> None:
        service, other = GameService(storage, bot_delay=0), GameService(storage, bot_delay=0)
        game_id = await service.lobby.create("classic", ["open", "open"], {0: Taker("Ann", new_token()), 1: Taker("Bob", new_token())})
        game, theirs = await service.games.live(game_id), await other.games.live(game_id)
        assert game.state is not None
        seat = game.state.seat
        real_append = service.recorder.append
        release = asyncio.Event()

        async def held_append(append: Any) -> None:
            await release.wait()
            await real_append(append)

        monkeypatch.setattr(service.recorder, "append", held_append)
        act = asyncio.create_task(service.games.act(game_id, seat, 0, Move.of(ROLL)))
        while not game.lock.locked():
            await asyncio.sleep(0)
        await other.games.act(game_id, seat, 0, Move.of(ROLL))  # the other process takes versions 1 and 2
        assert theirs.state is not None and theirs.state.phase is Phase.CHOOSE
        await other.games.act(game_id, seat, 1, Move.of(theirs.state.legal_actions()[0]))
        notice = asyncio.create_task(service.games.notified(game_id, 2))
        await asyncio.sleep(0)
        assert not notice.done()  # beyond version 1, the one being stored here: it waits for the game
        release.set()
        with pytest.raises(StaleMoveError):
            await act
        await notice
        assert game.version == 2
        await service.close()
        await other.close()

    asyncio.run(run())


def test_an_act_path_cancelled_after_its_move_was_stored_still_shows_the_move(storage: Storage, monkeypatch: pytest.MonkeyPatch) -> None:
    """A move handed to storage is stored even if its act path is cancelled meanwhile (a
    server stopping, a request dropped). Its notice, come while the move was being stored,
    was passed over: the game catches up once it is free, as that notice would have made it,
    and its clients are sent the move."""
    async def run() -> None:
        service = GameService(storage, bot_delay=0)
        game_id = await service.lobby.create("classic", ["open", "open"], {0: Taker("Ann", new_token()), 1: Taker("Bob", new_token())})
        game = await service.games.live(game_id)
        assert game.state is not None
        queue: asyncio.Queue[str] = asyncio.Queue()
        game.connections.open(queue, True)
        stored, answer = threading.Event(), threading.Event()
        real_append_many = storage.append_many

        def held_append_many(items: Any) -> Any:
            done = real_append_many(items)
            stored.set()
            answer.wait(30)  # committed, not yet answered
            return done

        monkeypatch.setattr(storage, "append_many", held_append_many)
        act = asyncio.create_task(service.games.act(game_id, game.state.seat, 0, Move.of(ROLL)))
        while not stored.is_set():
            await asyncio.sleep(0.001)
        await service.games.notified(game_id, 1)  # the commit's notice, passed over
        assert game.version == 0
        act.cancel()
        with pytest.raises(asyncio.CancelledError):
            await act
        answer.set()
        update = json.loads(await asyncio.wait_for(queue.get(), 30))
        assert update["type"] == "update" and update["game"]["version"] == 1 and game.version == 1
        await service.close()

    asyncio.run(run())


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), variant=st.sampled_from(["classic", "solitaire", "classic+skip"]), players=st.integers(1, 3))
def test_the_seat_to_move_stored_with_a_move_is_the_one_the_table_reaches(seed: int, variant: str, players: int) -> None:
    """`to_move_after` works a roll or a stop out on the engine alone: the seat it names (or
    None at the end) is the one a trial copy of the table has after restoring the move."""
    players = 1 if variant == "solitaire" else max(players, 2)
    rng = random.Random(seed)
    table = Table.new(variant, [f"p{i}" for i in range(players)], SeededDice(seed), first=0)
    while not table.over and table.version < 400:
        state = table.state
        options = [ROLL] if state.phase is Phase.ROLL else list(state.legal_actions())
        ready = table.prepare(Move.of(rng.choice(options)))
        trial = table.trial()
        trial.restore(ready)
        assert games_module.to_move_after(table, [ready]) == (None if trial.over else trial.seat)
        table.play(ready)
