"""The act path: each move is applied to the state once, and bots hand it actions, not text."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from web_helpers import settled

import cantstop.web.games.live as games_module
from cantstop.core.dice import SeededDice
from cantstop.core.state import ROLL, Phase
from cantstop.table import Collected, Kind, Move, Table
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


def test_the_notice_of_an_own_move_that_overtakes_it_reads_nothing(storage: Storage, monkeypatch: pytest.MonkeyPatch) -> None:
    """PostgreSQL tells every process of a move at commit, this one too, and the notice can
    come while the move's act path still holds the game: once it has the game, the move is
    played and there is nothing to read (it used to read the events all the same)."""
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
        notice = asyncio.create_task(service.games.notified(game_id, 1))
        await asyncio.sleep(0)
        assert not notice.done()  # it waits for the game, which the act path holds
        committed.set()
        await act
        await notice
        assert game.version == 1 and reads == []
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
